"""``source.kind = "browser"``: a phone's camera page and a tablet's clock page.

The pages connect over WebSockets to the table's web server (routes in
:mod:`controller.web.phone_routes`); each socket is a :class:`DeviceSession`, read by
the one strict reader of :mod:`controller.browser.wire` and synchronised with the
service's clock by :mod:`controller.browser.clocksync`. Frames are mapped to the
service's monotonic clock at their capture instant and read by the same watcher as a
Pi camera's; presses, from the page or the GPIO buttons, are mapped the same way.
Both go through :class:`~controller.browser.order.InputOrder`, so the arbiter takes
them in the order they happened, never the order they arrived.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
from collections.abc import AsyncIterator, Callable
from typing import Any

from controller.boardsize import STANDARD, board_size
from controller.browser.flow import CameraFlow
from controller.browser.health import Advice, FrameLook, look_at
from controller.browser.order import InputOrder
from controller.browser.session import DeviceSession
from controller.browser.wire import FrameMsg, Health, Press, Role
from controller.service.sources import LinkChange, Notice, Reading, SourceItem, camera_stable
from controller.squares import Color

log = logging.getLogger("kaeshi.service")

#: Frames waiting to be read beyond this are dropped, oldest first (the reader is slow,
#: or a backlog too long).
MAX_QUEUED_FRAMES = 300  # a page's backlog after a dropped socket (20 s at 15 fps)
#: Frame periods without a frame that make a gap in the view (a reload, a locked screen).
GAP_FRAMES = 4
#: Frames after a gap whose line is handed on even if the watcher saw no change.
AFTER_GAP = 3


def unseen(size: int = STANDARD) -> str:
    """What the camera saw while it saw nothing: every square unknown."""
    return "?" * board_size(size).squares



class BrowserSource:
    """The board and the clock from the pages (see the module docstring)."""

    name = "browser"
    watchdog = True
    settled = False

    def __init__(self, fps: int, setup_path: str = "", keepalive: float = 1.0,
                 network: float = 0.4, sync_allowance: float = 0.1, hold_max: float = 10.0,
                 size: tuple[int, int] = (640, 480),
                 monotonic: Callable[[], float] | None = None, device_key: str = "",
                 game_size: int = STANDARD) -> None:
        self.fps = fps
        self.game_size = game_size  # the board's: the set-up must have been made on one
        #: The key the pages' addresses carry: a page without it is not this table's.
        self.device_key = device_key
        self.setup_path = setup_path
        self.keepalive = keepalive
        self.network = network
        self.sync_allowance = sync_allowance
        self.size = size
        self.mono: Callable[[], float] = monotonic or _loop_time
        self.order = InputOrder(network + sync_allowance, hold_max)
        self.sessions: dict[Role, DeviceSession | None] = {"camera": None, "clock": None}
        self._numbers = itertools.count(1)
        self._frames: asyncio.Queue[tuple[float, FrameMsg]] | None = None
        self._wake: asyncio.Event | None = None
        self._out: list[SourceItem] = []
        self._closed = False
        self._troubles: set[str] = set()
        self.watcher: Any = None
        self.look: FrameLook | None = None
        self.advice: Advice = Advice()
        #: Frames received, read, dropped (queue full), and refused before the sync.
        self.counts = {"received": 0, "read": 0, "dropped": 0, "unsynced": 0}
        self.first_frame_at: float | None = None
        self.pause_button: Callable[[], None] = lambda: None
        self._told = 0
        self._after_gap = 0
        #: A gap in the view being bridged: (last frame before, first after, frames since).
        self._gap: tuple[float, float, int] | None = None
        self._seen = True
        self._camera_up = False
        #: The phone holder's task (one text per step: page, arbiter's view, log).
        self.flow = CameraFlow()
        self._step = self.flow.step

    # ------------------------------------------------------------ the Source
    @property
    def latency(self) -> float:
        """Real seconds an input may come after its stamp: the network's share and
        the sync's uncertainty (the flag waits that long after its fall)."""
        return self.order.latency

    def press_wait_extra(self) -> float:
        """Seconds added to the press wait: a press and a frame are stamped by two
        devices, each known to within its sync's allowance."""
        return self.sync_allowance

    async def items(self) -> AsyncIterator[SourceItem]:
        self._closed = False
        self._frames = asyncio.Queue()
        self._wake = asyncio.Event()
        worker = asyncio.create_task(self._read_frames(), name="browser-frames")
        try:
            yield LinkChange(False, "waiting for the camera page")
            while not self._closed:
                try:
                    await asyncio.wait_for(self._wake.wait(), 0.05)
                except TimeoutError:
                    pass
                self._wake.clear()
                self._check_camera()
                for at, item in self.order.release(self.mono()):
                    self._out.append(_stamped(item, at))
                out, self._out = self._out, []
                for item in out:
                    yield item
                if worker.done():
                    worker.result()  # a bug in the reader surfaces as the source failing
        finally:
            worker.cancel()

    async def close(self) -> None:
        self._closed = True
        if self._wake is not None:
            self._wake.set()

    def pending_at(self) -> float:
        """The earliest monotonic instant an input still to come may carry."""
        return self.order.pending_at(self.mono())

    # --------------------------------------------------------- the devices
    def connect(self, role: Role) -> DeviceSession:
        """A page opened its socket; a page already there (the one reloaded) goes."""
        old = self.sessions[role]
        if old is not None:
            old.closed = True
        session = DeviceSession(self, role, next(self._numbers))
        self.sessions[role] = session
        if role == "camera":
            self.flow.connect()
            self.flow_changed()
        log.info("%s page %d connected", role, session.number)
        return session

    def disconnect(self, session: DeviceSession) -> None:
        session.closed = True
        if self.sessions[session.role] is session:
            self.sessions[session.role] = None
            log.info("%s page %d disconnected", session.role, session.number)
            if session.role == "camera":
                self.flow.disconnect()
                self.flow_changed()
                self._camera_down("the camera page disconnected")

    def trouble(self, text: str, kind: str | None = None) -> None:
        """One log line per kind of trouble (the first of its kind), then debug."""
        kind = kind or text.split(":", 1)[0]
        if kind in self._troubles:
            log.debug("%s", text)
        else:
            self._troubles.add(kind)
            log.warning("%s", text)

    def page_press(self, session: DeviceSession, msg: Press) -> None:
        at = session.to_service(msg.t)
        now = self.mono()
        if at is None:
            self.trouble("press stamped on arrival: the clock page's sync is not ready")
            at = now
        self.press(msg.color, at)

    def press(self, color: Color, at: float) -> None:
        """A press at monotonic instant ``at``, from the page or a GPIO button: one rule."""
        now = self.mono()
        if at > now + 1.0:
            self.trouble(f"press: stamped {at - now:.2f} s in the future, taken as now")
            at = now
        self.order.push(at, Reading(press=color), now, press=True)
        self._poke()

    def page_pause(self) -> None:
        self.pause_button()

    def page_health(self, session: DeviceSession, msg: Health) -> None:
        before = session.health
        session.health = msg
        if session.role == "camera" and session is self.sessions["camera"]:
            self.flow.shown(msg.visible)
            self.flow_changed()
        if before is None or before.visible != msg.visible:
            if not msg.visible:
                self._out.append(Notice(f"{session.role} page: the page is hidden "
                                        "(backgrounded or screen locked)"))
        low = msg.battery is not None and msg.battery < 0.15 and not msg.charging
        was_low = (before is not None and before.battery is not None
                   and before.battery < 0.15 and not before.charging)
        if low and not was_low and msg.battery is not None:
            self._out.append(Notice(f"{session.role} page: battery low "
                                    f"({msg.battery * 100:.0f} %): plug the device in"))
        self._poke()

    def page_frame(self, session: DeviceSession, msg: FrameMsg) -> None:
        self.counts["received"] += 1
        at = session.to_service(msg.t)
        if at is None:
            self.counts["unsynced"] += 1
            return
        assert self._frames is not None
        if self._frames.qsize() >= MAX_QUEUED_FRAMES:
            self._frames.get_nowait()
            self.counts["dropped"] += 1
            self.trouble("frames dropped: the service reads frames slower than they come")
        if self.first_frame_at is None:
            self.first_frame_at = at
        self._frames.put_nowait((at, msg))

    # ------------------------------------------------------------- reading
    async def _read_frames(self) -> None:
        assert self._frames is not None
        loop = asyncio.get_running_loop()
        while True:
            at, msg = await self._frames.get()
            if at < (self.order.camera_mark or -math.inf):
                continue  # a frame from before the last one read (a reloaded page's)
            image = await loop.run_in_executor(None, _decode, msg.jpeg)
            if image is None:
                self.trouble("frame: the JPEG could not be decoded")
                continue
            if self.watcher is None:
                self.watcher = await loop.run_in_executor(None, self._watcher, image)
            mark = self.order.camera_mark
            gap = (self._gap is None and mark is not None
                   and at - mark > GAP_FRAMES / self.fps)
            obs = await loop.run_in_executor(None, self.watcher.feed, at, image)
            self.counts["read"] += 1
            gap = gap and self.watcher.board_seen  # a frame with no board shows nothing
            if gap and mark is not None:
                self._after_gap = AFTER_GAP
                self._gap = (mark, at, 0)
            if obs is None and self._after_gap and self.watcher.last_line:
                obs = _line(at, self.watcher.last_line)
            self._after_gap = max(0, self._after_gap - 1)
            bridging = self._gap is not None
            if self._gap is not None and self.watcher.board_seen:
                start, end, seen = self._gap
                line = self.watcher.last_line or ""
                if seen + 1 >= AFTER_GAP or (seen >= 1 and "?" not in line):
                    self._bridge(start, end, line)
                    self._gap = None
                else:
                    self._gap = (start, end, seen + 1)
            was_blurred = self.look is not None and self.look.blurred
            self.look = look_at(image, self.watcher, self.look)
            if self.look.blurred and not was_blurred:
                self.trouble("camera: a frame out of focus (the phone's autofocus hunting); "
                             "the arbiter waits for frames that agree")
            self.advice = self.look.advice
            self.flow.frame(self.advice.board, bool(self.advice.fix))
            self.flow_changed()
            self._camera_news(at)
            for late in self.watcher.take_late():
                self.order.push(late.t, Reading(board=late.board), self.mono())
            if obs is not None:
                self.order.push(at, Reading(board=obs.board), self.mono())
            if (not bridging or self._gap is None) and self.watcher.board_seen:
                # a frame with no board in view (the phone knocked, the lens covered) is
                # no view: presses and the arbiter wait for the board as for a gap
                self.order.camera_read(at, self.mono())
            self._poke()

    def _bridge(self, mark: float, at: float, line: str) -> None:
        """The view was gone from ``mark`` to ``at`` (a reload, a locked screen): what lay
        on the board meanwhile is unknown. A press made in the gap is judged on the first
        view after it, as if taken at the press (the arbiter held its judgement for it);
        the clock keeps the press's own time."""
        self.trouble(f"camera: no frames for {at - mark:.1f} s (page reloaded, hidden or "
                     "cut off); judgement waited for the view")
        now = self.mono()
        self.order.push(mark + 0.5 / self.fps, Reading(board=unseen(self.game_size)), now)
        if not line:
            return
        for pressed in self.order.presses_between(mark, at):
            for k in (1, 2):  # two readings that agree: a board the arbiter takes
                self.order.push(pressed + k * 1e-3, Reading(board=line), now)

    def _camera_news(self, at: float) -> None:
        from controller.vision.watching.watcher import KEPT_GRID

        watcher = self.watcher
        if not self._camera_up:
            self._camera_up = True
            self._out.append(LinkChange(True, "the camera page streams"))
        for note in watcher.stats.messages[self._told:]:
            if KEPT_GRID in note:
                self._out.append(Notice(f"camera: {note.split(': ', 1)[-1]}; look at the "
                                        "phone and the board"))
            elif "the grid was fitted again" in note:
                self._out.append(Notice(f"camera: {note.split(': ', 1)[-1]} (the phone was "
                                        "nudged?)"))
        self._told = len(watcher.stats.messages)
        if self.look is not None and self.look.exposure_jump:
            self._out.append(Notice("camera: the exposure changed (light or the phone's "
                                    "automatic exposure); the game goes on as read"))
        if watcher.board_seen != self._seen:
            self._seen = watcher.board_seen
            self._out.append(LinkChange(self._seen, "the board is back in view" if self._seen
                                        else "the board is not in view"))

    def _watcher(self, image: Any) -> Any:
        from controller.vision.calibration_file import load_for_game, refused_note
        from controller.vision.pipeline import auto_setup
        from controller.vision.watching.watcher import BoardWatcher

        if self.setup_path:
            cal = load_for_game(self.setup_path, self.game_size)
            if cal.refused:
                log.warning("%s", refused_note(self.setup_path))
            setup = cal.setup
        else:
            setup = auto_setup(image, n=self.game_size)
        return BoardWatcher.on_setup(setup, stable=camera_stable(self.fps),
                                     keepalive=self.keepalive)

    def flow_changed(self) -> None:
        step = self.flow.step
        if step is not self._step:
            self._step = step
            log.info("camera page: %s", self.flow.text)

    def _check_camera(self) -> None:
        seen = self.order.camera_seen
        if seen is not None and self.mono() - seen > GAP_FRAMES / self.fps + 0.5:
            self.flow.silent()
            self.flow_changed()
        if self._camera_up and not self.order.camera_live(self.mono()) \
                and self.sessions["camera"] is None:
            self._camera_down("the camera page is gone")

    def _camera_down(self, why: str) -> None:
        if self._camera_up:
            self._camera_up = False
            self._out.append(LinkChange(False, why))
            self._poke()

    def _poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

    # ------------------------------------------------------------ the pages
    def status_for(self, session: DeviceSession) -> dict[str, Any]:
        est = session.sync.estimate()
        sync: dict[str, Any] = {"ready": est is not None}
        if est is not None:
            sync.update(offset_ms=round(est.offset * 1000, 1),
                        uncertainty_ms=round(est.uncertainty * 1000, 1),
                        good=est.uncertainty <= self.sync_allowance)
        out: dict[str, Any] = {"sync": sync}
        if session.role == "camera":
            out["step"] = {"step": self.flow.step.value, "text": self.flow.text}
            out["camera"] = {
                "width": self.size[0], "height": self.size[1], "fps": self.fps,
                "counts": dict(self.counts), **self.advice.to_json(),
            }
        return out

    def devices(self) -> dict[str, Any]:
        """The devices as the arbiter's view shows them."""
        out: dict[str, Any] = {}
        for role, session in self.sessions.items():
            if session is None:
                out[role] = {"connected": False}
                continue
            est = session.sync.estimate()
            health = session.health
            out[role] = {
                "connected": True,
                "sync_ms": None if est is None else round(est.uncertainty * 1000, 1),
                "visible": None if health is None else health.visible,
                "battery": None if health is None else health.battery,
            }
        out["step"] = {"step": self.flow.step.value, "text": self.flow.text}
        out["advice"] = self.advice.to_json()
        out["frames"] = dict(self.counts)
        return out


def _line(at: float, board: str) -> Any:
    from controller.observation import Observation

    return Observation(at, board=board)


def _stamped(item: Reading, at: float) -> Reading:
    return Reading(board=item.board, press=item.press, at=at)


def _decode(jpeg: bytes) -> Any:
    import numpy as np

    from controller.vision.cv import cv2

    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)


def _loop_time() -> float:
    import time

    return time.monotonic()
