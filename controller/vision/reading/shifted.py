"""Finding where a disc really stands when it is not clearly centred on its square.

A disc top is a circle of non-felt pixels. Filtering the non-felt mask with a disc
smaller than a top gives, at every point, how completely such a circle fits there;
the points where it fits completely form a small plateau around the true top
(stretched toward the camera by the disc's side in oblique views). The plateau
nearest a square's expected top tells where that disc stands, and so whether it
is the square's own disc, shifted off centre, or a neighbour's leaning in.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from controller.vision.cv import cv2
from controller.vision.sampling import CELL, MARGIN

FIT_RADIUS = 0.28  # squares; a top's radius is about 0.41
FULL_FIT = 0.9  # share of the fitted circle that must be disc
WINDOW = 0.75  # squares searched around the expected top
SCALE = 1  # resolution divisor of the fit map


@dataclass(frozen=True)
class DiscFit:
    base: np.ndarray  # (2,) board-plane position of the disc's base
    top_px: tuple[int, int]  # canvas (x, y) of its top
    fit: float


def fit_map(felt2d: np.ndarray) -> np.ndarray:
    """How completely a disc of radius FIT_RADIUS fits at each half-resolution point."""
    small = cv2.resize(
        (~felt2d).astype(np.float32), None, fx=1 / SCALE, fy=1 / SCALE,
        interpolation=cv2.INTER_AREA,
    )
    r = FIT_RADIUS * CELL / SCALE
    n = int(np.ceil(r))
    ys, xs = np.mgrid[-n : n + 1, -n : n + 1]
    kernel = (xs * xs + ys * ys <= r * r).astype(np.float32)
    kernel /= kernel.sum()
    return cv2.filter2D(small, -1, kernel, borderType=cv2.BORDER_CONSTANT)


def locate_disc(fmap: np.ndarray, expected_top: np.ndarray, offset: np.ndarray) -> DiscFit | None:
    """The disc whose top fits nearest ``expected_top`` (canvas px), or None.

    ``offset`` is the board-plane displacement of a top from its base there.
    """
    side = fmap.shape[0]
    cx, cy = expected_top / SCALE
    w = WINDOW * CELL / SCALE
    x0, x1 = max(0, int(cx - w)), min(side, int(cx + w) + 1)
    y0, y1 = max(0, int(cy - w)), min(side, int(cy + w) + 1)
    if x1 <= x0 or y1 <= y0:
        return None
    win = fmap[y0:y1, x0:x1]
    ys, xs = np.mgrid[y0:y1, x0:x1]
    dist = np.hypot(xs - cx, ys - cy) / (CELL / SCALE)
    fits = win >= FULL_FIT
    if not fits.any():
        return None
    # the fitting place nearest the expected top, then the best fit around it: a
    # neighbour's disc fitting a little better further away is not this square's
    k = int(np.argmin(np.where(fits, dist, np.inf)))
    py, px = ys.ravel()[k], xs.ravel()[k]
    around = np.hypot(xs - px, ys - py) <= 0.35 * CELL / SCALE
    k = int(np.argmax(np.where(around, win, -1.0)))
    py, px = ys.ravel()[k], xs.ravel()[k]
    best = float(win.ravel()[k])
    near = (np.hypot(xs - px, ys - py) <= 0.35 * CELL / SCALE) & (win >= min(best, 0.97) - 0.03)
    if not near.any():
        return None
    tx = float(xs[near].mean()) * SCALE
    ty = float(ys[near].mean()) * SCALE
    top_board = np.array([tx, ty]) / CELL - MARGIN
    base = top_board - 0.5 * offset
    return DiscFit(base=base, top_px=(int(round(tx)), int(round(ty))), fit=float(win[near].mean()))
