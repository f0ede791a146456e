"""The page's event stream (``/events``): one ``state`` event a change, as the view may
see it, until the page goes or the server stops.

Each stream waits on the facade's change notifier, sends a keep-alive comment when
nothing changed for :data:`KEEPALIVE_SECONDS` (so a proxy or a phone's radio keeps
the connection), and ends when the server closes (``closing`` resolves) — a stopping
server never waits for the pages still open. Every snapshot it sends has passed the
server's ``for_view``: the stream never sees a snapshot its view may not.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from typing import Any

from controller.web.facade import ServiceFacade
from controller.web.gate import Gate

KEEPALIVE_SECONDS = 15.0


async def state_stream(facade: ServiceFacade, snapshot: dict[str, Any],
                       next_snapshot: Callable[[], dict[str, Any]],
                       closing: asyncio.Future[None] | None) -> AsyncIterator[bytes]:
    """``snapshot`` first, then ``next_snapshot()`` after each change of the facade."""
    yield b"retry: 1000\n\n"
    change: asyncio.Future[int] | None = None
    try:
        while True:
            version = int(snapshot.get("version", 0))
            data = json.dumps(snapshot, separators=(",", ":"), default=str)
            yield f"event: state\ndata: {data}\n\n".encode()
            change = asyncio.ensure_future(facade.wait_change(version))
            while not change.done():
                waiting: set[asyncio.Future[Any]] = {change}
                if closing is not None:
                    waiting.add(closing)
                await asyncio.wait(waiting, timeout=KEEPALIVE_SECONDS,
                                   return_when=asyncio.FIRST_COMPLETED)
                if closing is not None and closing.done():
                    return
                if not change.done():
                    yield b": keepalive\n\n"
            change = None
            snapshot = next_snapshot()
    finally:
        if change is not None:
            change.cancel()


async def counted(gate: Gate, address: str, stream: AsyncIterator[bytes]
                  ) -> AsyncIterator[bytes]:
    """``stream``, counted against its client's live pages while it runs."""
    gate.open_stream(address)
    try:
        async for chunk in stream:
            yield chunk
    finally:
        gate.close_stream(address)
