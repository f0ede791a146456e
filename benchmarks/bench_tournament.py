"""Tournament pairing speed (CPU time of this process, so a busy machine does not skew
it): one whole round of a 128- and a 1,000-player event (the latter an extension of
the rules, confirmed here), and
single pools built to make the optimal pairing hard (byes and rematches at the ends)."""

from __future__ import annotations

import random
import time

from controller.tournament import Player, Tournament
from controller.tournament.model import Entrant
from controller.tournament.pairing import pair_pool


def _event_until(players: int, rounds: int, seed: int = 1) -> Tournament:
    rng = random.Random(seed)
    t = Tournament([Player(f"P{k:04d}") for k in range(players)], "open", extend=True)
    t.draw_lottery(["12345", "67890", "13579"])
    for _ in range(rounds):
        rnd = t.pair_next_round()
        for g in rnd.games:
            if g.table is not None:
                t.record_result(g.table, rng.choice(["black", "white"]))
    return t


def _hard_pool(n: int, seed: int = 2) -> list[Entrant]:
    """Six rounds of history; the lowest tenth all had byes; the top six all met."""
    rng = random.Random(seed)
    names = [f"P{k:04d}" for k in range(n + n % 2 + 1)][: n | 1]  # odd: one bye needed
    wins = sorted((sum(rng.random() < 0.5 for _ in range(6)) for _ in names), reverse=True)
    met: dict[str, set[str]] = {x: set() for x in names}
    for _ in range(6):
        order = names[:]
        rng.shuffle(order)
        for a, b in zip(order[::2], order[1::2], strict=False):
            met[a].add(b)
            met[b].add(a)
    for a in names[:6]:
        met[a].update(x for x in names[:6] if x != a)
    byes = set(names[-max(2, n // 10):])
    return [Entrant(x, w, x in byes, frozenset(met[x])) for x, w in zip(names, wins,
                                                                         strict=True)]


def main() -> None:
    for players, upto in ((128, 4), (1000, 5)):
        t = _event_until(players, upto - 1)
        started = time.process_time()
        rnd = t.pair_next_round()
        took = time.process_time() - started
        tables = sum(1 for g in rnd.games if g.table)
        print(f"{players}-player event, round {upto} (pairing + standings): {took * 1000:.1f} ms"
              f" for {tables} tables")
    for players in (128, 1000):
        rng = random.Random(3)
        t = Tournament([Player(f"P{k:04d}") for k in range(players)], "open", extend=True)
        t.draw_lottery(["11111", "22222", "33333"])
        times = []
        while not t.finished:
            started = time.process_time()
            rnd = t.pair_next_round()
            times.append(time.process_time() - started)
            for g in rnd.games:
                if g.table is not None:
                    t.record_result(g.table, rng.choice(["black", "white"]))
        print(f"{players}-player event, all {len(times)} rounds: slowest round "
              f"{max(times) * 1000:.1f} ms, mean {sum(times) / len(times) * 1000:.1f} ms")
    for n in (128, 1000):
        pool = _hard_pool(n)
        started = time.process_time()
        result = pair_pool(pool)
        took = time.process_time() - started
        print(f"single pool of {len(pool)} (hard case): {took * 1000:.1f} ms, solver "
              f"{result.solver}, {result.rematches} rematch(es), "
              f"{result.second_byes} second bye(s)")


if __name__ == "__main__":
    main()
