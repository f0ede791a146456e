"""Hall-sensor board host side: parser speed, fuzzing at scale, change-to-observation latency.

Figures only, no assertions (shared machines are noisy). Goals from the design:
>= 20,000 frames parsed per second; 0 exceptions and 0 boards from corrupt frames
under fuzzing; <= 15 ms from a change on the board to the observation at 100 Hz.
"""

from __future__ import annotations

import random
import statistics
import struct
import time

from controller.hall import messages as m
from controller.hall.frames import FrameParser, PayloadError, decode, encode_board, encode_frame

ALPHABET = "-XOxo?"


def _boards(rng: random.Random, n: int) -> list[str]:
    return ["".join(rng.choice(ALPHABET) for _ in range(64)) for _ in range(n)]


def bench_parser(frames: int = 60_000, chunk: int = 512) -> None:
    rng = random.Random(1)
    boards = _boards(rng, 64)
    stream = bytearray()
    for i in range(frames):
        if i % 25 == 24:
            stream += encode_frame(i, m.MsgType.HEARTBEAT, struct.pack("<IB", i, 1))
        else:
            stream += encode_frame(i, m.MsgType.BOARD, struct.pack("<IB", i, 1)
                                   + encode_board(boards[i % 64]))
    data = bytes(stream)
    parser = FrameParser()
    started = time.perf_counter()
    n = 0
    for k in range(0, len(data), chunk):
        for frame in parser.feed(data[k:k + chunk]):
            decode(frame)
            n += 1
    elapsed = time.perf_counter() - started
    print(f"   parser: {n} frames ({len(data) / 1e6:.1f} MB) parsed and decoded in "
          f"{elapsed:.3f} s = {n / elapsed:,.0f} frames/s (goal >= 20,000)")


def bench_fuzz(frames: int = 100_000, seed: int = 2) -> None:
    """Clean and damaged frames amid noise; count escapes and boards from bad frames."""
    rng = random.Random(seed)
    boards = _boards(rng, 256)
    stream = bytearray()
    clean: set[tuple[int, str]] = set()
    damaged = 0
    for i in range(frames):
        board = boards[rng.randrange(256)]
        frame = bytearray(encode_frame(i & 0xFF, m.MsgType.BOARD,
                                       struct.pack("<IB", i, 0) + encode_board(board)))
        r = rng.random()
        if r < 0.1:
            frame[rng.randrange(len(frame))] ^= 1 << rng.randrange(8)
            damaged += 1
        elif r < 0.15:
            del frame[rng.randrange(len(frame))]
            damaged += 1
        elif r < 0.2:
            frame.insert(rng.randrange(1, len(frame)), rng.randrange(256))  # after SOF
            damaged += 1
        else:
            clean.add((i, board))
        stream += frame
        if rng.random() < 0.1:
            stream += bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40)))
    stream += bytes(rng.randrange(256) for _ in range(200_000))  # pure noise at the end
    parser = FrameParser()
    exceptions = corrupt_boards = boards_out = payload_errors = 0
    pos = 0
    started = time.perf_counter()
    while pos < len(stream):
        size = rng.randrange(1, 300)
        try:
            for frame in parser.feed(bytes(stream[pos:pos + size])):
                try:
                    msg = decode(frame)
                except PayloadError:
                    payload_errors += 1
                    continue
                if getattr(msg, "board", None) is not None:
                    boards_out += 1
                    if (msg.t_ms, msg.board) not in clean:
                        corrupt_boards += 1
        except Exception:  # counted, the point of the exercise
            exceptions += 1
        pos += size
    elapsed = time.perf_counter() - started
    print(f"   fuzz: {frames} frames ({damaged} damaged) + noise, {len(stream) / 1e6:.1f} MB "
          f"in {elapsed:.1f} s: exceptions {exceptions} (goal 0), boards from corrupt frames "
          f"{corrupt_boards} (goal 0); {boards_out} of {len(clean)} clean boards delivered, "
          f"{parser.crc_errors} CRC rejections, {payload_errors} payload rejections")


def bench_latency(changes: int = 40, rate_hz: int = 0) -> None:
    from controller.hall.driver import HallBoard
    from controller.hall.simboard import SimBoard, SimBoardError
    from controller.observation import Observation

    try:
        sim = SimBoard(seed=1).start()  # paced like the real board (STEP_US per mux step)
    except SimBoardError as exc:
        print(f"   latency: skipped, simulator unavailable ({exc})")
        return
    end_to_end: list[float] = []
    host: list[float] = []
    try:
        with HallBoard(sim.port, rate_hz=rate_hz) as board:  # 0: the default 100 Hz
            while board.get(timeout=0.3) is not None:
                pass
            squares = ["c4", "d3", "e6", "f5", "a1", "h8", "b7", "g2"]
            for i in range(changes):
                sq = squares[i % len(squares)]
                char = "X" if (i // len(squares)) % 2 == 0 else "-"
                time.sleep(0.05 + random.random() * 0.02)
                t0 = time.monotonic()
                sim.set_square(sq, char)
                while True:
                    item = board.get(timeout=1.0)
                    if item is None:
                        raise RuntimeError(f"no observation after setting {sq}")
                    if isinstance(item, Observation):
                        now = time.monotonic()
                        end_to_end.append((now - t0) * 1000)
                        host.append((now - item.t) * 1000)
                        break
    finally:
        sim.stop()
    q = statistics.quantiles(end_to_end, n=20)
    print(f"   latency change -> observation, {changes} changes, {rate_hz or m.DEFAULT_RATE_HZ} Hz "
          f"frames, real scan "
          f"pacing: median {statistics.median(end_to_end):.1f} ms, p95 {q[-1]:.1f} ms, "
          f"max {max(end_to_end):.1f} ms (goal <= 15 ms)")
    print(f"     of which host (frame read -> observation delivered): median "
          f"{statistics.median(host):.2f} ms, max {max(host):.2f} ms; the rest is the "
          f"firmware's {m.DEBOUNCE_SCANS}-scan debounce and the serial line")


def main() -> None:
    bench_parser()
    bench_fuzz()
    bench_latency()
    bench_latency(changes=20, rate_hz=m.MAX_BOARD_RATE_HZ)


if __name__ == "__main__":
    main()
