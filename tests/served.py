"""A server started on an event loop of its own thread, for tests that talk to it over
real sockets from the test's thread (load tests, the browser)."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable
from typing import Any


class Served:
    """A server started by ``start`` on a loop of its own thread."""

    def __init__(self, start: Callable[[], Awaitable[Any]],
                 stop: Callable[[], Awaitable[Any]]) -> None:
        self.loop = asyncio.new_event_loop()
        self._stop = stop
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        asyncio.run_coroutine_threadsafe(start(), self.loop).result(10)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            asyncio.run_coroutine_threadsafe(self._stop(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
