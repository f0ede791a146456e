"""Judging a reading of the start position: what contradicts it, and what a
lamp, a shadow or a hand-placed disc explains.

A grid a square or more off, or colours the wrong way round, moves or swaps the
start discs and puts discs or frame on the board's ring; a lamp's reflection, a
shadow's edge or a disc put down a little aside does neither. The checks here tell
the two apart on one reading, with the learned square model's look at the squares
as a second opinion where the rules' brightness test is known to be fooled.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache

import numpy as np

from controller.boardsize import STANDARD, board_size, size_of_board_string
from controller.position import Position
from controller.vision.finding.grid_check import CONFIRMED
from controller.vision.reading.board_reading import AMBIGUOUS, GLARE, Reading, unread
from controller.vision.reading.reader import SquareReader
from controller.vision.reading.square_model import CLASSES, patch_index, patches
from controller.vision.reading.squarestats import neighbourhood_mean
from controller.vision.sampling import smoothed


@dataclass(frozen=True)
class Start:
    """The start position of one board size, as calibration looks for it."""

    board: str
    #: the start position labelled a quarter turn round: the same squares, the discs'
    #: colours swapped (the start position fixes which way round the board is only up
    #: to half a turn, so a grid's labelling can be either)
    turned: str
    white: tuple[int, ...]  # d4, e5 on 8x8
    black: tuple[int, ...]  # e4, d5 on 8x8

    @property
    def discs(self) -> tuple[int, ...]:
        return (*self.white, *self.black)


@cache
def start_of(n: int = STANDARD) -> Start:
    """The centre-four start of an ``n`` x ``n`` board."""
    board = Position.start(n).board_string()
    black, white = board_size(n).start_masks()
    return Start(board, board.translate(str.maketrans("XO", "OX")),
                 tuple(i for i in range(n * n) if white >> i & 1),
                 tuple(i for i in range(n * n) if black >> i & 1))

STRAY_MAX = 2  # empty squares read as discs, away from the middle, that glare may explain
#: The model's doubt of a grid under which it alone may leave a start disc the rules
#: read empty unread, with no reflection beside it to explain the misreading: half
#: the bound of a confirmed grid, which grids nearly half a square off reach
SURE = 0.1
#: The learned model's probability over which it names a start disc the reader left
#: unread, where it sees felt or the other colour: on the project's own hard start
#: scenes set up right, no unread start disc came above 0.79 on seeds 131 and 132,
#: one came to 0.94 on seeds 197 to 202 (d5 under a reflection over three of the
#: four discs) and one to 0.97 on 203 to 208 (e4), while white discs set on black
#: start squares under a reflection mostly reach 0.96 to 1 (seed 121)
SURELY = 0.95


def lit_black_unknown(r: Reading, lit: tuple[int, ...], washed: tuple[int, ...],
                      view: ModelView | None) -> Reading:
    """Black start discs that a lamp's reflection lights up as white read ``?``
    (glare): what covers them is known, and it is no contradiction.

    But a white disc on a black start square measures as bright as a lit black
    one, and set up the wrong way round it must refuse the calibration and be
    named. So a disc read white is excused only where something shows the lamp:
    the reader sees glare on its square, its top is ``washed`` out (clipped more
    than the white start discs'), the other black start disc is lit too (a lamp
    over the middle; a set-up wrong by one disc leaves the other black), or the
    learned model (``view``) does not see a white disc there."""
    glare = r.glare if r.glare is not None else np.zeros(len(r.board), bool)
    return _unread_for_glare(r, [i for i in lit if r.board[i] in "Oo" and (
        glare[i] or i in washed or len(lit) > 1 or view is None
        or view.seen.get(i) != "O")])


def paled_unknown(r: Reading, view: ModelView | None) -> Reading:
    """A start disc read empty beside a lamp's reflection, while the other three read
    right, reads ``?`` (glare) if the learned model (``view``) sees the start's own
    disc there; with no reflection beside it, ``?`` (ambiguous) if the model is sure
    of the grid too (its doubt under ``SURE``), or of the disc: in a dim room a
    black disc on a dark felt has a top as dark as the felt to the rules, while the
    model sees its rim.

    A reflection's halo pales a black disc to the felt's shade for the reader's
    rules, which measure a top's brightness against the felt next to it; the model
    sees the whole square, the disc's rim and shadow too. Its likeliest reading is
    enough to doubt the rules' here (the square is only left unread), not to name
    the disc. On a grid the model only confirms (doubt under ``CONFIRMED``, as a
    dark picture's own grid can be), it must be as sure of the disc as
    :func:`model_read` is of a disc it names (over ``SURELY``). Where no disc lies, the
    model sees felt, and the square still refuses the calibration. One disc only: a
    grid a fraction of a square off also leaves the rules measuring felt beside
    discs the model sees, on more than one. (Unlike :func:`model_overruled`, this
    asks nothing of the grid's other squares: the three start discs read right
    hold it.)
    """
    if view is None:
        return r
    glare = next_to_glare(r)
    s = start_of(size_of_board_string(r.board))
    paled = [i for i in s.discs if r.board[i] == "-" and i in view.seen]
    if len(paled) != 1 or start_discs_right(r) != len(s.discs) - 1:
        return r
    i = paled[0]
    if view.seen[i] != s.board[i]:
        return r
    if glare[i]:
        return _unread_for_glare(r, paled)
    sure_of_disc = (view.doubt < CONFIRMED
                    and view.probabilities[i][CLASSES.index(s.board[i])] > SURELY)
    return unread(r, paled, AMBIGUOUS) if view.doubt < SURE or sure_of_disc else r


@dataclass(frozen=True)
class ModelView:
    """What the learned square model sees on a grid."""

    #: mean probability that a square is not one of the board's (wholly, for a
    #: square outside the picture)
    doubt: float
    #: the likeliest class of each square inside the picture
    seen: dict[int, str]
    #: each such square's probabilities, in the order of ``CLASSES``
    probabilities: dict[int, np.ndarray]


def model_read(r: Reading, view: ModelView | None, unread_discs: list[int]) -> Reading:
    """``r`` with the start discs among ``unread_discs`` (those the reader left
    ``?``) read as the learned model surely sees them (over ``SURELY``), where that
    is felt or the other colour, on a grid whose squares it confirms: a
    contradiction, named to the user, marked as the model's reading.

    A reflection that hides a disc from the reader's brightness test can leave its
    rim and shadow to the model; a start position set up wrong under a lamp (a
    white disc on e4, a disc missing) would otherwise pass, as nothing contradicts
    it. Discs excused for a lamp (see :func:`lit_black_unknown`) read ``?`` only
    after the reader and are not asked about again."""
    if view is None or view.doubt >= CONFIRMED:
        return r
    board, why, conf = list(r.board), list(r.reasons or ("",) * len(r.board)), r.confidence.copy()
    start = start_of(size_of_board_string(r.board)).board
    named = []
    for i in unread_discs:
        p = view.probabilities.get(i)
        if p is None or r.board[i] != "?":
            continue
        k = int(np.argmax(p))
        if CLASSES[k] in "-XO" and CLASSES[k] != start[i] and p[k] > SURELY:
            board[i], why[i], conf[i] = CLASSES[k], "", 0.5 + 0.3 * float(p[k])
            named.append(i)
    if not named:
        return r
    return replace(r, board="".join(board), reasons=tuple(why), confidence=conf,
                   learned=tuple(sorted({*r.learned, *named})))


def model_view(reader: SquareReader, canvas: np.ndarray) -> ModelView | None:
    """The model's look at the grid's squares (None without the model): asked
    only when some square contradicts the start position or a start disc is
    unread."""
    model = reader.square_model
    if model is None:
        return None
    inside = np.flatnonzero(~reader.layout.outside)
    p = model.probabilities(patches(smoothed(canvas), patch_index(reader.layout), inside),
                            flips=True)
    squares = reader.layout.squares
    doubt = (float(p[:, CLASSES.index("other")].sum()) + squares - len(inside)) / squares
    seen = {int(i): CLASSES[int(k)] for i, k in zip(inside, p.argmax(axis=1), strict=True)}
    return ModelView(doubt, seen, {int(i): row for i, row in zip(inside, p, strict=True)})


def model_overruled(r: Reading, view: ModelView) -> list[int]:
    """Empty squares of the start position the rules read as discs where the
    learned model sees felt, on a grid whose squares the model confirms (the
    caller's check): they are left unread (ambiguous) instead of contradicting it.

    The rules judge a square by its disc top's brightness to the felt beside it: a
    shadow's edge, a dark band or a lamp's pool across empty felt passes for a
    disc. The model sees the whole square, and was trained to call a patch off the
    board's squares "other": where it takes nearly every square of the grid for one
    of the board's and sees felt on this one, no disc lies there (a grid a whole
    square off still sees the start discs moved). Start discs are left to
    :func:`paled_unknown`: on a grid a fraction of a square off the rules measure
    felt beside a start disc the model still sees whole, and the model's doubt of
    such a grid can fall just under its bound.
    """
    start = start_of(size_of_board_string(r.board)).board
    return [i for i in against_start(r, []) if start[i] == "-" and view.seen.get(i) == "-"]


def _unread_for_glare(r: Reading, squares: list[int]) -> Reading:
    """``r`` with ``squares`` read ``?`` for a lamp's reflection."""
    return unread(r, squares, GLARE)




def contradictions(r: Reading, off_centre: list[int]) -> tuple[list[int], list[int]]:
    """Squares read definitely as something the start position does not hold:
    (those that refuse the calibration, strays that do not).

    A start disc read as the other colour or as empty, or a disc read on the
    board's outer ring, can mean a grid off by a square or colours the wrong way
    round. One or two empty squares inside the board read as discs, while the start
    discs read right where they are seen, cannot: a grid off by a square would move
    the start discs too. Nor can one or two on the ring right next to a square a
    lamp's reflection hides: a grid taking in the frame shows it along a whole
    edge. Nor, when all four start discs read right, one or two anywhere on the
    ring: a grid stretched over a strip of frame wide enough to read as discs moves
    the middle squares off the start discs' centres too. They are a lamp's pool or
    reflection there, or a disc left on the board, and named to the user instead of
    refusing a set-up whose grid and colours are right. Start discs ``off_centre``
    read right.
    """
    wrong = against_start(r, off_centre)
    right = start_discs_right(r) + len(off_centre)
    glare = next_to_glare(r)
    n = size_of_board_string(r.board)
    discs = start_of(n).discs
    inner = [i for i in wrong if i not in discs
             and (0 < i % n < n - 1 and 0 < i // n < n - 1 or glare[i] or right == len(discs))]
    if right >= 2 and len(inner) == len(wrong) and len(inner) <= STRAY_MAX:
        return [], inner
    return wrong, []


def against_start(r: Reading, excused: list[int]) -> list[int]:
    """Squares read as something the start position does not hold, but for
    ``excused`` ones and those unread."""
    start = start_of(size_of_board_string(r.board)).board
    return [i for i in range(len(r.board))
            if r.board[i] not in (start[i], "?") and i not in excused]


def off_centre(r: Reading) -> list[int]:
    """Start discs read in their own colour but off their squares' centres, while
    at least two read centred, on a grid whose squares the model confirms (the
    caller's check): discs put down by hand a little aside. A grid a third of a
    square off would move all four alike; one leaning a square off at a corner
    can leave two centred, and the model doubts its squares."""
    if start_discs_right(r) < 2:
        return []
    s = start_of(size_of_board_string(r.board))
    return [i for i in s.discs if r.board[i] == s.board[i].lower()]


def start_discs_right(r: Reading) -> int:
    """How many of the four start discs read as the start position has them."""
    s = start_of(size_of_board_string(r.board))
    return sum(r.board[i] == s.board[i] for i in s.discs)


def next_to_glare(r: Reading) -> np.ndarray:
    """Per square, bools: squares with a neighbour (diagonals too) read as glare (or
    read as glare themselves, which never makes them a contradiction)."""
    return neighbourhood_mean(r.unknown_for(GLARE).astype(np.float64),
                              np.ones(len(r.board))) > 0
