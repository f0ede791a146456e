"""Pairing one pool of players (a preliminary league or the placement league).

The rules (組み合わせ方法) are a priority list, and the document asks for the best
pairing that exists, not the first one a walk down the standings finds.  So a
pairing is scored by one lexicographic key, compared in this order:

1. second byes (原則として、不戦勝は各選手最大1回) — fewest;
2. rematches (原則として、同一選手との再戦は行いません) — fewest;
3. win differences (同勝数どうし, else 1 win apart, else 2 …) — the largest
   difference as small as possible, then as few pairs at that difference as
   possible, then the same for the next smaller difference, and so on;
4. the top-down rule: the highest-placed unpaired player meets the lowest
   (open division) or the highest (新オセロ方式) player still possible, then the
   next highest unpaired player, and so on.

An odd pool gets the virtual player with −1 wins; whoever meets it has a bye.

Two exact solvers share the key.  :func:`pair_pool` first runs a depth-first
search in top-down order, so the first optimal pairing it meets is the one the
top-down rule picks.  It is pruned by a lower bound on the cost of pairing the
players still unpaired: each win level must pair all but its shortfall inside
(parity for a large level; for a small one, the exact number its past meetings
leave unpaired), and the rest meet lower levels at the cheapest step costs; with
nothing but parity this is pairing neighbours in win order.  The search is
repeated with the threshold raised to the smallest cost that overflowed (IDA*), so
the first pairing found is optimal.  Should the search pass its node budget, an
Edmonds blossom matching (networkx) with the whole key encoded in one integer
weight per pair solves the pool exactly instead (seconds for a hundred players,
so only a safety net; the tests check both solvers against brute force).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from controller.tournament.model import Entrant, Prefer
from controller.tournament.solver import Problem, blossom, search

#: Pools up to this size fall back to the blossom solver quickly (well under a second).
BLOSSOM_CHEAP = 100

#: Name used for the virtual −1-win player in a pairing; meeting it is a bye.
BYE: None = None


@dataclass(frozen=True)
class PoolPairing:
    """Pairs in top-down order; the second name is ``None`` for a bye."""

    pairs: tuple[tuple[str, str | None], ...]
    second_byes: int
    rematches: int
    diffs: tuple[int, ...] = field(default=())
    notes: tuple[str, ...] = ()
    solver: str = "search"


def pair_pool(
    entrants: Sequence[Entrant], prefer: Prefer = "lowest", budget_nodes: int | None = None
) -> PoolPairing:
    """Pair ``entrants`` (given best-placed first) as the rules order; see the module doc."""
    if not entrants:
        return PoolPairing(pairs=(), second_byes=0, rematches=0)
    p = Problem(entrants, prefer)
    if budget_nodes is not None:
        budgets = [budget_nodes]
    elif p.n <= BLOSSOM_CHEAP:
        budgets = [40 * p.n + 2000]
    else:  # blossom grows with the cube of the pool: give the search far longer first
        budgets = [40 * p.n + 2000, 2000 * p.n]
    for budget in budgets:
        found = search(p, budget)
        if found is not None:
            return describe(p, found, "search")
    return describe(p, blossom(p), "blossom")


def describe(p: Problem, found: list[tuple[int, int]], solver: str) -> PoolPairing:
    pairs: list[tuple[str, str | None]] = []
    second_byes = rematches = 0
    diffs: list[int] = []
    notes: list[str] = []
    for i, j in sorted((min(a, b), max(a, b)) for a, b in found):
        a, b = p.names[i], p.names[j]
        assert a is not None
        pairs.append((a, b))
        if j == p.virtual:
            if p.had_bye[i]:
                second_byes += 1
                notes.append(f"rule 'at most one bye' relaxed: {a} receives a second bye")
            continue
        diffs.append(abs(p.wins[i] - p.wins[j]))
        if j in p.played[i]:
            rematches += 1
            notes.append(f"rule 'no rematch' relaxed: {a} meets {b} again")
    unequal = [d for d in diffs if d]
    if unequal:
        notes.append(
            f"rule 'equal wins' relaxed: {len(unequal)} pair(s) with unequal wins, "
            f"largest difference {max(unequal)}"
        )
    return PoolPairing(
        pairs=tuple(pairs),
        second_byes=second_byes,
        rematches=rematches,
        diffs=tuple(diffs),
        notes=tuple(notes),
        solver=solver,
    )


def pairing_key(
    entrants: Sequence[Entrant], pairs: Sequence[tuple[str, str | None]], prefer: Prefer
) -> tuple[int, int, tuple[int, ...], tuple[int, ...]]:
    """The comparison key of a complete pairing (smaller is better); used by the tests."""
    order = {e.name: k for k, e in enumerate(entrants)}
    n = len(entrants) + len(entrants) % 2
    by = {e.name: e for e in entrants}
    partner: dict[int, int] = {}
    second = rematch = 0
    diffs: list[int] = []
    for a, b in pairs:
        i = order[a]
        j = order[b] if b is not None else n - 1
        partner[i], partner[j] = j, i
        wa = by[a].wins
        wb = by[b].wins if b is not None else -1
        diffs.append(abs(wa - wb))
        if b is None:
            second += by[a].had_bye
        else:
            rematch += b in by[a].played
    top_down: list[int] = []
    done: set[int] = set()
    for i in range(n):
        if i in done:
            continue
        j = partner[i]
        done.update((i, j))
        top_down.append(-j if prefer == "lowest" else j)
    spread = sorted(diffs, reverse=True)
    return second, rematch, tuple(spread), tuple(top_down)


def split_pairing(numbers: Sequence[tuple[str, int]]) -> tuple[tuple[str, str | None], ...]:
    """Round 1 (1回戦): bye for the highest number when odd, then the two halves meet
    largest against largest, second largest against second largest, and so on."""
    ordered = sorted(numbers, key=lambda item: item[1], reverse=True)
    pairs: list[tuple[str, str | None]] = []
    if len(ordered) % 2:
        pairs.append((ordered[0][0], BYE))
        ordered = ordered[1:]
    half = len(ordered) // 2
    upper, lower = ordered[:half], ordered[half:]
    for (a, _), (b, _) in zip(upper, lower, strict=True):
        pairs.append((a, b))
    return tuple(pairs)
