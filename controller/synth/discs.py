"""Discs for the synthetic renderer: where each one stands, its shadow, its picture.

A disc is a short cylinder, black on one face and white on the other, so its rim
shows the other colour; it is drawn as filled polygons, far discs first.
"""

from __future__ import annotations

import math

import numpy as np

from controller.boardsize import size_of_board_string
from controller.synth.camera import Camera
from controller.synth.textures import darken
from controller.vision.cv import cv2

#: Disc geometry in square widths (a 42 mm square, 35 mm disc, 5 mm thick).
DISC_RADIUS = 0.41
DISC_HEIGHT = 0.12
#: Distance of a shifted ('x'/'o') disc from its square's centre, in square widths.
SHIFT_RANGE = (0.25, 0.4)

_BLACK_TOP = np.array([30, 30, 33], dtype=np.float32)
_WHITE_TOP = np.array([226, 229, 231], dtype=np.float32)


def disc_offsets(board: str, seed: int, jitter: float,
                  shifts: dict[int, tuple[float, float]] | None) -> np.ndarray:
    """Where each disc stands relative to its square's centre.

    A shifted disc moves 0.25-0.4 of a square in the direction leaving the most room
    to its neighbours, so discs never overlap noticeably; the direction for a square
    depends only on the seed and the square, keeping a video's discs steady.
    """
    out = np.zeros((len(board), 2))
    size = size_of_board_string(board)
    occupied = [ch not in "-" for ch in board]
    for i, ch in enumerate(board):
        if ch in "XO" and jitter > 0:
            rng = np.random.default_rng([seed, 7, i])
            a = rng.uniform(0, 2 * np.pi)
            out[i] = rng.uniform(0, jitter) * np.array([math.cos(a), math.sin(a)])
    for i, ch in enumerate(board):
        if ch not in "xo":
            continue
        rng = np.random.default_rng([seed, 11, i])
        want = rng.uniform(*SHIFT_RANGE)
        r, c = divmod(i, size)
        neigh = []
        for dr in (-1, 0, 1):
            for dc in (-1, 0, 1):
                n = (r + dr) * size + c + dc
                if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size and occupied[n]:
                    neigh.append(np.array([dc, dr]) + out[n])
        out[i] = roomiest_shift(neigh, want, rng.uniform(0, 2 * np.pi))
    if shifts:
        for i, (dx, dy) in shifts.items():
            if not 0 <= i < len(board):
                raise ValueError(f"shifts: square index {i} is off the board")
            out[i] = (dx, dy)
    return out


def roomiest_shift(neigh: list[np.ndarray], want: float, start: float) -> np.ndarray:
    """The offset (of length at most ``want``, at least the shortest shift) that keeps
    the disc clear of its neighbours' centres, preferring the longest such offset."""
    clear = 2 * DISC_RADIUS + 0.005
    angles = start + np.arange(24) * (2 * np.pi / 24)
    lengths = np.linspace(want, SHIFT_RANGE[0], 6)
    dirs = np.column_stack([np.cos(angles), np.sin(angles)])
    cand = lengths[None, :, None] * dirs[:, None, :]  # (angle, length, 2)
    if not neigh:
        return cand[0, 0]
    nb = np.array(neigh)
    room = np.linalg.norm(cand[:, :, None, :] - nb[None, None], axis=-1).min(axis=-1)
    ok = room >= clear
    if ok.any():
        # Longest clear offset; among equals, the roomiest, then the first angle.
        score = np.where(ok, lengths[None, :] * 1000 + room, -1.0)
    else:
        score = room
    a, k = np.unravel_index(int(np.argmax(score)), score.shape)
    return cand[a, k]


def draw_discs(canvas: np.ndarray, cam: Camera, board: str, offsets: np.ndarray,
                light_dir: np.ndarray, glare: bool,
                sheen: tuple[float, np.ndarray, float] = (0.0, np.zeros(2), 1.0)) -> None:
    """Draw every disc as a two-coloured cylinder, far ones first.

    ``sheen`` is (strength, where on the board, spread in squares): a glossy disc
    mirrors the lamp, so black tops near that place turn grey, white ones whiter.
    """
    idx = [i for i, ch in enumerate(board) if ch != "-"]
    if not idx:
        return
    k = 36
    t = np.linspace(0, 2 * np.pi, k, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    size = size_of_board_string(board)
    centres = np.array([[i % size + 0.5, i // size + 0.5] for i in idx]) + offsets[idx]
    n = len(idx)
    pts = np.zeros((n, 6, k, 3))
    hl = -light_dir * 0.3 * DISC_RADIUS  # highlight sits towards the light
    levels = [(0.0, 1.0, 0), (DISC_HEIGHT * 0.5, 1.0, 0), (DISC_HEIGHT, 1.0, 0),
              (DISC_HEIGHT, 0.86, 0), (DISC_HEIGHT, 0.3, 1), (DISC_HEIGHT, 0.15, 1)]
    for j, (z, scale, off) in enumerate(levels):
        pts[:, j, :, :2] = centres[:, None, :] + ring[None] * DISC_RADIUS * scale + off * hl
        pts[:, j, :, 2] = z
    img = cam.project(pts.reshape(-1, 3)).reshape(n, 6, k, 2)
    depth = cam.depth(np.column_stack([centres, np.full(n, DISC_HEIGHT / 2)]))
    gloss = 1.0 if glare else 0.4
    strength, at, spread = sheen
    lift = strength * np.exp(-((centres - at) ** 2).sum(axis=1) / (2 * spread ** 2))
    for m in np.argsort(-depth):
        ch = board[idx[m]].upper()
        top = _BLACK_TOP if ch == "X" else _WHITE_TOP
        under = _WHITE_TOP if top is _BLACK_TOP else _BLACK_TOP
        if lift[m] > 0.005:
            top = top + (255 - top) * lift[m] * (1.0 if ch == "X" else 0.6)
        p = np.round(img[m] * 16).astype(np.int32)

        def poly(a: np.ndarray, colour: np.ndarray) -> None:
            hull = cv2.convexHull(a.reshape(-1, 2))
            cv2.fillConvexPoly(canvas, hull, colour.tolist(), cv2.LINE_AA, 4)

        poly(np.concatenate([p[0], p[1]]), under * 0.8)
        poly(np.concatenate([p[1], p[2]]), top * 0.72 + 6)
        poly(p[2], top * (1.12 if top is _BLACK_TOP else 0.97))
        poly(p[3], top)
        spot = top + (255 - top) * (0.12 * gloss)
        poly(p[4], top * 0.5 + spot * 0.5)
        poly(p[5], spot)


def disc_shadows(canvas: np.ndarray, cam: Camera, board: str, offsets: np.ndarray,
                  light_dir: np.ndarray, px: float) -> None:
    idx = [i for i, ch in enumerate(board) if ch != "-"]
    if not idx:
        return
    h, w = canvas.shape[:2]
    mask = np.zeros((h, w), dtype=np.uint8)
    t = np.linspace(0, 2 * np.pi, 28, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t), np.zeros_like(t)]) * (DISC_RADIUS * 1.05)
    size = size_of_board_string(board)
    centres = np.array([[i % size + 0.5, i // size + 0.5, 0.0] for i in idx])
    centres[:, :2] += offsets[idx] + light_dir * 0.07
    rings = np.round(cam.project(centres[:, None, :] + ring[None]) * 16).astype(np.int32)
    for p in rings:
        cv2.fillConvexPoly(mask, p, 255, cv2.LINE_AA, 4)
    darken(canvas, mask, 0.35, max(0.8, 0.06 * px))
