"""Calibration through a dim room's noise: the search run again on a quieter copy.

A camera in a dim room scatters each pixel by several grey levels, and the colour
tests behind every guess at the board work pixel by pixel: the felt's outline
frays, the squares' corners read as neither felt nor anything else, and the search
(:func:`controller.vision.startsearch.fit_on_start`) finds no grid that reads the
start position. On a copy with the noise averaged away (see
:mod:`controller.vision.denoise`) the same search often does. The copy only offers
the grid: it is judged on the picture itself, as any grid the search moves is
(:func:`controller.vision.startjudge.taken`), and the levels are fitted on what the
camera sees, which is what the reader will read in play.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from controller.vision.denoise import NOISY, noise_level, smoothed
from controller.vision.finder import BoardNotFound
from controller.vision.grid import refine_on_grid
from controller.vision.startfit import StartFit
from controller.vision.startjudge import Orient, fit_grid, taken
from controller.vision.startreading import START_DISCS, start_discs_right
from controller.vision.startsearch import fit_on_start, wrong_discs_on_board

#: What a caller hears before the second search.
SMOOTHING = ("the picture is noisy (its pixels scatter by about {noise:.0f} grey levels, as a "
             "camera's do in a dim room): searching again on a copy with the noise smoothed "
             "away, which takes as long again; more light helps more")


def fit_through_noise(image: np.ndarray, orient: Orient | None = None,
                      searching: Callable[[str], None] | None = None) -> StartFit:
    """The calibration fit on the start position shown in ``image``: the search's
    (see :func:`controller.vision.startsearch.fit_on_start`, whose ``orient`` and
    ``searching`` these are), raising :class:`BoardNotFound` as it does, unless it
    refuses a noisy picture (``NOISY``) and the search on the quiet copy finds a
    grid the picture itself takes (:func:`_found_when_smoothed`).

    A refusal on the board's own grid naming a wrong start disc
    (:func:`controller.vision.startsearch.wrong_discs_on_board`) is final: the
    set-up is what is wrong, and a second search could only find a grid that misses
    the disc. The second search doubles a refused noisy picture's time, so
    ``searching`` is told before it as well."""
    fit: StartFit | None = None
    missing: BoardNotFound | None = None
    try:
        fit = fit_on_start(image, orient, searching)
    except BoardNotFound as exc:
        missing = exc
    if fit is not None and not fit.mismatches:
        return fit
    noise = noise_level(image)
    if noise >= NOISY and (fit is None or not wrong_discs_on_board(image, fit)):
        if searching is not None:
            searching(SMOOTHING.format(noise=noise))
        found = _found_when_smoothed(image, smoothed(image, noise), orient)
        if found is not None:
            return found
    if missing is not None:
        raise missing
    assert fit is not None
    return fit


def _found_when_smoothed(image: np.ndarray, quiet: np.ndarray,
                         orient: Orient | None) -> StartFit | None:
    """The grid the search takes on ``quiet`` (``image`` without its noise), or the
    same put on ``image``'s own printed lines, fitted on ``image`` when it takes
    it there; None when it does not, or the search takes none.

    Both pictures must read all four start discs in their colours, which the
    search alone does not ask: it excuses a disc left unread under a lamp, and a
    disc missing or of the wrong colour in a noisy picture reads ``?`` as often,
    on a grid the copy offers that the search on the picture never tried."""
    try:
        fit = fit_on_start(quiet, orient)
    except BoardNotFound:
        return None
    if fit.mismatches or not _all_discs(fit):
        return None
    h = fit.setup.homography
    for grid in (h, refine_on_grid(image, h)[0]):  # h sits on the copy's lines
        on_image = fit_grid(image, grid, orient, [])
        if _all_discs(on_image) and taken(image, on_image):
            return on_image
    return None


def _all_discs(fit: StartFit) -> bool:
    return start_discs_right(fit.reading) == len(START_DISCS)
