"""Board-plane geometry: corner order, homographies, and where disc tops appear.

Board-plane coordinates are in square units: (0, 0) is the a1 corner of the playing
area, (n, n) the far corner of an n x n board (h8 on 8x8), x along the row (a..h),
y along the column (1..8).
Corners are always listed a1, h1, h8, a8.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.cv import cv2
from controller.vision.places import A1_PLACES


def board_corners(n: int = STANDARD) -> np.ndarray:
    """The playing area's corners a1, h1, h8, a8 (on 8x8) in square units."""
    return np.array([[0, 0], [n, 0], [n, n], [0, n]], dtype=np.float64)

DISC_HEIGHT = 0.13  # squares: a 5-6 mm disc on a 42 mm square


def homography_from_corners(corners: np.ndarray, n: int = STANDARD) -> np.ndarray:
    """Board plane (squares) -> image pixels, from the four corners a1, h1, h8, a8
    of an ``n`` x ``n`` board."""
    src = board_corners(n).astype(np.float32)
    dst = np.asarray(corners, dtype=np.float32).reshape(4, 2)
    return cv2.getPerspectiveTransform(src, dst).astype(np.float64)


def apply_homography(h: np.ndarray, points: np.ndarray) -> np.ndarray:
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    ph = np.hstack([pts, np.ones((len(pts), 1))]) @ h.T
    return ph[:, :2] / ph[:, 2:3]


def corners_of(h: np.ndarray, n: int = STANDARD) -> np.ndarray:
    return apply_homography(h, board_corners(n))


def upright_order(quad: np.ndarray) -> np.ndarray:
    """Order a quadrilateral so that, turned to the nearest upright orientation,
    corner 0 is top-left and the order runs clockwise on screen (a1, h1, h8, a8).

    This is the orientation ``kaeshi recognize`` reports without a calibration.
    """
    q = np.asarray(quad, dtype=np.float64).reshape(4, 2)
    centre = q.mean(axis=0)
    ang = np.arctan2(q[:, 1] - centre[1], q[:, 0] - centre[0])
    q = q[np.argsort(ang)]  # clockwise on screen (y points down)
    best, best_err = 0, np.inf
    for k in range(4):
        r = np.roll(q, -k, axis=0)
        # the direction a1 -> h1 averaged with a8 -> h8 should point right
        d = (r[1] - r[0]) + (r[2] - r[3])
        err = abs(np.arctan2(d[1], d[0]))
        if err < best_err:
            best, best_err = k, err
    return np.roll(q, -best, axis=0)


def place_a1(upright: np.ndarray, a1: str) -> np.ndarray:
    """Relabel an upright-ordered quad so that a1 is the named image corner.

    The board is then read with columns running clockwise from a1, as seen from the
    player who has a1 at their left hand.
    """
    if a1 not in A1_PLACES:
        raise ValueError(f"--a1 must be one of {', '.join(A1_PLACES)}, not {a1!r}")
    k = A1_PLACES.index(a1)
    return np.roll(np.asarray(upright).reshape(4, 2), -k, axis=0)


def moved_by_squares(h: np.ndarray, dx: float, dy: float) -> np.ndarray:
    """Grid ``h`` moved ``dx`` squares along its rows and ``dy`` along its files: the
    grid a whole square (or more) off that a lattice fits as well as the right one."""
    return h @ np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], float)


def grid_with_a1(h: np.ndarray, a1: str, n: int = STANDARD) -> np.ndarray:
    """Board homography ``h`` relabelled so that a1 is the named image corner."""
    return homography_from_corners(place_a1(upright_order(corners_of(h, n)), a1), n)


def a1_place(h: np.ndarray, n: int = STANDARD) -> str:
    """Which image corner (as ``--a1`` names them) the homography puts a1 at."""
    corners = corners_of(h, n)
    upright = upright_order(corners)
    k = int(np.argmin(np.linalg.norm(upright - corners[0], axis=1)))
    return A1_PLACES[k]


@dataclass(frozen=True)
class CameraPose:
    """Where the camera stands over the board, in square units (z: height)."""

    focal: float
    centre: np.ndarray  # (x, y, z) in board units, z > 0 toward the camera
    tilt_deg: float


def estimate_pose(h: np.ndarray, width: int, height: int, n: int = STANDARD) -> CameraPose:
    """Recover focal length and camera position from the plane homography.

    Assumes square pixels and the principal point at the image centre, which holds
    well enough for webcams and phones; the focal length comes from the two
    orthogonality constraints of the rotation, with a typical-lens fallback when
    the view is too frontal for them to be measurable.
    """
    cx, cy = width / 2.0, height / 2.0
    t = np.array([[1, 0, -cx], [0, 1, -cy], [0, 0, 1]], dtype=np.float64)
    hp = t @ h
    hp = hp / np.linalg.norm(hp[:, 2])
    a1, b1, c1 = hp[:, 0]
    a2, b2, c2 = hp[:, 1]
    estimates = []
    if abs(c1 * c2) > 1e-12:
        f2 = -(a1 * a2 + b1 * b2) / (c1 * c2)
        if f2 > 0:
            estimates.append(f2)
    den = c2 * c2 - c1 * c1
    if abs(den) > 1e-12:
        f2 = (a1 * a1 + b1 * b1 - a2 * a2 - b2 * b2) / den
        if f2 > 0:
            estimates.append(f2)
    default = 0.9 * max(width, height)
    f = float(np.sqrt(np.median(estimates))) if estimates else default
    if not (0.3 * max(width, height) < f < 5 * max(width, height)):
        f = default
    kinv = np.diag([1 / f, 1 / f, 1.0])
    m = kinv @ hp
    lam = 2.0 / (np.linalg.norm(m[:, 0]) + np.linalg.norm(m[:, 1]))
    r1, r2, tr = m[:, 0] * lam, m[:, 1] * lam, m[:, 2] * lam
    if tr[2] < 0:
        r1, r2, tr = -r1, -r2, -tr
    r3 = np.cross(r1, r2)
    rot = np.stack([r1, r2, r3], axis=1)
    u, _, vt = np.linalg.svd(rot)
    rot = u @ vt
    c = -rot.T @ tr
    if c[2] < 0:
        c = np.array([c[0], c[1], -c[2]])
    horiz = np.hypot(c[0] - n / 2, c[1] - n / 2)
    tilt = float(np.degrees(np.arctan2(horiz, c[2])))
    return CameraPose(focal=f, centre=c, tilt_deg=tilt)


def top_offsets(pose: CameraPose, disc_height: float, n: int = STANDARD) -> np.ndarray:
    """(squares, 2) board-plane offsets from each square's centre to where its disc's top
    appears: a point at height ``disc_height`` seen along the camera ray lands
    farther from the camera's foot point than the point below it.
    """
    cx, cy, cz = pose.centre
    ys, xs = np.mgrid[0:n, 0:n]
    p = np.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], axis=1).astype(np.float64)
    hz = min(disc_height, 0.9 * cz)
    s = hz / (cz - hz)
    return s * (p - np.array([cx, cy]))


def aligned_grid(h: np.ndarray, corners: np.ndarray, n: int = STANDARD) -> np.ndarray:
    """Grid ``h`` relabelled so that its corners are nearest ``corners``, in order:
    the same board found again keeps its a1 where it was."""
    found = corners_of(h, n)
    t = np.asarray(corners, dtype=np.float64)
    candidates = [np.roll(found, -k, axis=0) for k in range(4)]
    candidates += [np.roll(found[::-1], -k, axis=0) for k in range(4)]
    return homography_from_corners(min(candidates, key=lambda c: float(np.abs(c - t).max())), n)
