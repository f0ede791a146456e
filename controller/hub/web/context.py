"""The hub web app's settings, and what its spectator and arbiter routes share.

Both halves read the one store through the one :class:`Views` and wake on the one
:class:`Changes`, so a hall's worth of open pages costs one rebuild per change. The bus
is heard once, by whichever comes first: the lifespan or, when the server runs without
one, the first page to open a stream.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from controller.errors import KaeshiError
from controller.hall_protocol.protocol import HubChange
from controller.hub.changes import HubBus
from controller.hub.results import ResultDesk
from controller.hub.web.change_count import Changes
from controller.hub.web.dashboard import CLOCK_WARNING_SECONDS
from controller.hub.web.live import Views
from controller.hub.web.responses import Pages
from controller.hub.web.store_reads import Store

log = logging.getLogger("kaeshi.hub.web")


@dataclass(frozen=True)
class HubWebSettings:
    """``arbiter_token`` None turns the arbiter view off; ``delay`` is the broadcast delay
    in seconds; ``clock`` gives wall time (tests pass a fake one)."""

    arbiter_token: str | None
    delay: float = 900.0
    clock: Callable[[], float] = time.time
    event_name: str = ""
    clock_warning: float = CLOCK_WARNING_SECONDS
    #: More origins that may post (the hub reached through a proxy under another name).
    origins: tuple[str, ...] = ()
    #: How often open pages are refreshed although nothing arrived (clocks run).
    refresh: float = 1.0
    #: How long an arbiter's login lasts (hub.toml ``web.session_hours``).
    session_seconds: float = 24 * 3600.0


@dataclass
class HubContext:
    """Built once per app by :func:`~controller.hub.web.app.build_app`."""

    settings: HubWebSettings
    store: Store
    bus: HubBus
    views: Views
    desk: ResultDesk | None
    changes: Changes
    pages: Pages
    _unsubscribe: list[Callable[[], None]] = field(default_factory=list, init=False,
                                                   repr=False)
    #: The server's connection gate, once ``kaeshi hub`` serves the app (one item).
    access_gate: list[Any] = field(default_factory=list, init=False, repr=False)

    def listen(self) -> None:
        """Hear the bus on this loop; from the lifespan, or from the first stream when the
        server runs without one."""
        if not self._unsubscribe:
            self.changes.attach(asyncio.get_running_loop())
            self._unsubscribe.append(self.bus.subscribe(self.changes.notify))
            if self.desk is not None:
                self._unsubscribe.append(self.bus.subscribe(self.take_from_table))

    def take_from_table(self, change: HubChange) -> None:
        """A table's new state may carry a result both players signed, a late arrival or
        a forfeit: the desk takes it without the arbiter (rules 11–12, 15)."""
        if change.kind != "state" or self.desk is None:
            return
        status = self.store.table(change.table)
        if status is None:
            return
        try:
            outcome = self.desk.take_from_table(status)
        except KaeshiError as exc:
            log.warning("table %d: its sign-off or late arrival was not taken: %s",
                        change.table, exc)
            return
        if outcome is not None:
            r = outcome.result
            log.info("table %d: round %d result %d-%d %s taken from the table%s",
                     r.table, r.round, r.black, r.white, r.winner,
                     f"; {outcome.problem}" if outcome.problem else "")

    def stop_listening(self) -> None:
        """Open streams end first, so the server is not held up by a page left open."""
        self.changes.close()
        while self._unsubscribe:
            self._unsubscribe.pop()()

    def stream(self, body: AsyncIterator[str], request: Request | None = None) -> Response:
        """A stream is only woken by changes once the bus is heard, lifespan or not; it
        counts against its client's live pages (the server's connection gate)."""
        self.listen()
        gate = self.gate
        if gate is not None and request is not None:
            address = request.client.host if request.client else "?"
            if not gate.stream_room(address):
                return JSONResponse({"error": "too many live pages open; the page tries "
                                     "again"}, 503, headers={"Retry-After": "5"})
            body = _counted(gate, address, body)
        return StreamingResponse(body, media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    @property
    def gate(self) -> Any:
        return self.access_gate[0] if self.access_gate else None


async def _counted(gate: Any, address: str, body: AsyncIterator[str]) -> AsyncIterator[str]:
    gate.open_stream(address)
    try:
        async for chunk in body:
            yield chunk
    finally:
        gate.close_stream(address)
