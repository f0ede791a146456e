"""Which way round the board is, when the start discs' brightness cannot say.

The start position looks the same turned half a turn but not a quarter: the
diagonal holding the white discs fixes a1 up to half a turn. Calibration decides it
from the discs' brightness and checks it by reading them; under a lamp's reflection
over the middle all four can be unread while the grid is kept (it contradicts
nothing and the learned model confirms its squares), and then nothing has checked
the quarter turn. The learned model, which sees a disc's rim and shadow as well as
its top, can still see one disc's colour plainly there. Only a plain sight counts:
the model's likeliest class alone also names the colour of a reflection.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from controller.vision.calibrating.fit import StartFit, fit_start_position, turn
from controller.vision.calibrating.start_reading import SURE, model_view, start_of
from controller.vision.geometry import apply_homography
from controller.vision.reading.square_model import CLASSES

#: The model's probability of a disc's colour from which it settles the turn: as
#: sure as the bound of the other calls the model makes alone (doubt under ``SURE``).
PLAIN = 1.0 - SURE
#: Where the discs' own reading settled it, where the model did, and where nothing did.
BY_DISCS, BY_MODEL, UNSETTLED = "discs", "model", ""


@dataclass(frozen=True)
class Settled:
    """A fit turned the way the evidence says, and what said so."""

    fit: StartFit
    by: str
    #: the start discs whose colour the model saw plainly (when ``by`` is the model)
    seen: tuple[int, ...] = ()


def discs_read(fit: StartFit) -> bool:
    """Whether a start disc read in its colour (centred or not) settles the turn: a
    disc read in the other colour would have refused the fit."""
    s = start_of(fit.setup.size)
    return any(fit.reading.board[i].upper() == s.board[i] for i in s.discs)


def settle_turn(fit: StartFit, image: np.ndarray) -> Settled:
    """``fit`` (a1 not given by the user, no contradiction) turned a quarter when the
    learned model plainly sees a start disc in the colour the quarter turn puts there
    and none in the colour of the fit's own turn; kept when it sees only the latter.
    Unsettled when it sees neither, or both, or the turned grid contradicts the start
    position."""
    if discs_read(fit):
        return Settled(fit, BY_DISCS)
    reader = fit.setup.reader()
    view = model_view(reader, reader.warp(image))
    if view is None:
        return Settled(fit, UNSETTLED)
    s = start_of(fit.setup.size)
    seen = {i: view.probabilities[i] for i in s.discs if i in view.probabilities}
    own = [i for i, p in seen.items() if p[CLASSES.index(s.board[i])] >= PLAIN]
    other = [i for i, p in seen.items() if p[CLASSES.index(s.turned[i])] >= PLAIN]
    if own and not other:
        return Settled(fit, BY_MODEL, tuple(own))
    if other and not own:
        turned = fit_start_position(
            replace(fit.setup, homography=turn(fit.setup.homography, 1, fit.setup.size)),
            image, a1_fixed=True)
        if not turned.mismatches:
            # the same squares, named as the turned board names them
            named = [j for j in s.discs if _same_square(fit, turned, j, other)]
            return Settled(turned, BY_MODEL, tuple(named))
    return Settled(fit, UNSETTLED)


def _same_square(before: StartFit, after: StartFit, j: int, squares: list[int]) -> bool:
    """Whether ``after``'s square ``j`` is one of ``before``'s ``squares`` (the same
    patch of board under another labelling)."""
    n = after.setup.size
    seen = apply_homography(after.setup.homography, np.array([[j % n + 0.5, j // n + 0.5]]))
    x, y = apply_homography(np.linalg.inv(before.setup.homography), seen)[0]
    return int(y) * n + int(x) in squares
