"""One page's socket: its strict reader, its clock sync, and what it has told the table.

The service pings the page for the clock sync (quickly at first, then through the
game); every message the page sends goes through the socket's
:class:`~controller.browser.wire.DeviceReader`, and what it says goes to the browser
source.
"""

from __future__ import annotations

import itertools
import json
import logging
from typing import TYPE_CHECKING, Any, Protocol

from controller.browser.clocksync import ClockSync
from controller.browser.wire import (
    DeviceReader,
    Health,
    PauseTap,
    Pong,
    Press,
    Role,
    WireError,
)

if TYPE_CHECKING:
    from controller.browser.flow import CameraFlow
    from controller.browser.wire import FrameMsg, Health


class SessionHost(Protocol):
    """What a page's session asks of the source it feeds (the browser source)."""

    sync_allowance: float
    sessions: dict[Role, DeviceSession | None]
    flow: CameraFlow

    def mono(self) -> float: ...
    def status_for(self, session: DeviceSession) -> dict[str, Any]: ...
    def flow_changed(self) -> None: ...
    def trouble(self, text: str, kind: str | None = None) -> None: ...
    def page_press(self, session: DeviceSession, msg: Press) -> None: ...
    def page_pause(self) -> None: ...
    def page_health(self, session: DeviceSession, msg: Health) -> None: ...
    def page_frame(self, session: DeviceSession, msg: FrameMsg) -> None: ...

log = logging.getLogger("kaeshi.service")

#: Seconds between clock-sync pings: quick at first, then through the game.
PING_FIRST = 0.15
PING_EVERY = 2.0
#: Pings sent at the quick rate before the slow one.
PINGS_QUICK = 8

class DeviceSession:
    """One page's socket: its reader, its clock sync, and what it has told us."""

    def __init__(self, source: SessionHost, role: Role, number: int) -> None:
        self.source = source
        self.role = role
        self.number = number
        self.reader = DeviceReader(role)
        self.sync = ClockSync()
        self.health: Health | None = None
        self._ping_ids = itertools.count(1)
        self.pings_sent = 0
        self.refused = 0
        self.closed = False

    # ------------------------------------------------------------ sending
    def ping(self) -> str:
        """The next ping to send (its time is kept until the answer comes)."""
        n = next(self._ping_ids)
        self.reader.pings[n] = self.source.mono()
        if len(self.reader.pings) > 32:  # unanswered pings are forgotten
            del self.reader.pings[min(self.reader.pings)]
        self.pings_sent += 1
        return json.dumps({"type": "ping", "id": n})

    def ping_interval(self) -> float:
        return PING_FIRST if self.pings_sent < PINGS_QUICK else PING_EVERY

    def status(self) -> dict[str, Any]:
        """What the page shows: the sync, and for the camera what the service sees."""
        return {"type": "status", **self.source.status_for(self)}

    # ----------------------------------------------------------- receiving
    def text(self, text: str) -> str | None:
        """One text message; returns the reason if it was refused."""
        try:
            msg = self.reader.text(text)
        except WireError as exc:
            return self._refuse(exc)
        if isinstance(msg, Pong):
            sent = self.reader.pings.pop(msg.id)
            self.sync.add(sent, self.source.mono(), msg.t)
            est = self.sync.estimate()
            if est is not None and self.role == "camera" and self is self.source.sessions["camera"]:
                self.source.flow.synchronised()
                self.source.flow_changed()
            if est is not None and self.sync.count == 3:
                log.info("%s page %d: clock synchronised, offset %+.3f s ± %.0f ms",
                         self.role, self.number, est.offset, est.uncertainty * 1000)
            if est is not None and est.uncertainty > self.source.sync_allowance:
                self.source.trouble(
                    f"{self.role} page {self.number}: clock sync poor, ±"
                    f"{est.uncertainty * 1000:.0f} ms beyond the allowance of ±"
                    f"{self.source.sync_allowance * 1000:.0f} ms (a slow or busy Wi-Fi)",
                    kind=f"sync {self.role} {self.number}")
        elif isinstance(msg, Press):
            self.source.page_press(self, msg)
        elif isinstance(msg, PauseTap):
            self.source.page_pause()
        elif isinstance(msg, Health):
            self.source.page_health(self, msg)
        return None

    def binary(self, data: bytes) -> str | None:
        try:
            msg = self.reader.frame(data)
        except WireError as exc:
            return self._refuse(exc)
        self.source.page_frame(self, msg)
        return None

    def _refuse(self, exc: WireError) -> str:
        self.refused += 1
        self.source.trouble(f"{self.role} page sent a message refused: {exc}")
        return str(exc)

    def to_service(self, device_ms: float) -> float | None:
        return self.sync.to_service(device_ms)
