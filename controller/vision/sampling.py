"""Where to look for each square in the top-down warp.

A disc has height, so in an oblique view its top is displaced away from the camera;
the camera pose recovered from the homography says by how much and which way for
every square. Each square gets fixed pixel patterns, precomputed once per board
geometry, so reading a frame is one warp plus a few gathers.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.cv import cv2
from controller.vision.geometry import CameraPose, estimate_pose, top_offsets

CELL = 24  # pixels per square in the reading warp
MARGIN = 0.75  # squares of margin: far-row disc tops stick out past the edge

TOP_RADIUS = 0.26  # sample radius on a disc's top (disc radius is about 0.43)
BASE_RADIUS = 0.16
SQUARE_HALF = 0.40  # half-width of the window used for the felt's brightness
DISC_RADIUS = 0.43
RING_INNER, RING_OUTER = 0.5, 0.6  # around a top: the gap between neighbouring discs


def disc_pattern(radius_sq: float) -> np.ndarray:
    r = radius_sq * CELL
    n = int(np.ceil(r))
    ys, xs = np.mgrid[-n : n + 1, -n : n + 1]
    keep = xs * xs + ys * ys <= r * r
    return np.stack([ys[keep], xs[keep]], axis=1)


def _box_offsets(half_sq: float, step: int = 1) -> np.ndarray:
    n = int(round(half_sq * CELL))
    ys, xs = np.mgrid[-n : n + 1 : step, -n : n + 1 : step]
    return np.stack([ys.ravel(), xs.ravel()], axis=1)


def _annulus(inner: float, outer: float) -> np.ndarray:
    n = int(np.ceil(outer * CELL))
    ys, xs = np.mgrid[-n : n + 1, -n : n + 1]
    d = np.hypot(xs, ys) / CELL
    keep = (d >= inner) & (d <= outer)
    return np.stack([ys[keep], xs[keep]], axis=1)


def ring_pattern() -> np.ndarray:
    """Pixel offsets of the ring just outside a disc's top."""
    return _annulus(RING_INNER, RING_OUTER)


def _ring_offsets(inner: float, outer: float) -> np.ndarray:
    n = int(np.ceil(outer * CELL))
    ys, xs = np.mgrid[-n : n + 1, -n : n + 1]
    d = np.hypot(xs, ys) / CELL
    keep = (d > inner) & (np.abs(xs) <= outer * CELL) & (np.abs(ys) <= outer * CELL)
    return np.stack([ys[keep], xs[keep]], axis=1)


@dataclass(frozen=True)
class Layout:
    """Pixel patterns of the ``n`` x ``n`` squares in a canvas of ``side`` x ``side``
    pixels (each per-square array below has one row per square)."""

    to_canvas: np.ndarray  # image pixels -> canvas pixels
    side: int
    pose: CameraPose
    disc_height: float
    offsets: np.ndarray  # (squares, 2) board-plane offset of each disc top
    centres: np.ndarray  # (squares, 2) canvas (x, y) of square centres
    top: np.ndarray  # (squares, Kt) flat canvas indices
    base: np.ndarray  # (squares, Kb)
    square: np.ndarray  # (squares, Ks)
    corners: np.ndarray  # (squares, Kc) the felt in each square's corners, outside any disc
    ring: np.ndarray  # (squares, Kr) just outside each disc's top: felt or shade, never glare
    outside: np.ndarray  # (squares,) bools: part of the square lies outside the image
    on_board: np.ndarray  # (side * side,) bools: canvas pixels on the playing area
    n: int = STANDARD  # the board's columns and rows

    @property
    def squares(self) -> int:
        return self.n * self.n


def canvas_transform(n: int = STANDARD) -> tuple[np.ndarray, int]:
    t = np.array([[CELL, 0, MARGIN * CELL], [0, CELL, MARGIN * CELL], [0, 0, 1]], float)
    return t, int(round((n + 2 * MARGIN) * CELL))


def _gather(centres_px: np.ndarray, pattern: np.ndarray, side: int) -> np.ndarray:
    cy = np.rint(centres_px[:, 1]).astype(int)[:, None]
    cx = np.rint(centres_px[:, 0]).astype(int)[:, None]
    ys = np.clip(cy + pattern[None, :, 0], 0, side - 1)
    xs = np.clip(cx + pattern[None, :, 1], 0, side - 1)
    return ys * side + xs


def make_layout(
    h: np.ndarray,
    image_size: tuple[int, int],
    disc_height: float,
    pose: CameraPose | None = None,
    n: int = STANDARD,
) -> Layout:
    """Patterns for the homography ``h`` (squares -> pixels) of an ``n`` x ``n`` board
    in an image (w, h)."""
    w, hh = image_size
    if pose is None:
        pose = estimate_pose(h, w, hh, n)
    t, side = canvas_transform(n)
    to_canvas = t @ np.linalg.inv(h)
    ys, xs = np.mgrid[0:n, 0:n]
    centres_sq = np.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], axis=1).astype(float)
    offsets = top_offsets(pose, disc_height, n)
    centres = (centres_sq + MARGIN) * CELL
    tops = (centres_sq + offsets + MARGIN) * CELL
    # the visible body of a disc spans from its base to its top; sample the base
    # half-way so a neighbour's top never reaches the pattern
    bases = (centres_sq + 0.3 * offsets + MARGIN) * CELL
    corners = _ring_offsets(DISC_RADIUS + 0.1, 0.45)
    return Layout(
        to_canvas=to_canvas,
        side=side,
        pose=pose,
        disc_height=disc_height,
        offsets=offsets,
        centres=centres,
        top=_gather(tops, disc_pattern(TOP_RADIUS), side),
        base=_gather(bases, disc_pattern(BASE_RADIUS), side),
        square=_gather(centres, _box_offsets(SQUARE_HALF, 2), side),
        corners=_gather(centres, corners, side),
        ring=_gather(tops, _annulus(RING_INNER, RING_OUTER), side),
        outside=_outside_image(h, image_size, n),
        on_board=_on_board(side, n),
        n=n,
    )


def seen_through(layout: Layout, h: np.ndarray, image_size: tuple[int, int]) -> Layout:
    """``layout`` for grid ``h`` seen in the same pose (the grid moved along the
    board): the canvas and every pattern in it stay, only where the canvas comes
    from in the image and which squares the image's edge cuts change. The same as
    :func:`make_layout` with ``layout.pose``, for a fraction of its cost."""
    t, _ = canvas_transform(layout.n)
    return replace(layout, to_canvas=t @ np.linalg.inv(h),
                   outside=_outside_image(h, image_size, layout.n))


def _on_board(side: int, n: int) -> np.ndarray:
    """Canvas pixels over the playing area: a far-row disc's top seen past the
    board's edge overlaps the frame, whose colour is no hand."""
    lo, hi = MARGIN * CELL, (MARGIN + n) * CELL
    ax = (np.arange(side) >= lo) & (np.arange(side) < hi)
    return (ax[:, None] & ax[None, :]).ravel()


def _outside_image(h: np.ndarray, image_size: tuple[int, int], n: int) -> np.ndarray:
    """Squares whose inner part (where a disc and the felt around it are read)
    reaches past the image border: what is there cannot be seen, only guessed."""
    w, hh = image_size
    ys, xs = np.mgrid[0:n, 0:n]
    u = np.array([0.1, 0.5, 0.9])
    px = (xs.ravel()[:, None, None] + u[None, :, None]) * np.ones((1, 1, 3))
    py = (ys.ravel()[:, None, None] + u[None, None, :]) * np.ones((1, 3, 1))
    pts = np.stack([px.ravel(), py.ravel(), np.ones(px.size)], axis=1) @ h.T
    with np.errstate(divide="ignore", invalid="ignore"):
        x = pts[:, 0] / pts[:, 2]
        y = pts[:, 1] / pts[:, 2]
    bad = ~((x >= 0) & (x <= w - 1) & (y >= 0) & (y <= hh - 1) & (pts[:, 2] > 0))
    return bad.reshape(n * n, 9).any(axis=1)


def warp_to_canvas(image: np.ndarray, layout: Layout) -> np.ndarray:
    """The top-down canvas of ``layout`` that the squares are read from."""
    return cv2.warpPerspective(image, layout.to_canvas, (layout.side, layout.side),
                               flags=cv2.INTER_LINEAR)


def smoothed(canvas: np.ndarray) -> np.ndarray:
    """The canvas averaged 3 x 3: camera noise splits a dim felt into specks. The
    rules and the learned model both read this, and the model was trained on it."""
    return cv2.blur(canvas, (3, 3))
