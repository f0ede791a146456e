"""When the pages' JSON is out of date: a change counter for the hub's web server.

The hub's bus calls back from the MQTT thread or the event loop; :class:`Changes` turns
that into a version number that server-sent-event streams await on the loop, and tells
them when the server stops. It is the last step of the pages' data flow: the store is
read (:mod:`~controller.hub.web.store_reads`), shaped (:mod:`~controller.hub.web.live`),
and rebuilt when the version moves.
"""

from __future__ import annotations

import asyncio
import threading

from controller.hall_protocol.protocol import HubChange


class Changes:
    """A change counter the bus bumps from any thread and SSE streams await on the loop."""

    def __init__(self) -> None:
        self.version = 0
        #: Set when the server stops: open streams end instead of holding it up.
        self.closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._closing: asyncio.Event | None = None
        self._lock = threading.Lock()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._event = asyncio.Event()
        self._closing = asyncio.Event()

    def notify(self, change: HubChange | None = None) -> None:
        del change
        loop = self._loop
        if loop is None or loop.is_closed():
            with self._lock:
                self.version += 1
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._bump()
        else:
            loop.call_soon_threadsafe(self._bump)

    def close(self) -> None:
        """End every open stream (from any thread), e.g. before the server shuts down."""
        self.closed = True
        self.notify()

    def _bump(self) -> None:
        if self.closed and self._closing is not None:
            self._closing.set()
        with self._lock:
            self.version += 1
        event, self._event = self._event, asyncio.Event()
        if event is not None:
            event.set()

    async def wait(self, version: int, timeout: float) -> int:
        """The version once it differs from ``version``, or after ``timeout`` seconds."""
        if self.version == version and self._event is not None:
            try:
                await asyncio.wait_for(self._event.wait(), timeout)
            except TimeoutError:
                pass
        elif self._event is None:
            await asyncio.sleep(timeout)
        return self.version

    async def sleep(self, timeout: float) -> None:
        """Wait ``timeout`` seconds, or less if the server is closing."""
        if self._closing is None:
            await asyncio.sleep(timeout)
            return
        try:
            await asyncio.wait_for(self._closing.wait(), timeout)
        except TimeoutError:
            pass
