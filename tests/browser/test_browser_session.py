"""One page's socket (``session``): its pings, what an answer does to the clock sync and
the camera's step, where each message goes, and what a refused one costs."""

from __future__ import annotations

import json
from typing import Any

from controller.browser.flow import CameraFlow, CameraStep
from controller.browser.session import PING_EVERY, PING_FIRST, PINGS_QUICK, DeviceSession
from controller.browser.wire import (
    FrameMsg,
    Health,
    Press,
    encode_frame,
    encode_health,
    encode_pong,
    encode_press,
)
from controller.squares import Color

JPEG = b"\xff\xd8" + b"\x00" * 20 + b"\xff\xd9"


class Host:
    """The browser source as a session sees it: a clock the test moves, and a record of
    what the session handed on."""

    def __init__(self, allowance: float = 0.1) -> None:
        self.t = 100.0
        self.sync_allowance = allowance
        self.sessions: dict[str, DeviceSession | None] = {"camera": None, "clock": None}
        self.flow = CameraFlow()
        self.flow.connect()
        self.flow_changes = 0
        self.said: list[tuple[str, str | None]] = []
        self.got: list[Any] = []

    def mono(self) -> float:
        return self.t

    def status_for(self, session: DeviceSession) -> dict[str, Any]:
        return {"role": session.role}

    def flow_changed(self) -> None:
        self.flow_changes += 1

    def trouble(self, text: str, kind: str | None = None) -> None:
        self.said.append((text, kind))

    def page_press(self, session: DeviceSession, msg: Press) -> None:
        self.got.append(msg)

    def page_pause(self) -> None:
        self.got.append("pause")

    def page_health(self, session: DeviceSession, msg: Health) -> None:
        self.got.append(msg)

    def page_frame(self, session: DeviceSession, msg: FrameMsg) -> None:
        self.got.append(msg)


def session(host: Host, role: str) -> DeviceSession:
    s = DeviceSession(host, role, 1)  # type: ignore[arg-type]
    host.sessions[role] = s
    return s


def answer(host: Host, s: DeviceSession, rtt: float, ahead: float) -> str | None:
    """The page answers the next ping ``rtt`` seconds later, its clock ``ahead`` seconds
    ahead of the service's, read half way."""
    ping = json.loads(s.ping())
    sent = host.t
    host.t += rtt
    return s.text(encode_pong(ping["id"], (sent + rtt / 2 + ahead) * 1000))


def test_pings_come_quickly_at_first_then_through_the_game_each_with_a_new_id():
    s = session(Host(), "clock")
    intervals, ids = [], []
    for _ in range(PINGS_QUICK + 2):
        intervals.append(s.ping_interval())
        ids.append(json.loads(s.ping())["id"])
    assert intervals == [PING_FIRST] * PINGS_QUICK + [PING_EVERY] * 2
    assert ids == sorted(set(ids))
    for _ in range(40):
        s.ping()
    assert len(s.reader.pings) == 32  # unanswered pings are forgotten, the oldest first
    assert min(s.reader.pings) == ids[-1] + 40 - 31
    assert s.status() == {"type": "status", "role": "clock"}


def test_three_answers_synchronise_the_camera_and_map_its_times():
    host = Host()
    s = session(host, "camera")
    assert answer(host, s, 0.02, 5.0) is None
    assert answer(host, s, 0.02, 5.0) is None
    assert host.flow.step is CameraStep.SYNCING and s.to_service(1000.0) is None
    assert answer(host, s, 0.02, 5.0) is None
    assert host.flow.step is not CameraStep.SYNCING and host.flow_changes == 1
    assert abs(s.to_service((90.0 + 5.0) * 1000) - 90.0) < 1e-6
    assert host.said == []


def test_a_camera_page_not_the_sources_camera_does_not_move_the_flow():
    host = Host()
    s = DeviceSession(host, "camera", 2)  # a second camera page, not the one in use
    for _ in range(3):
        answer(host, s, 0.02, 5.0)
    assert host.flow.step is CameraStep.SYNCING and host.flow_changes == 0
    assert s.to_service(95000.0) is not None


def test_a_slow_network_is_said_as_a_poor_sync():
    host = Host(allowance=0.1)
    s = session(host, "clock")
    for _ in range(3):
        answer(host, s, 0.5, 0.0)  # ±250 ms
    assert host.said and "clock page 1: clock sync poor, ±250 ms beyond the allowance of " \
        "±100 ms" in host.said[-1][0]
    assert host.said[-1][1] == "sync clock 1"


def test_presses_health_and_frames_go_to_the_source_as_read():
    host = Host()
    clock, camera = session(host, "clock"), session(host, "camera")
    assert clock.text(encode_press(Color.WHITE, 5000.0, 1)) is None
    assert clock.text(json.dumps({"type": "pause", "t": 5001.0, "seq": 2})) is None
    assert camera.text(encode_health(True, 0.5, False)) is None
    assert camera.binary(encode_frame(6000.0, 1, JPEG)) is None
    assert host.got == [Press(Color.WHITE, 5000.0, 1), "pause", Health(True, 0.5, False),
                        FrameMsg(6000.0, 1, JPEG)]
    assert host.said == [] and clock.refused == camera.refused == 0


def test_a_refused_message_is_said_counted_and_its_reason_returned():
    host = Host()
    clock, camera = session(host, "clock"), session(host, "camera")
    refused = [
        camera.text(encode_press(Color.BLACK, 5000.0, 1)),  # a camera page has no clock
        clock.text(encode_pong(7, 5000.0)),  # no ping 7 was sent
        clock.binary(encode_frame(6000.0, 1, JPEG)),  # a clock page sends no frames
        camera.binary(b"\x00" * 4),
        clock.text("{"),
    ]
    assert all(isinstance(r, str) and r for r in refused)
    assert refused[1] == "pong 7 answers no ping"
    assert refused[2] == "a clock page sends no frames"
    assert (camera.refused, clock.refused) == (2, 3)
    assert [text for text, _ in host.said] == [
        f"{s.role} page sent a message refused: {r}"
        for s, r in zip((camera, clock, clock, camera, clock), refused, strict=True)]
    assert host.got == []
