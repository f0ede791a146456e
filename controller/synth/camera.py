"""A pinhole camera over the board, in board units (one square = 1).

The board plane is z = 0 with x along the columns (a..h) and y along the rows
(1..8); the playing area is the square [0, 8] x [0, 8], a1's outer corner at the
origin, and z points up from the board towards the camera. Keeping the renderer in
these units means every piece of ground truth (square centres, disc bases, the hand's
footprint) is exact arithmetic rather than something recovered from pixels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from controller.boardsize import STANDARD


@dataclass(frozen=True)
class Camera:
    """World-to-image projection: ``K @ R @ (P - C)``."""

    K: np.ndarray
    R: np.ndarray
    C: np.ndarray

    def to_camera(self, pts: np.ndarray) -> np.ndarray:
        return (np.asarray(pts, dtype=np.float64).reshape(-1, 3) - self.C) @ self.R.T

    def depth(self, pts: np.ndarray) -> np.ndarray:
        return self.to_camera(pts)[:, 2]

    def project(self, pts: np.ndarray) -> np.ndarray:
        """(..., 3) world points to (..., 2) pixel coordinates."""
        pts = np.asarray(pts, dtype=np.float64)
        cam = self.to_camera(pts) @ self.K.T
        z = np.maximum(cam[:, 2:3], 1e-9)
        return (cam[:, :2] / z).reshape(*pts.shape[:-1], 2)

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """3x3 map from (x, y) on the plane at height ``z`` to pixels."""
        t = -self.R @ self.C
        m = np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + t])
        h = self.K @ m
        return h / h[2, 2]


def _rotation(tilt_deg: float, view_from_deg: float, roll_deg: float) -> np.ndarray:
    """Rows: image-right, image-down and viewing direction, in world coordinates.

    The camera leans ``tilt_deg`` away from straight down, towards the side of the
    board given by ``view_from_deg`` (0 = the row-8 edge, so that edge is nearest and
    lowest in the image; 90 = the a-file edge). Image-right is kept as close to the
    board's x axis as possible, so the board stays upright before the roll.
    """
    t, a, r = (math.radians(v) for v in (tilt_deg, view_from_deg, roll_deg))
    away = np.array([-math.sin(a) * math.sin(t), math.cos(a) * math.sin(t), math.cos(t)])
    fwd = -away
    x = np.array([1.0, 0.0, 0.0])
    right = x - (x @ fwd) * fwd
    if np.linalg.norm(right) < 1e-6:  # looking along the x axis: fall back to y
        y = np.array([0.0, 1.0, 0.0])
        right = np.cross(y, fwd)
    right /= np.linalg.norm(right)
    down = np.cross(right, fwd)
    # Rolling the image counter-clockwise (as displayed) by r.
    right2 = math.cos(r) * right + math.sin(r) * down
    down2 = -math.sin(r) * right + math.cos(r) * down
    return np.vstack([right2, down2, fwd])


def board_outline(n: int = STANDARD, grown: float = 0.0) -> np.ndarray:
    """The playing area's corners a1, h1, h8, a8 (on 8x8) on the table's plane, grown
    by ``grown`` squares each way."""
    lo, hi = -grown, n + grown
    return np.array([[lo, lo, 0], [hi, lo, 0], [hi, hi, 0], [lo, hi, 0]], dtype=np.float64)


def make_camera(
    width: int,
    height: int,
    tilt_deg: float,
    view_from_deg: float,
    roll_deg: float,
    distance: float,
    board_fraction: float,
    offset: tuple[float, float] = (0.0, 0.0),
    overhang: float = 0.0,
    n: int = STANDARD,
) -> Camera:
    """Aim a camera at the board centre and zoom so the playing area fills
    ``board_fraction`` of the image along its tighter dimension.

    ``offset`` moves the board off the image centre, as a fraction (-1..1) of the
    slack left on each axis; ``overhang`` pushes it on past the image's edge by
    that share of its size, in the direction of ``offset`` (a webcam that cuts
    off part of the board).
    """
    if not 0.0 <= tilt_deg < 80.0:
        raise ValueError(f"tilt_deg must be in [0, 80), not {tilt_deg}")
    if distance <= 0:
        raise ValueError(f"camera distance must be positive, not {distance}")
    if not 0.05 <= board_fraction <= 1.5:
        raise ValueError(f"board_fraction must be in [0.05, 1.5], not {board_fraction}")
    R = _rotation(tilt_deg, view_from_deg, roll_deg)
    C = np.array([n / 2, n / 2, 0.0]) - R[2] * distance  # aimed at the board's centre
    unit = Camera(np.eye(3), R, C)
    corners = board_outline(n)
    outer = board_outline(n, 1.0)
    if unit.depth(outer).min() < 0.3 * distance:
        raise ValueError(f"camera too close ({distance} squares) for a {tilt_deg} degree tilt: "
                         "part of the board would be beside or behind it")
    p = unit.project(corners)
    lo, hi = p.min(axis=0), p.max(axis=0)
    span = hi - lo
    f = board_fraction * min(width / span[0], height / span[1])
    slack = np.array([width, height]) - f * span
    want_centre = np.array([width, height]) / 2.0 + np.clip(offset, -1, 1) * np.maximum(
        slack, 0.0
    ) / 2.0
    want_centre += overhang * f * span * np.sign(np.asarray(offset, dtype=np.float64))
    c = want_centre - f * (lo + hi) / 2.0
    K = np.array([[f, 0.0, c[0]], [0.0, f, c[1]], [0.0, 0.0, 1.0]])
    return Camera(K, R, C)
