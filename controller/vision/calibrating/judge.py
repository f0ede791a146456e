"""One grid on the start position, fitted and judged: what the calibration search
asks of every grid it tries, moves or guesses.

A grid is taken at once when it reads the start position on nearly every square;
one that contradicts the start position nowhere but leaves many squares unread (a
lamp's reflection, the dark) is taken only when the learned model confirms its
squares are the board's. The search (:mod:`controller.vision.calibrating.search`) decides
which grids to ask about and in what order; these rules are the same for all.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.calibrating.fit import StartFit, fit_start_position
from controller.vision.finding.finder import squares_doubt
from controller.vision.finding.grid import refine_on_grid
from controller.vision.finding.grid_check import CONFIRMED
from controller.vision.pipeline import setup_on_grid

#: A grid must read nearly every square to be taken at once: one whose squares
#: mostly read ``?`` contradicts nothing, but shows no start position either.
MAX_UNREAD = 8

#: Turns a found grid so that its a1 is the user's.
Orient = Callable[[np.ndarray], np.ndarray]


def fit_grid(image: np.ndarray, h: np.ndarray, orient: Orient | None,
             made: list[StartFit], n: int = STANDARD) -> StartFit:
    """The start position fitted on grid ``h`` of an ``n`` x ``n`` board (turned to
    the user's a1 by ``orient``), kept in ``made``: the last resorts look again at
    every grid fitted."""
    setup = setup_on_grid(image, orient(h) if orient is not None else h, n=n)
    fit = fit_start_position(setup, image, a1_fixed=orient is not None)
    made.append(fit)
    return fit


def shows_start(fit: StartFit) -> bool:
    """Reads the start position, on nearly every square: the finder's grid with
    most squares unread (glare, a grid hanging past the picture) contradicts
    nothing either, but is kept only when no other grid shows more."""
    return not fit.mismatches and len(fit.unknown) <= MAX_UNREAD


def taken(image: np.ndarray, fit: StartFit) -> bool:
    """A moved grid is taken as any other: reading the start position on nearly
    every square, or contradicting it nowhere with squares the model confirms."""
    return shows_start(fit) or recognised_start(image, [fit]) is not None


def placed(image: np.ndarray, h: np.ndarray, orient: Orient | None,
           made: list[StartFit], whole: bool = False, n: int = STANDARD) -> StartFit | None:
    """Grid ``h``, or the same put on the printed lines where they show, when either
    is taken (see :func:`taken`; ``whole``: only when it reads the start position on
    nearly every square).

    The model's look puts a grid within reach of the printed lines, which place it
    more exactly where they show: a grid a third of a square off sees the felt go on
    past an edge, which the one on the lines does not."""
    refit = refine_on_grid(image, h, n=n)[0]  # h itself where no lines show
    for grid in (refit, h) if refit is not h else (h,):
        fit = fit_grid(image, grid, orient, made, n)
        if shows_start(fit) if whole else taken(image, fit):
            return fit
    return None


def recognised_start(image: np.ndarray, tried: list[StartFit]) -> StartFit | None:
    """The grid whose squares the learned model recognises best, among those that
    contradict the start position nowhere but leave more than ``MAX_UNREAD``
    squares unread (a lamp's reflection over a quarter of the board): the squares
    it does read, each a disc or felt centred in its square, confirm it when the
    model doubts them little, which a grid a fraction of a square off, or taking
    in the frame, does not earn. None when no grid is confirmed so."""
    return least_doubted(image, tried, lambda fit, doubt: doubt < CONFIRMED)


def least_doubted(image: np.ndarray, fits: list[StartFit],
                  kept_if: Callable[[StartFit, float], bool]) -> StartFit | None:
    """Of ``fits`` that contradict the start position nowhere, the one whose squares
    the learned model doubts least among those ``kept_if`` keeps (asked with that
    doubt; the first of equals): each fit's doubt, a look at its squares,
    measured once."""
    doubted = [(grid_doubt(image, fit), fit) for fit in fits if not fit.mismatches]
    kept = [(doubt, fit) for doubt, fit in doubted if kept_if(fit, doubt)]
    return min(kept, key=lambda pair: pair[0])[1] if kept else None


def grid_doubt(image: np.ndarray, fit: StartFit) -> float:
    """How much the model doubts that the fit's grid's squares are the board's
    (squares outside the picture wholly)."""
    doubt = squares_doubt(image, fit.setup.homography, cut_off=True, n=fit.setup.size)
    return 1.0 if doubt is None else doubt
