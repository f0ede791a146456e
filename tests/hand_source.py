"""A source the test feeds by hand: what it puts in the queue is what the service
reads (an exception put there is raised, as a failing device's would be)."""

from __future__ import annotations

import asyncio
from typing import Any


class QueueSource:
    """Boards as they come, to be debounced by the service (a camera's)."""

    name = "test"
    watchdog = False
    settled = False
    latency = 0.0

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Any] = asyncio.Queue()

    async def items(self) -> Any:
        while True:
            item = await self.queue.get()
            if isinstance(item, Exception):
                raise item
            yield item

    async def close(self) -> None:
        pass


class SettledQueueSource(QueueSource):
    """Boards that come debounced, as the sensor board's do (stamped on arrival)."""

    settled = True
