"""The two exact solvers behind :func:`controller.tournament.pairing.pair_pool`.

Costs are integers chosen so that one sum compares lexicographically: a second
bye outweighs every rematch, a rematch every sum of win differences, and a pair
``d`` wins apart costs ``B**d - 1`` with ``B`` above the number of pairs, so one
larger difference outweighs any number of smaller ones.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.tournament.model import Entrant, Prefer

#: Levels up to this size get their exact shortfall in the search's bound; larger
#: ones are assumed to pair among themselves but for parity.
SMALL_LEVEL = 12


class OutOfBudget(Exception):
    pass


class Problem:
    """Costs of one pool, in integers so that one sum compares lexicographically."""

    def __init__(self, entrants: Sequence[Entrant], prefer: Prefer) -> None:
        self.names: list[str | None] = [e.name for e in entrants]
        self.wins: list[int] = [e.wins for e in entrants]
        self.had_bye: list[bool] = [e.had_bye for e in entrants]
        index = {e.name: k for k, e in enumerate(entrants)}
        if len(index) != len(entrants):
            raise ValueError("a pool names the same player twice")
        self.played: list[set[int]] = [
            {index[o] for o in e.played if o in index} for e in entrants
        ]
        if len(entrants) % 2:
            self.names.append(None)  # the virtual −1-win player
            self.wins.append(-1)
            self.had_bye.append(False)
            self.played.append(set())
        self.n = len(self.names)
        self.virtual = self.n - 1 if len(entrants) % 2 else -1
        self.prefer = prefer
        pairs = self.n // 2
        self.base = pairs + 1
        top = max(self.wins, default=0) - min(self.wins, default=0)
        self.k_rematch = self.base ** (top + 1)
        self.k_bye = self.k_rematch * (pairs + 1)
        self.level_wins = sorted(set(self.wins), reverse=True)
        self.level_of = [self.level_wins.index(w) for w in self.wins]

    def diff_cost(self, d: int) -> int:
        power: int = self.base**d  # d >= 0: an int (typeshed cannot know the sign)
        return power - 1

    def penalty(self, i: int, j: int) -> int:
        if j == self.virtual:
            return self.k_bye if self.had_bye[i] else 0
        if i == self.virtual:
            return self.k_bye if self.had_bye[j] else 0
        return self.k_rematch if j in self.played[i] else 0

    def cost(self, i: int, j: int) -> int:
        return self.diff_cost(abs(self.wins[i] - self.wins[j])) + self.penalty(i, j)

    def bound(self, counts: list[int]) -> int:
        """Cheapest pairing of these counts per level, ignoring who met whom."""
        total = 0
        carry: int | None = None
        for level, c in enumerate(counts):
            if not c:
                continue
            if carry is not None:
                total += self.diff_cost(self.level_wins[carry] - self.level_wins[level])
                c -= 1
                carry = None
            if c % 2:
                carry = level
        return total


def search(p: Problem, budget_nodes: int) -> list[tuple[int, int]] | None:
    """The optimal pairing of ``p``, or ``None`` when ``budget_nodes`` runs out first."""
    return Search(p, budget_nodes).run()


@dataclass
class _Frame:
    """One player being paired: what :meth:`Search._pass` would keep on the call stack."""

    i: int
    place: int  # where ``i`` stood in its level, to put it back
    spent: int
    partners: Iterator[int]
    seen: dict[tuple[int, int], int] = field(default_factory=dict)
    j: int | None = None  # the partner tried under the frame above, if any
    place_j: int = 0


class Search:
    """Top-down depth-first search, iterated on a rising cost threshold (IDA*).

    Each pass explores pairings in the order of the top-down rule and prunes a
    branch when its cost so far plus the lower bound of the rest exceeds the
    threshold; the next threshold is the smallest excess seen.  The first pairing
    found is therefore optimal and, among the optimal ones, first in top-down order.

    The depth of the search is half the pool, so the pass keeps its own stack of
    frames instead of recursing: a pool of any size runs under the process's
    recursion limit, which the hub shares with its web server.  (:meth:`internal`
    does recurse, only over levels of at most ``SMALL_LEVEL`` players.)
    """

    def __init__(self, p: Problem, budget_nodes: int) -> None:
        self.p = p
        self.budget_nodes = budget_nodes
        self.real = p.n - 1 if p.virtual >= 0 else p.n
        self.levels = len(p.level_wins) - (1 if p.virtual >= 0 else 0)
        self.counts = [0] * self.levels
        self.free = [0] * self.levels  # unpaired players without a previous bye
        self.members: list[list[int]] = [[] for _ in range(self.levels)]
        for k in range(self.real):
            level = p.level_of[k]
            self.counts[level] += 1
            self.free[level] += not p.had_bye[k]
            self.members[level].append(k)
        self.virtual_open = p.virtual >= 0
        self.nodes = 0
        self.paired = [False] * p.n
        self.memo: dict[tuple[int, ...], int] = {}
        self.chosen: list[tuple[int, int]] = []
        self.excess: list[int] = []

    def run(self) -> list[tuple[int, int]] | None:
        try:
            threshold = self.bound()
            while True:
                self.excess.clear()
                if self._pass(threshold):
                    return self.chosen
                if not self.excess:
                    return None
                threshold = min(self.excess)
        except OutOfBudget:
            return None

    # ------------------------------------------------------------ the lower bound
    def plain(self, cs: list[int]) -> int:
        return self.p.bound(cs + [0] * (len(self.p.level_wins) - self.levels))

    def internal(self, ms: tuple[int, ...]) -> int:
        """Most pairs among ``ms`` without a rematch (exact; used for small levels)."""
        if len(ms) < 2:
            return 0
        known = self.memo.get(ms)
        if known is not None:
            return known
        first, rest = ms[0], ms[1:]
        best = self.internal(rest)
        for k, j in enumerate(rest):
            if best == len(ms) // 2:
                break
            if j not in self.p.played[first]:
                best = max(best, 1 + self.internal(rest[:k] + rest[k + 1 :]))
        self.memo[ms] = best
        return best

    def shortfall(self, level: int) -> int:
        """How many of a level's players must meet someone from another level."""
        s = self.counts[level]
        if s > SMALL_LEVEL:
            return s % 2
        return s - 2 * self.internal(tuple(self.members[level]))

    def relaxed(self, xs: list[int]) -> int:
        """Cheapest cost of the relaxation: level L pairs all but xs[L] of its players
        inside; the rest meet players of lower levels, who can absorb them freely, a
        meeting across several levels paying each step (never more than the real
        cost, as the cost of a difference grows faster than linearly).  Pairs left
        inside a level despite a meeting before pay for a rematch."""
        p, counts, levels = self.p, self.counts, self.levels
        if all(x == c % 2 for x, c in zip(xs, counts, strict=True)):
            return self.plain(counts)  # nothing but parity: pairing neighbours is optimal
        below = [0] * (levels + 1)
        for level in range(levels - 1, -1, -1):
            below[level] = below[level + 1] + xs[level]
        dp: dict[int, int] = {0: 0}
        prev: int | None = None
        for level in range(levels):
            s = counts[level]
            if not s:
                continue
            step = p.diff_cost(p.level_wins[prev] - p.level_wins[level]) if prev is not None else 0
            nxt: dict[int, int] = {}
            for carry, base in dp.items():
                base += carry * step
                # r pairs inside the level may still be rematches, at their price
                for r in range(xs[level] // 2 + 1):
                    value = base + r * p.k_rematch
                    for k in range(min(carry, s) + 1):
                        low = max(xs[level] - 2 * r - k, 0)
                        low += (s - k - low) % 2
                        high = min(s - k, low + below[level + 1] + 1)
                        for out in range(low, high + 1, 2):
                            c = carry - k + out
                            if value < nxt.get(c, value + 1):
                                nxt[c] = value
            dp = nxt
            prev = level
        return dp[0]

    def bound(self) -> int:
        """Lower bound of the cost of pairing everybody still unpaired."""
        p, counts = self.p, self.counts
        xs = [self.shortfall(level) for level in range(self.levels)]
        if not self.virtual_open:
            return self.relaxed(xs)
        any_free = any(self.free)
        best: int | None = None
        for level in range(self.levels):
            if not counts[level] or (any_free and not self.free[level]):
                continue
            saved = xs[level]
            counts[level] -= 1
            xs[level] = max(saved - 1, counts[level] % 2)
            value = p.diff_cost(p.level_wins[level] + 1) + self.relaxed(xs)
            counts[level] += 1
            xs[level] = saved
            if not any_free:
                value += p.k_bye
            best = value if best is None or value < best else best
        return best if best is not None else 0

    # ------------------------------------------------------------ pairing, unpairing
    def take(self, k: int) -> int:
        if k == self.p.virtual:
            self.virtual_open = False
            return -1
        level = self.p.level_of[k]
        self.paired[k] = True
        self.counts[level] -= 1
        self.free[level] -= not self.p.had_bye[k]
        position = self.members[level].index(k)
        del self.members[level][position]
        return position

    def give_back(self, k: int, position: int) -> None:
        if k == self.p.virtual:
            self.virtual_open = True
            return
        level = self.p.level_of[k]
        self.paired[k] = False
        self.counts[level] += 1
        self.free[level] += not self.p.had_bye[k]
        self.members[level].insert(position, k)

    def candidates(self, i: int, spent: int, threshold: int) -> Iterator[int]:
        """Partners in top-down preference order, skipping whole levels too costly.

        Lazy: the pass pairs and unpairs each partner and leaves every list exactly
        as it found it before asking for the next one."""
        p = self.p
        li = p.level_of[i]
        lowest = p.prefer == "lowest"
        if lowest and self.virtual_open:
            yield p.virtual
        for level in range(self.levels - 1, li - 1, -1) if lowest else range(li, self.levels):
            if not self.members[level]:
                continue
            c = spent + p.diff_cost(p.wins[i] - p.level_wins[level])
            if c > threshold:
                self.excess.append(c)
                continue
            yield from reversed(self.members[level]) if lowest else iter(self.members[level])
        if not lowest and self.virtual_open:
            yield p.virtual

    # ------------------------------------------------------------ one pass
    def _open(self, start: int, spent: int, threshold: int) -> _Frame | None:
        """The frame pairing the first unpaired player from ``start``; ``None`` when
        everybody is paired. Every frame opened is a node of the budget."""
        self.nodes += 1
        if self.nodes > self.budget_nodes:
            raise OutOfBudget
        i = start
        while i < self.real and self.paired[i]:
            i += 1
        if i >= self.real:
            return None
        place = self.take(i)
        return _Frame(i, place, spent, self.candidates(i, spent, threshold))

    def _pass(self, threshold: int) -> bool:
        """Whether a pairing costs at most ``threshold``; if so it is in ``chosen``."""
        p, excess = self.p, self.excess
        top = self._open(0, 0, threshold)
        if top is None:
            return True
        stack = [top]
        while stack:
            f = stack[-1]
            if f.j is not None:  # the pairing under (f.i, f.j) failed: undo it
                self.chosen.pop()
                self.give_back(f.j, f.place_j)
                f.j = None
            child: _Frame | None = None
            for j in f.partners:
                c = p.cost(f.i, j)
                if f.spent + c > threshold:
                    excess.append(f.spent + c)
                    continue
                if j == p.virtual:
                    key: tuple[int, int] = (-1, 0)
                elif self.counts[p.level_of[j]] > SMALL_LEVEL + 1:
                    # still a large level once j is out: any such j leaves the same bound
                    key = (p.level_of[j], p.had_bye[j])
                else:
                    key = (-2, j)
                rest = f.seen.get(key)
                if rest is not None and f.spent + c + rest > threshold:
                    excess.append(f.spent + c + rest)
                    continue
                place_j = self.take(j)
                if rest is None:
                    rest = f.seen[key] = self.bound()
                total = f.spent + c + rest
                if total > threshold:
                    excess.append(total)
                    self.give_back(j, place_j)
                    continue
                self.chosen.append((f.i, j))
                f.j, f.place_j = j, place_j
                child = self._open(f.i + 1, f.spent + c, threshold)
                if child is None:
                    return True
                break
            if child is None:  # every partner of f.i tried
                self.give_back(f.i, f.place)
                stack.pop()
            else:
                stack.append(child)
        return False


def blossom(p: Problem) -> list[tuple[int, int]]:
    """Exact minimum of the whole key by Edmonds' blossom algorithm (slow, always right).

    networkx is imported here, not with the module: only this reference solver needs
    it, and every ``kaeshi tournament`` command would otherwise pay for its import."""
    import networkx as nx

    n = p.n
    c = n * n + 1
    scale = c**n
    offset = (2 * p.k_bye + 1) * scale
    graph: nx.Graph[int] = nx.Graph()
    for i in range(n):
        for j in range(i + 1, n):
            low = j if p.prefer == "lowest" else n - 1 - j
            weight = offset - p.cost(i, j) * scale + c ** (n - 1 - i) * low
            graph.add_edge(i, j, weight=weight)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = sorted((min(a, b), max(a, b)) for a, b in matching)
    return pairs
