"""Web page, LED and clock-display figures: update latency, request rate, token guessing,
payload sizes, encode times. The page runs on its real stack (Starlette + uvicorn)."""

from __future__ import annotations

import asyncio
import json
import statistics
import time
from typing import Any

from controller.clockhw.display import format_time
from controller.clockhw.tm1637 import Tm1637
from controller.leds import LedCell, encode_spi
from controller.position import Position
from controller.records import GameRecord
from controller.records.irregular import History
from controller.web import ChangeNotifier, WebServer, for_view

TOKEN = "bench-arbiter-token-4f9K"


def _game_snapshot(moves: int) -> dict[str, Any]:
    pos = Position.start()
    played = []
    graph = [list(pos.counts())]
    for i in range(moves):
        legal = pos.legal_squares()
        if not legal:
            if pos.is_game_over():
                break
            pos = pos.pass_turn()
            continue
        sq = legal[i % len(legal)]
        played.append(
            {
                "n": len(played) + 1,
                "player": pos.to_move.value,
                "square": sq,
                "t": float(i),
                "comment": "",
            }
        )
        pos = pos.play(sq)
        graph.append(list(pos.counts()))
    b, w = pos.counts()
    # two irregularities, as the page gets them: one put right, one open
    history = [History(), History()]
    for h, (n, status) in zip(history, ((12, "corrected"), (len(played), "open")), strict=True):
        h.take([{"t": float(n), "event": "irregularity", "player": "black",
                 "kind": "forgotten_flip", "squares": ["e5"]}], n, float(n),
                [] if status != "open" else [{"player": "black", "kind": "forgotten_flip",
                                              "squares": ["e5"]}])
        if status == "corrected":
            h.take([{"t": n + 1.0, "event": "corrected", "kind": "forgotten_flip",
                     "squares": ["e5"]}], n, n + 1.0)
    return {
        "version": 1, "mode": "tournament", "state": "playing", "board": pos.board_string(),
        "position": pos.board_string(), "to_move": pos.to_move.value,
        "counts": {"black": b, "white": w},
        "clocks": {"black": 600.0, "white": 500.0, "running": "black", "paused": False},
        "moves": played,
        "events": [{"t": m["t"], "event": "move", "player": m["player"], "square": m["square"],
                    "flips": ["d4"]} for m in played[-50:]],
        "overlay": {}, "irregularities": [], "legal": pos.legal_squares(), "message": "",
        "history": [e for h in history for e in h.to_json()], "graph": graph,
        "result": None, "now": float(moves),
    }  # fmt: skip


class _Facade:
    def __init__(self) -> None:
        self.notifier = ChangeNotifier()
        self.snap = _game_snapshot(60)

    def snapshot(self, view: str) -> dict[str, Any]:
        return {**self.snap, "version": self.notifier.version}

    async def wait_change(self, version: int) -> int:
        return await self.notifier.wait_change(version)

    def game_record(self) -> GameRecord:
        return GameRecord()


async def _latency(changes: int) -> list[float]:
    facade = _Facade()
    server = WebServer(facade, "127.0.0.1", 0, None)  # type: ignore[arg-type]
    await server.start()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(b"GET /events?view=player HTTP/1.1\r\nHost: b\r\n\r\n")
    await reader.readuntil(b"\r\n\r\n")

    async def next_state() -> None:  # the body is chunked: a chunk's size line comes first
        while b"event: state" not in await reader.readuntil(b"\n\n"):
            pass

    await next_state()
    out = []
    for _ in range(changes):
        t0 = time.perf_counter()
        facade.notifier.notify()
        await next_state()
        out.append(time.perf_counter() - t0)
    writer.close()
    await server.stop()
    return out


async def _request_rate(seconds: float) -> tuple[int, float]:
    """Sequential ``GET /api/state`` on one keep-alive connection for ``seconds``."""
    server = WebServer(_Facade(), "127.0.0.1", 0, None)  # type: ignore[arg-type]
    await server.start()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    n, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        writer.write(b"GET /api/state?view=player HTTP/1.1\r\nHost: b\r\n\r\n")
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        n += 1
    elapsed = time.perf_counter() - t0
    writer.close()
    await server.stop()
    return n, elapsed


async def _guessing(seconds: float) -> tuple[int, int, float]:
    """Wrong tokens as fast as one client can send them: how many were really checked."""
    server = WebServer(_Facade(), "127.0.0.1", 0, TOKEN)  # type: ignore[arg-type]
    await server.start()
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    checked = refused = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        guess = f"guess-{checked + refused:012d}"
        writer.write(f"GET /api/state?view=arbiter HTTP/1.1\r\nHost: b\r\n"
                     f"Authorization: Bearer {guess}\r\n\r\n".encode())
        head = await reader.readuntil(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        await reader.readexactly(length)
        if head.startswith(b"HTTP/1.1 429"):
            refused += 1
        else:
            checked += 1
    elapsed = time.perf_counter() - t0
    writer.close()
    await server.stop()
    return checked, refused, elapsed


class _Line:
    def on(self) -> None:
        pass

    def off(self) -> None:
        pass


def main() -> None:
    lat = sorted(asyncio.run(_latency(300)))
    print(
        f"event stream: change -> client received, 60-move game: median "
        f"{statistics.median(lat) * 1e3:.2f} ms, p99 {lat[int(len(lat) * 0.99)] * 1e3:.2f} ms"
    )
    n, elapsed = asyncio.run(_request_rate(2.0))
    print(f"GET /api/state, one keep-alive client, 60-move game: {n / elapsed:.0f} requests/s "
          f"({elapsed / n * 1e3:.2f} ms each)")
    checked, refused, elapsed = asyncio.run(_guessing(3.0))
    print(f"arbiter token guessing, one client flat out for {elapsed:.1f} s: {checked} tokens "
          f"checked, {refused} requests refused (429) unchecked")
    snap = _game_snapshot(60)
    for view in ("player", "arbiter"):
        body = json.dumps(for_view(snap, view), separators=(",", ":"))  # type: ignore[arg-type]
        print(f"snapshot JSON, 60-move game, {view} view: {len(body)} bytes")

    n = 200
    display = Tm1637(_Line(), _Line(), half_period=5e-6)
    frame = format_time(754.2, running=True)
    t0 = time.perf_counter()
    for _ in range(n):
        display.write(frame.segments(), 5)
    print(f"TM1637 frame at 5 us half-period (host, lines free): "
          f"{(time.perf_counter() - t0) / n * 1e3:.2f} ms")  # fmt: skip

    colours = [LedCell((255, 128, 0)).rgb] * 64
    t0 = time.perf_counter()
    for _ in range(n):
        encode_spi(colours)
    print(f"WS2812 SPI encode, 64 LEDs: {(time.perf_counter() - t0) / n * 1e6:.0f} us, "
          f"{len(encode_spi(colours))} bytes = "
          f"{len(encode_spi(colours)) * 8 / 2.4e6 * 1e3:.2f} ms on the wire")  # fmt: skip


if __name__ == "__main__":
    main()
