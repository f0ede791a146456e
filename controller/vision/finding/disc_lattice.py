"""Placing a grid by the discs on it, where the printed lines do not show.

Late in a game a board can hold fifty discs or more; on a dark felt in a dim room
the thin grid lines between them are then lost, and the felt's outline, cut into
pieces by the discs along the edges, puts a corner half a square off. The discs
themselves still form the lattice: each stands in the middle of its square, its
top seen a little farther from the camera (:func:`top_offsets`). Each round finds
the disc-shaped blob of "not felt" nearest where the current grid puts a disc top,
and fits the grid to those that agree with one another.
"""

from __future__ import annotations

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.cv import cv2
from controller.vision.geometry import apply_homography, corners_of
from controller.vision.sampling import CELL, MARGIN, make_layout, smoothed, warp_to_canvas

DISC = 0.38  # squares: radius of the disc template, a little inside a disc's top
SEARCH = 0.35  # squares either way a disc top is looked for round where the grid puts it
MATCH = 0.5  # least correlation with the disc template that counts a disc there
MIN_DISCS = 12  # discs that must agree before they move the grid
AGREE = 0.2  # squares: a disc further than this from the others' lattice is left out
SETTLED = 0.05  # squares the corners may still move when the fit has settled


def _template() -> np.ndarray:
    """A filled disc in a square-wide window: felt round it, no neighbour."""
    r = int(round(0.5 * CELL))
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    return (np.hypot(xx, yy) <= DISC * CELL).astype(np.float32)


def _vertex(v: np.ndarray) -> float:
    """Sub-pixel offset of a peak from three samples round it (0 at an edge): a
    pixel of the reading canvas is a twenty-fourth of a square."""
    if len(v) != 3:
        return 0.0
    den = float(v[0] - 2 * v[1] + v[2])
    return float(np.clip(0.5 * (v[0] - v[2]) / den, -0.5, 0.5)) if den < 0 else 0.0


def not_felt(canvas: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """Per canvas pixel, how far its colour lies from the felt's (the median of the
    squares' corners, which no disc covers): black and white discs alike stand out,
    a black disc on a dark felt by its lack of the felt's hue."""
    lab = cv2.cvtColor(canvas, cv2.COLOR_BGR2LAB).reshape(-1, 3).astype(np.float32)
    at = corners.ravel()
    felt = np.median(lab[at], axis=0)
    d = np.linalg.norm(lab - felt, axis=1)
    return d.reshape(canvas.shape[:2]).astype(np.float32)


def refine_on_discs(image: np.ndarray, h: np.ndarray, disc_height: float,
                    rounds: int = 6, n: int = STANDARD) -> np.ndarray | None:
    """``h`` (board squares -> image pixels) moved onto the discs on the board, or
    None when too few discs agree on a lattice near it."""
    size = (image.shape[1], image.shape[0])
    template = _template()
    r = template.shape[0] // 2
    w = int(SEARCH * CELL)
    ys, xs = np.mgrid[0:n, 0:n]
    centres = np.stack([xs.ravel(), ys.ravel()], axis=1) + 0.5
    pose = make_layout(h, size, disc_height, n=n).pose  # held: each round's estimate jitters
    for _ in range(rounds):
        layout = make_layout(h, size, disc_height, pose, n)
        canvas = smoothed(warp_to_canvas(image, layout))
        match = cv2.matchTemplate(not_felt(canvas, layout.corners), template,
                                  cv2.TM_CCOEFF_NORMED)
        tops = centres + layout.offsets
        src, dst = [], []
        for sq in range(n * n):
            if layout.outside[sq]:
                continue
            x0, y0 = np.rint((tops[sq] + MARGIN) * CELL).astype(int) - r - w
            win = match[max(y0, 0) : y0 + 2 * w + 1, max(x0, 0) : x0 + 2 * w + 1]
            if win.size == 0:
                continue
            j, i = np.unravel_index(int(np.argmax(win)), win.shape)
            if win[j, i] < MATCH:
                continue
            x = max(x0, 0) + i + r + _vertex(win[j, i - 1 : i + 2])
            y = max(y0, 0) + j + r + _vertex(win[j - 1 : j + 2, i])
            src.append(tops[sq])
            dst.append((x / CELL - MARGIN, y / CELL - MARGIN))
        if len(src) < MIN_DISCS:
            return None
        square_px = float(np.linalg.norm(np.diff(corners_of(h, n)[:2], axis=0))) / n
        new_h, inliers = cv2.findHomography(
            np.array(src, np.float64), apply_homography(h, np.array(dst, np.float64)),
            cv2.RANSAC, AGREE * square_px)
        if new_h is None or int(inliers.sum()) < MIN_DISCS:
            return None
        new_h = new_h / new_h[2, 2]
        moved = float(np.abs(corners_of(new_h, n) - corners_of(h, n)).max())
        h = new_h
        if moved < SETTLED * square_px:
            return h
    return None  # still moving: the discs do not settle on one lattice
