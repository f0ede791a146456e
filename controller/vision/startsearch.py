"""Calibration's board finding: the grid on which the start position reads.

Finding a board with no help has to guess among the outlines its cues offer (the
felt's, the lattice's, grown and shrunk), and on a hard picture the guess can be
half the board, a board and its frame, or nothing at all. Calibration knows more:
the board shows the start position, four discs in the middle and sixty empty
squares, with felt stopping at all four edges. A grid that reads exactly that is
the board (a grid a square or more off moves the discs; one too large or too small
sees the felt end inside it or go on past it), so when the finder's choice does not
read it, or the finder chose none, every other grid the cues offered is tried, the
learned model's least doubted first.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from controller.vision.finder import BoardNotFound, board_grids
from controller.vision.pipeline import found_grid, setup_on_grid
from controller.vision.startfit import StartFit, fit_start_position

#: Grids tried after the finder's own choice; each costs a start fit (tens of ms).
MAX_TRIES = 12
#: A grid must read nearly every square to be taken at once: one whose squares
#: mostly read ``?`` contradicts nothing, but shows no start position either.
MAX_UNREAD = 8

#: Turns a found grid so that its a1 is the user's.
Orient = Callable[[np.ndarray], np.ndarray]


def fit_on_start(image: np.ndarray, orient: Orient | None = None) -> StartFit:
    """The calibration fit on the start position shown in ``image``.

    ``orient`` None: the start position decides which way round the board is (up
    to half a turn). Raises :class:`BoardNotFound` only when no grid reads the start
    position and the finder found no board; when grids were found but none reads it,
    the finder's is returned, its contradictions telling the user what is wrong.
    """
    first: StartFit | None = None
    try:
        h, _ = found_grid(image)
    except BoardNotFound as exc:
        missing = exc
    else:
        first = _fit(image, h, orient)
        if _shows_start(first):
            return first
    for h in board_grids(image)[:MAX_TRIES]:
        fit = _fit(image, h, orient)
        if _shows_start(fit):
            return fit
    if first is None:
        raise missing
    return first


def _shows_start(fit: StartFit) -> bool:
    """Reads the start position, on nearly every square: the finder's grid with
    most squares unread (glare, a grid hanging past the picture) contradicts
    nothing either, but is kept only when no other grid shows more."""
    return not fit.mismatches and len(fit.unknown) <= MAX_UNREAD


def _fit(image: np.ndarray, h: np.ndarray, orient: Orient | None) -> StartFit:
    setup = setup_on_grid(image, orient(h) if orient is not None else h)
    return fit_start_position(setup, image, a1_fixed=orient is not None)
