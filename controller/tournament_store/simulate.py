"""A whole event with random results, for checking the rules end to end."""

from __future__ import annotations

import random

from controller.boardsize import STANDARD, board_size
from controller.tournament.event import Tournament
from controller.tournament.model import Player

#: The day a simulated event is held unless told otherwise (its WOF file's ``%%Date:``);
#: one fixed day, so a simulation writes the same files on every run.
SIMULATED_DATE = "2021-07-18"


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


def random_count(rng: random.Random, size: int) -> tuple[int, int]:
    """A board's final count that has a winner: the whole board filled, black's share
    between 5/16 and 11/16 of it (20–44 on 8x8); a level count is white's by two."""
    squares = board_size(size).squares
    low = squares * 5 // 16
    black = rng.randrange(low, squares - low + 1)
    if 2 * black == squares:
        return black - 1, black + 1
    return black, squares - black


def simulate(players: int, division: str, seed: int, withdrawals: int | None = None,
             name: str = "Simulated event", extend: bool = False,
             size: int = STANDARD) -> Tournament:
    """Lottery, then every round with random results and a few withdrawals, on the
    event's ``size`` board."""
    rng = random.Random(seed)
    t = Tournament(random_roster(rng, players, division), division, name, extend, size)
    half = board_size(size).squares // 2
    t.draw_lottery([f"{rng.randrange(100000):05d}" for _ in range(3)])
    to_withdraw = withdrawals if withdrawals is not None else max(1, players // 50)
    while not t.finished:
        rnd = t.pair_next_round()
        for g in rnd.games:
            if g.table is None:
                continue
            if rng.random() < 0.5:
                t.record_toss(g.table, g.second, g.first)  # type: ignore[arg-type]
            b, w = random_count(rng, size)
            if rng.random() < 0.02 and g.draw_win is not None:
                t.record_result(g.table, "draw", (half, half))
            else:
                t.record_result(g.table, "black" if b > w else "white", (b, w))
        if to_withdraw and rnd.number >= 2 and not t.finished:
            candidates = [n for n in t.present if t.active(n)
                          and t.stage_of.get(n) in ("placement",)]
            if candidates:
                t.withdraw(rng.choice(candidates))
                to_withdraw -= 1
    return t
