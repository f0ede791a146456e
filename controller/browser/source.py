"""``source.kind = "browser"``: a phone's camera page and a tablet's clock page.

The pages connect over WebSockets to the table's web server (routes in
:mod:`controller.web.phone_routes`); each socket is a :class:`DeviceSession`, read by
the one strict reader of :mod:`controller.browser.wire` and synchronised with the
service's clock by :mod:`controller.browser.clocksync`. Frames are mapped to the
service's monotonic clock at their capture instant and read by the same watcher as a
Pi camera's; presses, from the page or the GPIO buttons, are mapped the same way.
Both go through :class:`~controller.browser.order.InputOrder`, so the arbiter takes
them in the order they happened, never the order they arrived. The frames are read
(the watcher, the gaps in the view) by the source's
:class:`~controller.browser.view.CameraView`; the devices, the order's release and
what the pages are told are here.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from controller.boardsize import STANDARD
from controller.browser.flow import CameraFlow
from controller.browser.health import Advice
from controller.browser.order import InputOrder
from controller.browser.session import DeviceSession
from controller.browser.view import GAP_FRAMES, CameraView
from controller.browser.wire import FrameMsg, Health, Press, Role
from controller.service.sources import LinkChange, Notice, Reading, SourceItem
from controller.squares import Color

log = logging.getLogger("kaeshi.service")


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
        #: The key the pages' addresses carry: a page without it is not this table's.
        self.device_key = device_key
        self.network = network
        self.sync_allowance = sync_allowance
        self.size = size
        self.mono: Callable[[], float] = monotonic or _loop_time
        self.order = InputOrder(network + sync_allowance, hold_max)
        self.sessions: dict[Role, DeviceSession | None] = {"camera": None, "clock": None}
        self._numbers = itertools.count(1)
        self._wake: asyncio.Event | None = None
        self._out: list[SourceItem] = []
        self._closed = False
        self._troubles: set[str] = set()
        self.pause_button: Callable[[], None] = lambda: None
        #: The phone holder's task (one text per step: page, arbiter's view, log).
        self.flow = CameraFlow()
        self._step = self.flow.step
        self.view = CameraView(self, self.order, self.flow, fps, self.mono, setup_path,
                               keepalive, game_size)

    @property
    def counts(self) -> dict[str, int]:
        """Frames received, read, dropped (queue full), and refused before the sync."""
        return self.view.counts

    @property
    def first_frame_at(self) -> float | None:
        return self.view.first_frame_at

    @property
    def advice(self) -> Advice:
        return self.view.advice

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
        self.view.open()
        self._wake = asyncio.Event()
        worker = asyncio.create_task(self.view.run(), name="browser-frames")
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
                self.view.down("the camera page disconnected")

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
        self.poke()

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
        self.poke()

    def page_frame(self, session: DeviceSession, msg: FrameMsg) -> None:
        self.counts["received"] += 1
        at = session.to_service(msg.t)
        if at is None:
            self.counts["unsynced"] += 1
            return
        self.view.offer(at, msg)

    # ----------------------------------------------------- what the view needs
    def tell(self, item: SourceItem) -> None:
        """An item for the service, handed on at the loop's next turn."""
        self._out.append(item)

    def poke(self) -> None:
        if self._wake is not None:
            self._wake.set()

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
        if self.view.up and not self.order.camera_live(self.mono()) \
                and self.sessions["camera"] is None:
            self.view.down("the camera page is gone")

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


def _stamped(item: Reading, at: float) -> Reading:
    return Reading(board=item.board, press=item.press, at=at)


def _loop_time() -> float:
    import time

    return time.monotonic()
