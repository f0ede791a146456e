"""Rules engine speed: perft leaves per second and legal-move generations per second."""

from __future__ import annotations

import random
import time

from controller.bitboard import flips, legal_moves
from controller.perft import perft
from controller.position import Position


def _sample_positions(n: int, seed: int = 1) -> list[tuple[int, int]]:
    rng = random.Random(seed)
    out: list[tuple[int, int]] = []
    while len(out) < n:
        pos = Position.start()
        for _ in range(rng.randrange(4, 50)):
            moves = pos.legal_squares()
            if not moves:
                if pos.is_game_over():
                    break
                pos = pos.pass_turn()
                continue
            pos = pos.play(rng.choice(moves))
        out.append((pos.mover, pos.other))
    return out


def main() -> None:
    start = Position.start()
    for label, kw in (
        ("perft(9), bulk + transpositions + root symmetry", {}),
        ("perft(9), bulk counting only", {"symmetry": False, "hashing": False}),
    ):
        t0 = time.perf_counter()
        n = perft(start, 9, **kw)
        dt = time.perf_counter() - t0
        print(f"{label}: {n} leaves in {dt:.2f} s = {n / dt / 1e6:.2f} M leaves/s")

    positions = _sample_positions(2000)
    t0 = time.perf_counter()
    rounds = 50
    for _ in range(rounds):
        for p, o in positions:
            legal_moves(p, o)
    dt = time.perf_counter() - t0
    print(f"legal-move generation: {rounds * len(positions) / dt / 1e3:.0f} k/s")

    pairs = []
    for p, o in positions:
        m = legal_moves(p, o)
        if m:
            pairs.append((p, o, (m & -m).bit_length() - 1))
    t0 = time.perf_counter()
    for _ in range(rounds):
        for p, o, sq in pairs:
            flips(p, o, sq)
    dt = time.perf_counter() - t0
    print(f"flip computation: {rounds * len(pairs) / dt / 1e3:.0f} k/s")


if __name__ == "__main__":
    main()
