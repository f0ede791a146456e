"""The project's own search: alpha-beta on the rules engine's bitboards, deepened
iteratively under a deadline.

Pure: no I/O and no clock of its own. A caller that wants a deadline passes ``left``,
a function giving the seconds still available; the search looks at it every few
hundred nodes and gives up the depth in progress when it runs out, keeping the
deepest depth it completed (depth 1 is always completed: it costs a few dozen
evaluations). The exact endgame solve is tried only at the root, only within
:attr:`Settings.exact` empties, and only with the time that is left; if it does not
finish, the midgame answer stands. So however slow the machine, the answer comes
on time, and a slow machine plays weaker, not later.

Scores are in discs from the side to move's view; an exact score is the final
margin with the empty squares given to the winner (the WOF/JOA count, and the one
Edax and Egaroucid report). The midgame evaluation is the pattern evaluation
learned from WTHOR games (:mod:`controller.engine.patterns`), or square weights and
mobility when its data file is missing. Boards of 6x6 and 10x10 (no WTHOR games to
learn from) are played on the rules engine's general kernels with square weights
scaled to the board.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from controller.bitboard import bit_indices, flips, geometry, legal_moves
from controller.boardsize import STANDARD, board_size
from controller.position import Position
from controller.squares import parse_square, square_name

#: A square's worth to its owner in the midgame: corners good, the squares that
#: give a corner away bad. Row-major from a1; symmetric under the board's symmetries.
WEIGHTS = (
    100, -20, 10, 5, 5, 10, -20, 100,
    -20, -50, -2, -2, -2, -2, -50, -20,
    10, -2, 1, 1, 1, 1, -2, 10,
    5, -2, 1, 0, 0, 1, -2, 5,
    5, -2, 1, 0, 0, 1, -2, 5,
    10, -2, 1, 1, 1, 1, -2, 10,
    -20, -50, -2, -2, -2, -2, -50, -20,
    100, -20, 10, 5, 5, 10, -20, 100,
)
_INF = 10_000


@cache
def weights(size: int) -> tuple[int, ...]:
    """:data:`WEIGHTS` for a board of any size: the same worth for the corner, the
    squares next to it (C and X), the edge, the ring inside it and the middle."""
    if size == STANDARD:
        return WEIGHTS
    last = size - 1
    out = []
    for i in range(size * size):
        r, c = divmod(i, size)
        er, ec = min(r, last - r), min(c, last - c)  # distance to the nearest edges
        if er == 0 and ec == 0:
            out.append(100)
        elif er == 1 and ec == 1:
            out.append(-50)
        elif min(er, ec) == 0:
            out.append(-20 if max(er, ec) == 1 else 10 if max(er, ec) == 2 else 5)
        elif min(er, ec) == 1:
            out.append(-2)
        else:
            out.append(1 if min(er, ec) == 2 else 0)
    return tuple(out)
#: Nodes between two looks at the deadline (a few milliseconds even on a Pi 4).
CHECK_NODES = 128
#: How much longer than the last the next midgame depth is expected to take; a depth
#: that would likely not finish is not started (it would be thrown away).
GROWTH = 4.0
#: Share of the time the midgame may use before an exact solve is tried.
SOLVE_SHARE = 0.7
#: Nodes an exact solve takes, roughly, with 10 empties, and the growth per empty
#: (measured on WTHOR endgames with this solver's move ordering).
SOLVE_NODES_10 = 5_000
SOLVE_GROWTH = 2.2
#: Nodes a second, until the search has measured its own speed in the midgame; a
#: solve's nodes are cheaper (no evaluation) by about SOLVE_SPEEDUP.
NOMINAL_RATE = 50_000.0
SOLVE_SPEEDUP = 2.0


def solve_nodes(empties: int) -> float:
    """About how many nodes an exact solve of ``empties`` takes."""
    return SOLVE_NODES_10 * SOLVE_GROWTH ** (empties - 10)

Evaluator = Callable[[int, int], float]
Left = Callable[[], float]


class Timeout(Exception):
    """The deadline passed during a search; the depth in progress is abandoned."""


@dataclass(frozen=True)
class Settings:
    """How hard to think: midgame ``depth`` in plies; positions with at most
    ``exact`` empty squares are solved to the end when the solve fits the time."""

    depth: int = 4
    exact: int = 12
    name: str = ""

    @classmethod
    def for_level(cls, level: int) -> Settings:
        """A level as a player picks it: 1-5 are the named levels (:data:`LEVELS`);
        above that (an NBoard GUI's ``set depth``) the depth itself, with the strong
        level's endgame. Every level is bounded by the time per move anyway."""
        if level <= len(LEVELS):
            return LEVELS[max(1, level) - 1]
        return cls(depth=min(20, level), exact=LEVELS[-1].exact, name=f"depth {min(20, level)}")


#: The named levels, weakest first; level N is ``LEVELS[N - 1]``. A level is a depth
#: and an endgame, both capped by the time per move (``engine.time``).
LEVELS: tuple[Settings, ...] = (
    Settings(1, 4, "beginner"),
    Settings(2, 8, "novice"),
    Settings(3, 10, "club"),
    Settings(4, 14, "advanced"),
    Settings(6, 18, "strong"),
)
LEVEL_NAMES = {s.name: i for i, s in enumerate(LEVELS, 1)}


@dataclass
class Result:
    """A search's verdict: best move (None: pass), its score, and the score of every move
    searched (square name -> score), all from the mover's view; ``exact`` when solved;
    ``depth`` the plies searched (the empties when exact)."""

    best: str | None
    score: float
    exact: bool
    scores: dict[str, float] = field(default_factory=dict)
    nodes: int = 0
    depth: int = 0


def final_margin(p: int, o: int, squares: int = board_size().squares) -> int:
    """Mover's disc margin at the end, empties to the winner."""
    mine, theirs = p.bit_count(), o.bit_count()
    empties = squares - mine - theirs
    if mine > theirs:
        return mine - theirs + empties
    if theirs > mine:
        return mine - theirs - empties
    return 0


def square_evaluation(p: int, o: int) -> float:
    """Heuristic score in discs: square weights and mobility, scaled to a margin."""
    pos = 0
    for sq in bit_indices(p):
        pos += WEIGHTS[sq]
    for sq in bit_indices(o):
        pos -= WEIGHTS[sq]
    mob = legal_moves(p, o).bit_count() - legal_moves(o, p).bit_count()
    return (pos + 8 * mob) / 10.0


def default_evaluator() -> Evaluator:
    """The shipped pattern evaluation, or square weights if its data is missing."""
    from controller.engine.patterns import load_evaluator

    return load_evaluator() or square_evaluation


class Searcher:
    """One search's state (node counter, best-move memory, deadline, the board's
    kernels); reusable. 8x8 runs on the hand-written kernels and the given evaluation,
    other sizes on the general kernels and square weights."""

    def __init__(self, settings: Settings | None = None, evaluate: Evaluator | None = None,
                 left: Left | None = None) -> None:
        self.settings = settings or Settings()
        self._given = evaluate or square_evaluation
        self.left = left
        self.nodes = 0
        #: Best reply found per position at an earlier depth: searched first next time.
        self.best_reply: dict[tuple[int, int], int] = {}
        self._board(STANDARD)

    def _board(self, size: int) -> None:
        self.size = size
        self.squares = size * size
        self.weights = weights(size)
        geo = geometry(size)
        self._legal: Callable[[int, int], int] = \
            legal_moves if size == STANDARD else geo.legal_moves
        self._flips: Callable[[int, int, int], int] = flips if size == STANDARD else geo.flips
        self._evaluate: Evaluator = self._given if size == STANDARD else self._by_squares

    def _play(self, p: int, o: int, sq: int) -> tuple[int, int]:
        f = self._flips(p, o, sq)
        return o & ~f, p | f | (1 << sq)  # (new mover = opponent, new opponent = us)

    def _by_squares(self, p: int, o: int) -> float:
        """Square weights and mobility on a board of another size."""
        pos = 0
        w = self.weights
        for sq in bit_indices(p):
            pos += w[sq]
        for sq in bit_indices(o):
            pos -= w[sq]
        mob = self._legal(p, o).bit_count() - self._legal(o, p).bit_count()
        return (pos + 8 * mob) / 10.0

    def evaluate(self, p: int, o: int) -> float:
        return self._evaluate(p, o)

    def _tick(self) -> None:
        self.nodes += 1
        if self.left is not None and self.nodes % CHECK_NODES == 0 and self.left() <= 0:
            raise Timeout

    # ------------------------------------------------------------ midgame
    def _alphabeta(self, p: int, o: int, depth: int, alpha: float, beta: float,
                   passed: bool = False) -> float:
        self._tick()
        moves = self._legal(p, o)
        if not moves:
            if passed or not self._legal(o, p):
                return float(final_margin(p, o, self.squares))
            return -self._alphabeta(o, p, depth, -beta, -alpha, True)
        if depth <= 0:
            return self._evaluate(p, o)
        best = -float(_INF)
        best_sq = -1
        for sq in self._ordered(p, o, moves, depth >= 2):
            np_, no = self._play(p, o, sq)
            v = -self._alphabeta(np_, no, depth - 1, -beta, -alpha)
            if v > best:
                best, best_sq = v, sq
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        if depth >= 2:
            self.best_reply[(p, o)] = best_sq
        return best

    # ------------------------------------------------------------ endgame
    def _solve(self, p: int, o: int, alpha: int, beta: int, passed: bool = False) -> int:
        """Exact margin by alpha-beta, fewest-replies-first ordering (fail-soft)."""
        self._tick()
        moves = self._legal(p, o)
        if not moves:
            if passed or not self._legal(o, p):
                return final_margin(p, o, self.squares)
            return -self._solve(o, p, -beta, -alpha, True)
        best = -_INF
        for sq in self._ordered(p, o, moves, False):
            np_, no = self._play(p, o, sq)
            v = -self._solve(np_, no, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def _ordered(self, p: int, o: int, moves: int, remembered: bool) -> list[int]:
        """The remembered best reply first, then moves leaving the opponent the fewest
        replies; corners break ties."""
        if moves & (moves - 1) == 0:
            return [moves.bit_length() - 1]
        keyed = []
        for sq in bit_indices(moves):
            np_, no = self._play(p, o, sq)
            keyed.append((self._legal(np_, no).bit_count(), -self.weights[sq], sq))
        keyed.sort()
        order = [sq for _, _, sq in keyed]
        if remembered:
            first = self.best_reply.get((p, o))
            if first is not None and first in order:
                order.remove(first)
                order.insert(0, first)
        return order

    # ------------------------------------------------------------- roots
    def analyse(self, position: Position, count: int = 1, exact: bool | None = None,
                order: list[str] | None = None) -> Result:
        """Best move and score of ``position`` at the settings' depth (or solved, when
        ``exact``; by default when within the settings' empties); the full-window score
        of the ``count`` best moves (every move when ``count`` >= their number), so that
        each figure is that move's own value, not a bound. ``order``: moves to search
        first (the previous depth's best). Raises :class:`Timeout` past the deadline."""
        self._board(position.size)
        size = position.size
        self.nodes = 0
        p, o = position.mover, position.other
        moves = self._legal(p, o)
        empties = self.squares - (p | o).bit_count()
        if exact is None:
            exact = empties <= self.settings.exact
        depth = empties if exact else self.settings.depth
        if not moves:
            if not self._legal(o, p):
                return Result(None, float(final_margin(p, o, self.squares)), True, {}, 1, empties)
            inner = self.analyse(position.with_to_move(position.to_move.opponent), 1, exact)
            return Result(None, -inner.score, inner.exact, {}, self.nodes, inner.depth)
        ranked = self._ordered(p, o, moves, False)
        if order:
            first = [sq for sq in (parse_square(s, size) for s in order) if sq in ranked]
            ranked = first + [sq for sq in ranked if sq not in first]
        scores: dict[str, float] = {}
        best_sq, best = ranked[0], -float(_INF)
        for i, sq in enumerate(ranked):
            np_, no = self._play(p, o, sq)
            if i < count:
                v = self._child(np_, no, -_INF, _INF, exact)
                scores[square_name(sq, size)] = v
            else:  # a bound will do unless it beats the best: fail-soft, so above is exact
                v = self._child(np_, no, best, _INF, exact)
                if v > best:
                    scores[square_name(sq, size)] = v
            if v > best:
                best, best_sq = v, sq
        return Result(square_name(best_sq, size), best, exact, scores, self.nodes, depth)

    def _child(self, p: int, o: int, alpha: float, beta: float, exact: bool) -> float:
        """Score of the position after a root move, from the root mover's view."""
        if exact:
            return float(-self._solve(p, o, math.floor(-beta), math.ceil(-alpha)))
        return -self._alphabeta(p, o, self.settings.depth - 1, -beta, -alpha)


def deepen(position: Position, settings: Settings, left: Left, count: int = 1,
           evaluate: Evaluator | None = None) -> Result:
    """The deepest answer that fits: depth 1, 2, ... up to ``settings.depth`` while
    ``left()`` says there is time, then the exact solve if the position is within
    ``settings.exact`` empties and the solve finishes in what is left. ``count`` moves
    get their own full-window score at the depth answered (hints, reviews)."""
    total = max(left(), 1e-6)
    empties = position.empty.bit_count()
    memory: dict[tuple[int, int], int] = {}
    searcher = Searcher(Settings(1, 0), evaluate)
    result = searcher.analyse(position, count, exact=False)  # always finished: tiny
    nodes = result.nodes
    if result.best is None and result.exact:
        return result  # the game is over

    def fits() -> bool:
        """Whether a solve could finish in the move's time at the speed this search has
        shown; a hopeless one (18 empties in pure Python) leaves all the time to the
        midgame. A wrong guess costs the solve's share of the time, never the deadline."""
        spent = total - left()
        rate = nodes / spent if spent > 0.05 else NOMINAL_RATE
        return solve_nodes(empties) / (SOLVE_SPEEDUP * rate) <= total

    solving = empties <= settings.exact and fits()
    # the midgame leaves some time to the solve; the solve may use all that is left
    reserve = total * (1 - SOLVE_SHARE) if solving else 0.0
    for depth in range(2, min(settings.depth, empties) + 1):
        before = left()
        if before - reserve <= 0:
            break
        searcher = Searcher(Settings(depth, 0), evaluate, functools.partial(_less, left, reserve))
        searcher.best_reply = memory
        try:
            deeper = searcher.analyse(position, count, exact=False, order=_best_first(result))
        except Timeout:
            nodes += searcher.nodes
            break
        nodes += searcher.nodes
        result = deeper
        took = before - left()
        if solving and not fits():  # slower than thought: the midgame keeps the time
            solving, reserve = False, 0.0
        if took * GROWTH > left() - reserve:
            break
    if solving and left() > 0:
        searcher = Searcher(settings, evaluate, left)
        try:
            result = searcher.analyse(position, count, exact=True, order=_best_first(result))
        except Timeout:
            pass
        nodes += searcher.nodes
    result.nodes = nodes
    return result


def _less(left: Left, reserve: float) -> float:
    """What ``left`` says, less the time kept for the solve."""
    return left() - reserve


def _best_first(result: Result) -> list[str]:
    return sorted(result.scores, key=lambda sq: -result.scores[sq])


def analyse(position: Position, settings: Settings | None = None, count: int = 1) -> Result:
    return Searcher(settings).analyse(position, count)
