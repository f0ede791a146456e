"""The project's own small search: alpha-beta on the rules engine's bitboards.

It is a test double and a fallback, not a strong player: it plays legal, sensible
Othello and solves endgames exactly, so that the engine protocols, home play and
game review can be tested end to end without a third-party engine. Pure: no I/O,
no clock. Scores are in discs from the side to move's view; an exact score is the
final margin with the empty squares given to the winner (the WOF/JOA count, and
the one Edax and Egaroucid report).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from controller.bitboard import bit_indices, flips, geometry, legal_moves
from controller.boardsize import STANDARD, board_size
from controller.position import Position
from controller.squares import square_name

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


@dataclass(frozen=True)
class Settings:
    """How hard to think: midgame ``depth`` in plies; positions with at most
    ``exact`` empty squares are solved to the end."""

    depth: int = 4
    exact: int = 12

    @classmethod
    def for_level(cls, level: int) -> Settings:
        """Level 1-20 as a player picks it: a deeper midgame; the last 12 empties are
        always played perfectly (a solve of more would not fit a move's time here)."""
        return cls(depth=max(1, min(20, level)), exact=12)


@dataclass
class Result:
    """A search's verdict: best move (None: pass), its score, and the score of every move
    searched (square name -> score), all from the mover's view; ``exact`` when solved."""

    best: str | None
    score: float
    exact: bool
    scores: dict[str, float] = field(default_factory=dict)
    nodes: int = 0


def final_margin(p: int, o: int, squares: int = board_size().squares) -> int:
    """Mover's disc margin at the end, empties to the winner."""
    mine, theirs = p.bit_count(), o.bit_count()
    empties = squares - mine - theirs
    if mine > theirs:
        return mine - theirs + empties
    if theirs > mine:
        return mine - theirs - empties
    return 0


class Searcher:
    """One search's state (the node counter and the board's kernels); reusable across
    positions. 8x8 runs on the hand-written kernels, other sizes on the general ones."""

    def __init__(self, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.nodes = 0
        self._board(STANDARD)

    def _board(self, size: int) -> None:
        self.size = size
        self.squares = size * size
        self.weights = weights(size)
        geo = geometry(size)
        self._legal: Callable[[int, int], int] = \
            legal_moves if size == STANDARD else geo.legal_moves
        self._flips: Callable[[int, int, int], int] = flips if size == STANDARD else geo.flips

    def _play(self, p: int, o: int, sq: int) -> tuple[int, int]:
        f = self._flips(p, o, sq)
        return o & ~f, p | f | (1 << sq)  # (new mover = opponent, new opponent = us)

    # ------------------------------------------------------------ midgame
    def evaluate(self, p: int, o: int) -> float:
        """Heuristic score in discs: square weights and mobility, scaled to a margin."""
        pos = 0
        w = self.weights
        for sq in bit_indices(p):
            pos += w[sq]
        for sq in bit_indices(o):
            pos -= w[sq]
        mob = self._legal(p, o).bit_count() - self._legal(o, p).bit_count()
        return (pos + 8 * mob) / 10.0

    def _alphabeta(self, p: int, o: int, depth: int, alpha: float, beta: float,
                   passed: bool = False) -> float:
        self.nodes += 1
        empties = self.squares - (p | o).bit_count()
        if empties <= self.settings.exact:
            bound = self.squares + 1.0
            lo = math.floor(max(alpha, -bound)) - 1
            hi = math.ceil(min(beta, bound)) + 1
            return float(self._solve(p, o, lo, hi))
        moves = self._legal(p, o)
        if not moves:
            if passed or not self._legal(o, p):
                return float(final_margin(p, o, self.squares))
            return -self._alphabeta(o, p, depth, -beta, -alpha, True)
        if depth <= 0:
            return self.evaluate(p, o)
        best = -float(_INF)
        for sq in self._ordered(p, o, moves):
            np_, no = self._play(p, o, sq)
            v = -self._alphabeta(np_, no, depth - 1, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    # ------------------------------------------------------------ endgame
    def _solve(self, p: int, o: int, alpha: int, beta: int, passed: bool = False) -> int:
        """Exact margin by alpha-beta, fewest-replies-first ordering (fail-soft)."""
        self.nodes += 1
        moves = self._legal(p, o)
        if not moves:
            if passed or not self._legal(o, p):
                return final_margin(p, o, self.squares)
            return -self._solve(o, p, -beta, -alpha, True)
        best = -_INF
        for sq in self._ordered(p, o, moves):
            np_, no = self._play(p, o, sq)
            v = -self._solve(np_, no, -beta, -alpha)
            if v > best:
                best = v
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
        return best

    def _ordered(self, p: int, o: int, moves: int) -> list[int]:
        """Moves leaving the opponent the fewest replies first; corners break ties."""
        if moves & (moves - 1) == 0:
            return [moves.bit_length() - 1]
        keyed = []
        w = self.weights
        for sq in bit_indices(moves):
            np_, no = self._play(p, o, sq)
            keyed.append((self._legal(np_, no).bit_count(), -w[sq], sq))
        keyed.sort()
        return [sq for _, _, sq in keyed]

    # ------------------------------------------------------------- roots
    def analyse(self, position: Position, count: int = 1) -> Result:
        """Best move and score of ``position``; the exact score of the ``count`` best
        moves (every move when ``count`` >= their number), each searched with a full window
        so that each figure is that move's own value, not a bound."""
        self._board(position.size)
        self.nodes = 0
        size = position.size
        p, o = position.mover, position.other
        moves = self._legal(p, o)
        if not moves:
            if not self._legal(o, p):
                return Result(None, float(final_margin(p, o, self.squares)), True, {}, 1)
            inner = self.analyse(position.with_to_move(position.to_move.opponent), 1)
            return Result(None, -inner.score, inner.exact, {}, self.nodes)
        empties = self.squares - (p | o).bit_count()
        exact = empties <= self.settings.exact
        order = self._ordered(p, o, moves)
        scores: dict[str, float] = {}
        best_sq, best = order[0], -float(_INF)
        for i, sq in enumerate(order):
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
        return Result(square_name(best_sq, size), best, exact, scores, self.nodes)

    def _child(self, p: int, o: int, alpha: float, beta: float, exact: bool) -> float:
        """Score of the position after a root move, from the root mover's view."""
        if exact:
            return float(-self._solve(p, o, math.floor(-beta), math.ceil(-alpha)))
        return -self._alphabeta(p, o, self.settings.depth - 1, -beta, -alpha)


def analyse(position: Position, settings: Settings | None = None, count: int = 1) -> Result:
    return Searcher(settings).analyse(position, count)

