"""A phone and a tablet played by the test: WebSocket clients with their own clocks.

Each device's clock runs ``offset`` seconds away from this machine's, and every message
it sends (frames, presses, answers to the service's pings) reaches the service after a
random delay in ``jitter`` — in order, as over TCP. What they send is what the pages
send, written by the wire's own encoders.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterable
from typing import Any

import websockets

from controller.browser.wire import encode_frame, encode_health, encode_pong, encode_press
from controller.squares import Color

EPOCH_MS = 1.7e12  # a device clock reads the Unix epoch in milliseconds


class FakeDevice:
    def __init__(self, url: str, offset: float, jitter: tuple[float, float], seed: int) -> None:
        self.url = url
        self.offset = offset
        self.jitter = jitter
        self.rng = random.Random(seed)
        self.ws: Any = None
        self.queue: asyncio.Queue[tuple[float, Any]] = asyncio.Queue()
        self.last_due = 0.0
        self.seq = 0
        self.status: dict[str, Any] = {}
        self.refused: list[str] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.failure: BaseException | None = None

    def now_ms(self) -> float:
        return EPOCH_MS + (time.monotonic() + self.offset) * 1000.0

    async def open(self) -> None:
        self.ws = await websockets.connect(self.url, max_size=1 << 22)
        self.tasks = [asyncio.create_task(self._sender()), asyncio.create_task(self._reader())]
        for task in self.tasks:
            task.add_done_callback(self._ended)

    def _ended(self, task: asyncio.Task[None]) -> None:
        if not task.cancelled() and task.exception() is not None:
            self.failure = task.exception()

    def send(self, message: Any) -> None:
        loop = asyncio.get_running_loop()
        due = max(self.last_due, loop.time() + self.rng.uniform(*self.jitter))
        self.last_due = due
        self.queue.put_nowait((due, message))

    async def _sender(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            due, message = await self.queue.get()
            await asyncio.sleep(max(0.0, due - loop.time()))
            await self.ws.send(message)

    async def _reader(self) -> None:
        async for raw in self.ws:
            msg = json.loads(raw)
            if msg["type"] == "ping":
                self.send(encode_pong(msg["id"], self.now_ms()))
            elif msg["type"] == "status":
                self.status = msg
            elif msg["type"] == "refused":
                self.refused.append(msg["reason"])

    async def synced(self, timeout: float = 10.0) -> None:
        t0 = time.monotonic()
        while not self.status.get("sync", {}).get("ready"):
            if time.monotonic() - t0 > timeout:
                raise AssertionError(f"{self.url}: the clock sync never became ready")
            await asyncio.sleep(0.05)

    async def close(self) -> None:
        while not self.queue.empty() and self.failure is None:
            await asyncio.sleep(0.05)
        if self.failure is not None:
            raise AssertionError(f"{self.url}: the device failed: {self.failure!r}")
        await asyncio.sleep(max(0.0, self.last_due - asyncio.get_running_loop().time()) + 0.05)
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await asyncio.wait_for(self.ws.close(), 2)


class FakePhone(FakeDevice):
    def frame(self, jpeg: bytes) -> None:
        self.seq += 1
        self.send(encode_frame(self.now_ms(), self.seq, jpeg))

    def health(self, visible: bool = True, battery: float | None = 0.8) -> None:
        self.send(encode_health(visible, battery, False))


class FakeTablet(FakeDevice):
    def press(self, color: Color) -> None:
        self.seq += 1
        self.send(encode_press(color, self.now_ms(), self.seq))


def jpegs(frames: Iterable[Any], quality: int = 85) -> list[tuple[float, bytes]]:
    from controller.vision.cv import cv2

    out = []
    for f in frames:
        ok, data = cv2.imencode(".jpg", f.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        assert ok
        out.append((f.t, data.tobytes()))
    return out
