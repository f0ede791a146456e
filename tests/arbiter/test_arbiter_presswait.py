"""A press judged against the board as it stood at the press, seen through the frames
taken after it (``controller.arbiter.presswait``).

The logs are what ``kaeshi watch`` writes when a player presses promptly: the finished
move reaches the log as one lone line just before the press, or only after it.
"""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.arbiter.presswait import MAX_PRESS_WAIT, frames_after_press, press_wait
from controller.cli import main
from controller.observation import LogHeader, Observation
from controller.service.choice import SourceChoice
from controller.service.config import defaults
from controller.simulator.prompt import prompt_presses
from controller.squares import Color

START = "---------------------------OX------XO---------------------------"
HAND = START[:35] + "???" + START[38:]  # a hand over d5-f5
HALF = START[:37] + "X" + START[38:]  # f5 put down, e5 not turned yet
DONE = START[:35] + "XXX" + START[38:]  # f5, e5 turned: the move finished
B, W = Color.BLACK, Color.WHITE
WAIT = press_wait(10.0)  # a 10 fps camera, the watcher's default stable=2


def board(t: float, b: str) -> Observation:
    return Observation(t, board=b)


def press(t: float, who: Color) -> Observation:
    return Observation(t, press=who)


def opening() -> list[Observation]:
    return [board(0.0, START), board(0.1, START), press(0.5, W)]


def brief(events: list) -> list[tuple]:
    return [(e.event, e.fields.get("player"), e.fields.get("square") or e.fields.get("kind"),
             tuple(e.fields.get("squares", ()))) for e in events]


# One lone line of the finished move before the press, its repeat after it.
LONE = [*opening(), board(1.0, HAND), board(1.1, HALF), board(1.2, HALF), board(1.3, HAND),
        board(1.5, DONE), press(1.55, B), board(1.6, DONE)]
# No line of the finished move before the press at all.
NONE_BEFORE = [*opening(), board(1.0, HAND), press(1.2, B), board(1.3, DONE), board(1.4, DONE)]
CLEAN = [("move", "black", "f5", ())]


def test_the_wait_is_the_frames_a_camera_needs_after_the_press():
    assert frames_after_press(2) == 4 and frames_after_press(1) == 3
    assert press_wait(10.0) == pytest.approx(0.4)
    assert press_wait(15.0) == pytest.approx(4 / 15)
    assert press_wait(30.0) == pytest.approx(4 / 30)
    assert press_wait(10.0, stable=1) == pytest.approx(0.3)
    assert press_wait(5.0) == MAX_PRESS_WAIT  # a slow camera: the bound holds
    assert press_wait(5.0, bound=0.2) == pytest.approx(0.2)
    assert press_wait(10.0, stable=0) == pytest.approx(0.2)  # raw frames, no watcher
    for bad in (lambda: press_wait(0.0), lambda: press_wait(10.0, stable=-1),
                lambda: press_wait(10.0, bound=-1.0)):
        with pytest.raises(ValueError):
            bad()
    with pytest.raises(ValueError, match="press_wait"):
        ArbiterConfig(press_wait=-0.1)


def test_a_lone_line_before_the_press_is_a_false_flag_at_once_and_right_with_the_wait():
    at_once = brief(arbitrate(LONE))
    assert ("irregularity", "black", "forgotten_flip", ("e5",)) in at_once
    events = arbitrate(LONE, ArbiterConfig(press_wait=WAIT))
    assert brief(events) == CLEAN
    assert events[0].t == 1.55  # judged with the press's own time


def test_a_move_not_yet_on_the_log_at_the_press_is_not_a_pass_with_the_wait():
    at_once = brief(arbitrate(NONE_BEFORE))
    assert at_once[0][:2] == ("pass", "black")
    assert any(e[2] == "illegal_pass" for e in at_once)
    assert brief(arbitrate(NONE_BEFORE, ArbiterConfig(press_wait=WAIT))) == CLEAN


def test_a_change_after_the_press_is_not_part_of_the_move_pressed():
    """The board read at the press is what is judged: a disc turned just after the
    press is a fault put right, not a move that was clean."""
    log = [*opening(), board(1.0, HAND), board(1.2, HALF), board(1.3, HALF), press(1.6, B),
           board(1.7, DONE), board(1.8, DONE)]
    assert brief(arbitrate(log, ArbiterConfig(press_wait=WAIT))) == [
        ("move", "black", "f5", ()),
        ("irregularity", "black", "forgotten_flip", ("e5",)),
        ("corrected", None, "forgotten_flip", ("e5",)),
    ]


def test_a_held_press_is_judged_when_its_wait_is_over_without_a_later_reading():
    """A live service calls ``elapse`` when ``settles_at`` comes; the camera may be silent."""
    a = Arbiter(ArbiterConfig(press_wait=WAIT))
    for obs in LONE[:-1]:
        assert a.feed(obs) == []
    assert a.feed(LONE[-1]) == []  # the repeat after the press: still waiting
    due = a.settles_at()
    assert due == pytest.approx(1.55 + WAIT)
    assert a.elapse(due - 0.01) == []
    assert brief(a.elapse(due)) == CLEAN
    assert a.settles_at() is None


def test_the_next_press_and_the_end_of_the_input_judge_a_held_press():
    log = [*LONE, press(1.7, W)]  # the opponent presses at once: judged in order
    events = arbitrate(log, ArbiterConfig(press_wait=WAIT))
    assert brief(events)[0] == CLEAN[0]
    assert brief(arbitrate(LONE, ArbiterConfig(press_wait=5.0))) == CLEAN  # by finish


def test_the_sensor_board_path_does_not_wait():
    settled = [*opening(), board(1.0, HAND), board(1.5, DONE), press(1.55, B)]
    assert brief(arbitrate(settled, ArbiterConfig(settled=True))) == CLEAN


@pytest.mark.parametrize("kind,fps,header,want", [
    ("camera", 10, None, 0.3),  # the service's watcher takes stable=1 at 10 fps and above
    ("camera", 30, None, 0.1),
    ("camera", 4, None, 0.5),  # slow: the configured bound
    ("hall", 10, None, 0.0),
    ("sim", 10, None, 0.0),  # a log without a header: judged at each press
    ("sim", 10, LogHeader("video", "game.mp4", 10.0, 2), 0.4),  # as 'kaeshi watch' read it
    ("sim", 10, LogHeader("camera", "camera 0", None, 2), 0.0),  # no rate said
])
def test_the_service_computes_the_wait_from_its_camera(kind, fps, header, want):
    config = defaults().replace(**{"source.kind": kind, "source.fps": fps})
    choice = SimpleNamespace(config=config, logs=SimpleNamespace(header=lambda: header))
    assert SourceChoice.press_wait(choice) == pytest.approx(want)  # type: ignore[arg-type]


def test_arbitrate_fps_judges_presses_with_the_frames_after_them(tmp_path, capsys):
    path = tmp_path / "camera.jsonl"
    path.write_text("".join(o.to_json() + "\n" for o in LONE))
    assert main(["arbitrate", str(path), "--fps", "10"]) == 0
    events = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [(e["event"], e.get("square")) for e in events] == [("move", "f5")]
    assert main(["arbitrate", str(path)]) == 0
    assert "forgotten_flip" in capsys.readouterr().out


def test_prompt_presses_come_soon_after_the_last_change():
    log = [*opening(), board(1.0, HAND), board(1.2, DONE), board(1.3, DONE),
           board(2.0, DONE), press(3.0, B), board(5.0, DONE), press(5.5, W)]
    for seed in range(20):
        moved = prompt_presses(log, seed)
        presses = [o for o in moved if o.press is not None]
        assert presses[0].t == 0.5  # no change on the board before it: stays
        assert 1.2 + 0.15 <= presses[1].t <= 1.2 + 0.4
        assert presses[2].t == 5.5  # unchanged since the last press: stays
        assert [o.t for o in moved] == sorted(o.t for o in moved)
        assert sorted(o.to_json() for o in moved if o.board) == sorted(
            o.to_json() for o in log if o.board)
    assert prompt_presses(log, 1) == prompt_presses(log, 1)
