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


class Gap:
    """The phone out of reach from ``start`` to ``end`` (seconds into the game):
    ``keep`` as the page does when its socket drops (it keeps the frames and sends
    them once it is back and synced), or not, as when the page is reloaded."""

    def __init__(self, start: float, end: float, keep: bool) -> None:
        self.start, self.end, self.keep = start, end, keep


def play_game(ws_base: str, frames: list[tuple[float, bytes]], presses: list[Any],
              offsets: tuple[float, float], jitter: tuple[float, float],
              gap: Gap | None = None, key: str = "") -> None:
    """Stream ``frames`` (time, JPEG) from a phone and tap ``presses`` on a tablet, in
    real time from now, as a game is played."""

    async def main() -> None:
        phone = FakePhone(f"{ws_base}/ws/camera?key={key}", offsets[0], jitter, seed=1)
        tablet = FakeTablet(f"{ws_base}/ws/clock?key={key}", offsets[1], jitter, seed=2)
        await phone.open()
        await tablet.open()
        await phone.synced()
        await tablet.synced()
        loop = asyncio.get_running_loop()
        start = loop.time() + 0.2
        t0 = frames[0][0]
        due = sorted([(t - t0, 0, data) for t, data in frames]
                     + [(p.t - t0, 1, p.press) for p in presses], key=lambda d: d[0])
        kept: list[tuple[float, bytes]] = []
        away = False
        for at, kind, what in due:
            await asyncio.sleep(max(0.0, start + at - loop.time()))
            if gap is not None and not away and gap.start <= at < gap.end:
                away = True
                await phone.close()
            if gap is not None and away and at >= gap.end:
                away = False
                fresh = FakePhone(f"{ws_base}/ws/camera?key={key}", offsets[0], jitter, seed=3)
                fresh.seq = phone.seq
                phone = fresh
                await phone.open()
                await phone.synced()
                for stamp, jpeg in kept:  # the page's backlog, with the times it took them
                    phone.seq += 1
                    phone.send(encode_frame(stamp, phone.seq, jpeg))
                kept = []
            if kind == 1:
                tablet.press(what)
            elif away:
                if gap is not None and gap.keep:
                    kept.append((phone.now_ms(), what))
            else:
                phone.frame(what)
        await phone.close()
        await tablet.close()

    asyncio.run(main())
