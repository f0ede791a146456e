"""Calibration's board finding: the grid on which the start position reads.

A grid that reads the start position (four discs in the middle, sixty empty squares,
felt ending at all four edges) is the board's. When the finder's grid does not read
it, the search tries, in this order:

1. every other grid the cues offered, the learned model's least doubted first;
2. a grid whose squares the model confirms, though a reflection hides many of them;
3. the grids most like the start position, moved onto it
   (:mod:`controller.vision.calibrating.refine`);
4. a grid refused only for its edges where the model sees the board differently
   (:func:`controller.vision.calibrating.fit.closable_edges`);
5. grids guessed round the four start discs (:mod:`controller.vision.calibrating.discs`);
6. any grid that reads three of the four discs in place, on squares the model
   doubts only a little more than it confirms.

A grid that reads the start position but whose squares the model says are no
board's (a plain table read as empty felt) is taken only when no grid the model
confirms is found. Cases and figures are in ``docs/camera-history.md``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.calibrating.discs import disc_guesses
from controller.vision.calibrating.fit import StartFit, closable_edges
from controller.vision.calibrating.judge import (
    Orient,
    fit_grid,
    grid_doubt,
    least_doubted,
    placed,
    recognised_start,
    shows_start,
)
from controller.vision.calibrating.refine import settle_on_start, start_likelihood
from controller.vision.calibrating.start_reading import SURE, start_discs_right, start_of
from controller.vision.finding.contours import contour_outlines
from controller.vision.finding.felt import outline_guesses
from controller.vision.finding.finder import (
    BoardNotFound,
    board_grids,
    lattice_outlines,
    seen_before,
)
from controller.vision.finding.grid_check import CONFIRMED
from controller.vision.geometry import corners_of, homography_from_corners
from controller.vision.pipeline import DISC_HEIGHT, found_grid
from controller.vision.reading.square_model import SquareModel, default_model

#: Grids tried after the finder's own choice; each costs a start fit (tens of ms).
MAX_TRIES = 12
#: Grids moved coarsely onto the start position when no other reads it ...
SHORT_TRIES = 6
#: ... each with at most this many looks through the model, in steps of a quarter square
SHORT_LOOKS = 40
COARSE = (0.25,)
#: ... at least this many squares apart at some corner
APART = 1.0
#: Of those, moved all the way (seconds each).
SETTLE_TRIES = 1
#: ... ranked by their likeness to it, less this for each square that contradicts it
MISMATCH_COST = 0.05

#: The model's doubt over which a grid reading the start position is not taken at
#: once: grids taken on the board's squares stay under 0.35 on the project's own
#: hard renders (240 sampled), and a third of those taken half a square off or
#: more exceed it.
DOUBTED = 0.4

#: Start discs read in their colours from which a grid cannot be whole squares off:
#: a grid moved by whole squares in any direction puts at most two of the four
#: discs' squares on a disc of the colour they read (see :func:`_discs_placed`) ...
PLACED_DISCS = 3
#: ... and the model's doubt under which such a grid is taken, though a reflection
#: or the dark leaves many squares unread: over ``CONFIRMED``, where the board under
#: a reflection sits, a grid whole squares off is told apart by the discs instead.
PLACED_DOUBT = 0.26

#: What a caller hears before grids are moved onto the start position.
SEARCHING = ("no grid the picture offers reads the start position at once on squares the "
             "learned model takes for the board's: moving the likeliest onto it, which "
             "takes several seconds (longer on a Raspberry Pi)")


def fit_on_start(image: np.ndarray, orient: Orient | None = None,
                 searching: Callable[[str], None] | None = None,
                 n: int = STANDARD) -> StartFit:
    """The calibration fit on the start position shown in ``image``.

    ``orient`` None: the start position decides which way round the board is (up
    to half a turn). Raises :class:`BoardNotFound` only when no grid reads the start
    position and the finder found no board. A grid that reads it on nearly every
    square is taken at once unless the learned model doubts its squares are the
    board's (``DOUBTED``); such a grid is kept, its ``doubt`` set, only when the
    search below finds none the model confirms. When no grid reads it on nearly every
    square, the finder's grid is kept if it contradicts nothing and reads a start
    disc in its colour (:func:`_kept_unsearched`); else a grid that
    contradicts nothing and whose squares the learned model confirms, among those
    tried and then among the likeliest moved onto the start position; else one
    refused only for edges the model closes (:func:`_closed`); else, unless a
    doubted grid reads it, one guessed round the start discs that reads it on nearly
    every square, or all four discs in place on squares the model is sure of, or
    any grid tried that reads three discs in place (:func:`_discs_placed`); else
    the doubted grid, unless the finder's grid is the board's and only start discs
    contradict it (:func:`_on_board`: the set-up is wrong, and a grid the model
    doubts reads the start position only by missing the wrong disc); else the
    finder's, its contradictions telling the user what is wrong. ``searching`` is
    told, once, when grids are to be moved: seconds where the rest takes a tenth,
    which a user waiting at a camera should hear about.
    """
    first: StartFit | None = None
    tried: list[StartFit] = []
    made: list[StartFit] = []  # every fit, moved grids' too: for closing edges last
    # reads the start position, on squares the learned model doubts are the board's
    doubted: StartFit | None = None
    try:
        h, _ = found_grid(image, n)
    except BoardNotFound as exc:
        missing = exc
    else:
        first = fit_grid(image, h, orient, made, n)
        if shows_start(first):
            doubt = _doubt_over_bound(image, first)
            if doubt is None:
                return first
            doubted = replace(first, doubt=doubt)
        tried.append(first)
    for h in board_grids(image, n)[:MAX_TRIES]:
        fit = fit_grid(image, h, orient, made, n)
        if shows_start(fit):
            doubt = _doubt_over_bound(image, fit)
            if doubt is None:
                return fit
            doubted = doubted or replace(fit, doubt=doubt)
        tried.append(fit)
    if doubted is None and first is not None and _kept_unsearched(first):
        return _doubt_told(image, first)
    model = default_model()
    if model is not None:
        confirmed = recognised_start(image, tried)
        # only the start discs contradicting it on a grid whose squares the model
        # recognises, it is the position that is wrong, not the grid: moving grids
        # would only keep the user waiting (but a grid reading none of them is half
        # the board, cut short at a reflection over its middle: see _on_board)
        on_board = first is not None and _on_board(image, first)
        if confirmed is None and not on_board:
            if searching is not None:
                searching(SEARCHING)
            confirmed = _settled(image, tried, orient, model, made, n)
        if confirmed is None:
            confirmed = _closed(image, made)
        if confirmed is None and doubted is None and not on_board:  # else refused
            confirmed = (_on_start_discs(image, orient, model, made, n)
                         or _discs_placed(image, made))
        if confirmed is not None:
            return confirmed
        if on_board and first is not None:  # refused on the board's own grid, not taken
            return first                    # on a doubted one
    if doubted is not None:
        return doubted
    if first is None:
        raise missing
    return _doubt_told(image, first)


def _doubt_told(image: np.ndarray, fit: StartFit) -> StartFit:
    """The finder's grid, kept without reading the start position on nearly every
    square, with the model's doubt set where it exceeds ``DOUBTED`` (and nothing
    contradicts the start position, which would refuse it anyway), so that the user
    hears to check it: a grid over a strip of the board, most of it unread under a
    reflection, contradicts nothing and can lie squares off."""
    doubt = None if fit.mismatches else _doubt_over_bound(image, fit)
    return fit if doubt is None else replace(fit, doubt=doubt)


def _kept_unsearched(fit: StartFit) -> bool:
    """The finder's grid, reading too few squares to show the start position, is
    kept without a search: it contradicts nothing, and at least one start disc reads
    in its colour.

    A grid reading none of the four discs contradicts nothing wherever it lies (a
    plain table beside the board reads as unread squares and empty felt), so it is
    searched past; it is still kept after the search when the search finds none."""
    return not fit.mismatches and start_discs_right(fit.reading) > 0


def _on_board(image: np.ndarray, fit: StartFit) -> bool:
    """The finder's grid is the board's though it contradicts the start position:
    only start discs contradict it, at least one of them reads as it should, and the
    model confirms its squares, so the discs on the board are wrong, not the grid.

    A grid reading none of the four discs is not taken for the board's: one cut
    short at a lamp's reflection over the middle of the board covers only its lower
    or left half, its own middle on empty felt (the discs read empty there), the
    felt past its edge hidden by the reflection, and the model confirms its squares
    all the same."""
    discs = start_of(fit.setup.size).discs
    return (set(fit.mismatches) <= set(discs) and start_discs_right(fit.reading) > 0
            and grid_doubt(image, fit) < CONFIRMED)


def _doubt_over_bound(image: np.ndarray, fit: StartFit) -> float | None:
    """The learned model's doubt that the grid's squares are the board's, where it
    exceeds ``DOUBTED`` (None under it, or without the model): read as the start
    position, they may be the table round a small board under a lamp, its felt
    levels fitted on the table's colour."""
    if default_model() is None:
        return None
    doubt = grid_doubt(image, fit)
    return doubt if doubt > DOUBTED else None


def _settled(image: np.ndarray, tried: list[StartFit], orient: Orient | None,
             model: SquareModel, made: list[StartFit], n: int = STANDARD) -> StartFit | None:
    """A grid the tried ones, or the felt outline's, the picture edges' and the
    lattice's guesses (see :func:`controller.vision.finding.felt.outline_guesses`,
    :func:`controller.vision.finding.contours.contour_outlines` and
    :func:`controller.vision.finding.finder.lattice_outlines`), lead to when moved onto
    the start position (see :mod:`controller.vision.calibrating.refine`) and put on the
    printed lines where they show, taken as any other (see
    :func:`controller.vision.calibrating.judge.taken`).

    Before it is moved, a grid a square off at one corner looks hardly more like
    the start position than one four squares off; moved a little, it looks far
    more. So the ``SHORT_TRIES`` most like it (contradicting it least), a square
    apart, and a second grid at the likeliest place (:func:`_second_try`), are moved
    coarsely first, and the ``SETTLE_TRIES`` most like it then are moved all the
    way. When none of those is taken, each grid moved coarsely is fitted in turn,
    likeliest first (one taken is moved all the way too, unless it was above, and
    of the two, when that is taken as well, the one the model doubts less is
    kept: see :func:`_less_doubted`); failing that, each guess among those
    moved, as it is, unmoved: in a dark room the felt outline's guess can be
    the board itself. A grid the search took before these were tried is taken
    the same; they only take one where the search used to find none."""
    grids = [(fit.setup.homography, len(fit.mismatches)) for fit in tried]
    guesses = (outline_guesses(image) + contour_outlines(image)
               + lattice_outlines(image, doubled=True, n=n))
    fitted = len(grids)
    grids += [(homography_from_corners(q, n), 0) for q in guesses]
    likeness = [start_likelihood(image, h, model, DISC_HEIGHT, n) - MISMATCH_COST * wrong
                for h, wrong in grids]
    ranked = [int(k) for k in np.argsort(likeness)[::-1]]
    apart: list[np.ndarray] = []
    picked = [k for k in ranked
              if not seen_before(corners_of(grids[k][0], n), apart, APART, n)][:SHORT_TRIES]
    picked[1:1] = _second_try(grids, ranked, picked, n)
    moved = [settle_on_start(image, grids[k][0], model, DISC_HEIGHT, SHORT_LOOKS, COARSE, n)
             for k in picked]
    likeness = [start_likelihood(image, h, model, DISC_HEIGHT, n) for h in moved]
    order = [int(k) for k in np.argsort(likeness)[::-1]]
    for k in order[:SETTLE_TRIES]:
        fit = placed(image, settle_on_start(image, moved[k], model, DISC_HEIGHT, n=n), orient,
                     made, n=n)
        if fit is not None:
            return fit
    # the finer steps can follow a ridge the model sees in a reflection or the frame
    # away from where the coarse ones read the start position, and the likeliest
    # need not be the board
    for rank, k in enumerate(order):
        coarse = placed(image, moved[k], orient, made, n=n)
        if coarse is None:
            continue
        if rank < SETTLE_TRIES:  # moved all the way above, and not taken
            return coarse
        fine = placed(image, settle_on_start(image, moved[k], model, DISC_HEIGHT, n=n), orient,
                      made, n=n)
        return coarse if fine is None else _less_doubted(image, fine, coarse)
    for k, h in zip(picked, moved, strict=True):  # a guess may be the board as it is
        unmoved = np.allclose(corners_of(h, n), corners_of(grids[k][0], n))  # placed above
        if k >= fitted and not unmoved and (
                fit := placed(image, grids[k][0], orient, made, n=n)):
            return fit
    return None


def _less_doubted(image: np.ndarray, fine: StartFit, coarse: StartFit) -> StartFit:
    """Of a grid moved coarsely and the same moved all the way, both taken, the one
    whose squares the learned model doubts less (the finer of equals): the finer
    steps can follow a ridge the model sees in a reflection off the board, and the
    printed lines pull it further. In a dim picture with a lamp over a corner, such
    a grid leaning a square and a half off there reads the table by it as empty
    felt and the rest as unread or right, contradicting nothing."""
    return fine if grid_doubt(image, fine) <= grid_doubt(image, coarse) else coarse


def _second_try(grids: list[tuple[np.ndarray, int]], ranked: list[int],
                picked: list[int], n: int = STANDARD) -> list[int]:
    """The likeliest place's second grid to move: the likeliest other grid within a
    square of the first pick but not alike it (a quarter square apart at some
    corner), if any.

    Unmoved, grids a third of a square off the board and on it look nearly as
    like the start position, either one a little likelier; and a guess a fifth of a
    square from a grid already tried can look far likelier than it. Moved, the one
    on the board reads it and the other may not, so the likeliest place gets both."""
    if not picked:
        return []
    first = corners_of(grids[picked[0]][0], n)
    for k in ranked:
        corners = corners_of(grids[k][0], n)
        if k in picked or seen_before(corners, [first], n=n):  # the same grid as the first
            continue
        if seen_before(corners, [first], APART, n):
            return [k]
    return []


def _on_start_discs(image: np.ndarray, orient: Orient | None, model: SquareModel,
                    made: list[StartFit], n: int = STANDARD) -> StartFit | None:
    """A grid guessed round the start discs (see
    :func:`controller.vision.calibrating.discs.disc_guesses`) that reads the start position
    on nearly every square: moved coarsely onto it (the guess follows the felt's
    edges, which can lie a little past the board's outer lines), as guessed, or, for
    the likeliest of those moved, moved all the way. Only a grid that reads it so is
    taken: in the dark pictures these guesses are for, the model confirms grids most
    of a square off that read the few squares they see as start squares. Failing
    that, of the grids fitted here, the one the model doubts least among those that
    read all four start discs in place with the model sure of the grid (see
    :func:`_discs_in_place`): a lamp's reflection or the dark leaves more than
    ``MAX_UNREAD`` squares unread on many a board's own grid."""
    moved = []
    start = len(made)
    for h in disc_guesses(image, n):
        coarse = settle_on_start(image, h, model, DISC_HEIGHT, SHORT_LOOKS, COARSE, n)
        for g in (coarse, h):
            if (fit := placed(image, g, orient, made, whole=True, n=n)) is not None:
                return fit
        moved.append(coarse)
    if not moved:
        return None
    likeliest = max(moved, key=lambda g: start_likelihood(image, g, model, DISC_HEIGHT, n))
    fit = placed(image, settle_on_start(image, likeliest, model, DISC_HEIGHT, n=n), orient,
                 made, whole=True, n=n)
    if fit is not None:
        return fit
    return least_doubted(image, made[start:], _discs_in_place)


def _discs_in_place(fit: StartFit, doubt: float) -> bool:
    """A grid guessed round the start discs (contradicting the start position
    nowhere: see :func:`least_doubted`) that reads all four of its discs in their
    colours and centred on their squares, and whose squares the learned model is
    sure of (``doubt`` under ``SURE``), though more than ``MAX_UNREAD`` squares are
    unread.

    Neither half is enough alone. In the dark pictures these guesses are for, the
    model confirms (doubt under ``CONFIRMED``) grids most of a square off that read
    the few squares they see as start squares; and a grid taking in a strip of the
    frame along one edge still reads the four discs centred. Demanding both, and
    the model sure rather than only confirming, kept every grid taken so on the
    project's own hard renders within half a square of the board: with the model
    only confirming, two of ten were 0.63 and 0.64 squares off."""
    return start_discs_right(fit.reading) == len(start_of(fit.setup.size).discs) and doubt < SURE


def _discs_placed(image: np.ndarray, made: list[StartFit]) -> StartFit | None:
    """Of all grids fitted, the one the model doubts least among those that
    contradict the start position nowhere, read at least ``PLACED_DISCS`` of its
    discs in their colours, and whose squares the model doubts under
    ``PLACED_DOUBT``: the last resort before a refusal.

    Under a lamp's reflection over the middle of the board, the board's own grid
    leaves too many squares unread to show the start position and the model's doubt
    rises past ``CONFIRMED``; taken on doubt alone, a grid two squares off the board
    passed as well. Three discs read in place rule that out: moved by whole squares,
    a grid's d4, e5, e4 and d5 land on squares of which at most one holds a disc of
    the colour the start position puts there, or two when the grid is read a
    quarter turn round (which swaps the discs' colours: the start position fixes
    the board's turn only so far)."""
    placed = [fit for fit in made if start_discs_right(fit.reading) >= PLACED_DISCS]
    return least_doubted(image, placed, lambda fit, doubt: doubt < PLACED_DOUBT)


def _closed(image: np.ndarray, made: list[StartFit]) -> StartFit | None:
    """The grid, among all fitted, that would be taken but for its edges as the
    rules see them, felt past one where the learned model, sure of the grid, sees
    no square of the board, or an edge's squares without felt in their corners where
    it sees the board's squares (see :func:`controller.vision.calibrating.fit.closable_edges`),
    the one whose squares the model doubts least.

    Asked only when the search took no grid: a grid a little off can show the same
    (the model is sure of squares a fifth of a square off), and the search, let
    run, often finds the one on the printed lines nearby."""
    closed = []
    for fit in made:
        edges, bare = closable_edges(fit, image)
        if edges or bare:
            closed.append(fit.closed(edges, bare))
    return least_doubted(image, closed,
                          lambda fit, doubt: shows_start(fit) or doubt < CONFIRMED)
