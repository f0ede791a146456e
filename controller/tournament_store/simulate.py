"""A whole event with random results, for checking the rules end to end."""

from __future__ import annotations

import random

from controller.boardsize import board_size
from controller.tournament.event import Tournament
from controller.tournament.model import Player


def random_roster(rng: random.Random, players: int, division: str) -> list[Player]:
    absent = max(1, players // 40)
    seeds = list(range(1, 5))
    rng.shuffle(seeds)
    roster: list[Player] = []
    total = players + absent
    seeded = set(rng.sample(range(total), min(4, total - absent)))
    absent_at = set(rng.sample([k for k in range(total) if k not in seeded], absent))
    for k in range(total):
        seed = seeds.pop() if k in seeded else None
        rank = f"{rng.randrange(1, 8)}段" if rng.random() < 0.7 else f"{rng.randrange(1, 6)}級"
        # made-up federation IDs, far from real ones, so the WOF file is complete
        roster.append(Player(f"Player {k + 1:04d}", rank, f"Club {rng.randrange(1, 20)}",
                             seed, k in absent_at, f"{rng.randrange(1950, 2016)}",
                             federation_id=str(900_001 + k), country="JPN"))
    return roster


def simulate(players: int, division: str, seed: int, withdrawals: int | None = None,
             name: str = "Simulated event", extend: bool = False) -> Tournament:
    """Lottery, then every round with random results and a few withdrawals."""
    rng = random.Random(seed)
    t = Tournament(random_roster(rng, players, division), division, name, extend)
    t.draw_lottery([f"{rng.randrange(100000):05d}" for _ in range(3)])
    to_withdraw = withdrawals if withdrawals is not None else max(1, players // 50)
    while not t.finished:
        rnd = t.pair_next_round()
        for g in rnd.games:
            if g.table is None:
                continue
            if rng.random() < 0.5:
                t.record_toss(g.table, g.second, g.first)  # type: ignore[arg-type]
            black = rng.randrange(20, 45)
            if rng.random() < 0.02 and g.draw_win is not None:
                t.record_result(g.table, "draw", (32, 32))
            else:
                t.record_result(g.table, "black" if black > 32 else "white",
                                (black, board_size().squares - black) if black != 32 else (31, 33))
        if to_withdraw and rnd.number >= 2 and not t.finished:
            candidates = [n for n in t.present if t.active(n)
                          and t.stage_of.get(n) in ("placement",)]
            if candidates:
                t.withdraw(rng.choice(candidates))
                to_withdraw -= 1
    return t
