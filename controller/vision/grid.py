"""Pinning the homography to the grid lines printed on the felt.

The outline of the green area is only as good as the felt's edge; the grid is what
the squares are actually defined by. In a top-down warp the interior grid lines are
thin dark stripes; each of the 14 is fitted as a straight line from the stretches
discs leave visible, and their 49 crossings give a new homography.
"""

from __future__ import annotations

import numpy as np

from controller.vision.colour import ColourModel
from controller.vision.cv import cv2

CELL = 40  # pixels per square in the refinement warp
MARGIN = 0.5  # squares of margin around the playing area
SETTLED = 0.01  # squares a round may still move the corners when the grid fit has settled


def _canvas(h: np.ndarray) -> tuple[np.ndarray, int]:
    """Board squares -> canvas pixels, and the canvas side."""
    t = np.array([[CELL, 0, MARGIN * CELL], [0, CELL, MARGIN * CELL], [0, 0, 1]], float)
    side = int(round((8 + 2 * MARGIN) * CELL))
    return t, side


def line_evidence(warped: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-pixel evidence of vertical and horizontal grid lines.

    A grid line is a thin stripe darker than the felt, with felt on both sides of it
    a little way off across the line. The rim of a disc has felt on one side only
    and the felt between two white discs has discs on both sides, so neither counts.
    """
    hsv = cv2.cvtColor(warped, cv2.COLOR_BGR2HSV)
    felt = ColourModel().felt(hsv)
    v = hsv[..., 2]
    k = max(3, int(CELL * 0.3)) | 1
    dark_v = cv2.morphologyEx(v, cv2.MORPH_BLACKHAT, np.ones((1, k), np.uint8))
    dark_h = cv2.morphologyEx(v, cv2.MORPH_BLACKHAT, np.ones((k, 1), np.uint8))
    level = float(np.median(v[felt])) if felt.any() else 60.0
    thr = max(3.0, 0.15 * level)
    both_x = np.zeros_like(felt)
    both_y = np.zeros_like(felt)
    for d in (3, 4):
        both_x[:, d:-d] |= felt[:, : -2 * d] & felt[:, 2 * d :]
        both_y[d:-d, :] |= felt[: -2 * d, :] & felt[2 * d :, :]
    vert = ((dark_v > thr) & both_x).astype(np.float32) * 255
    horz = ((dark_h > thr) & both_y).astype(np.float32) * 255
    return vert, horz


def _fit_lines(evidence: np.ndarray, axis: int, expected: np.ndarray) -> list[np.ndarray | None]:
    """Fit ``pos = a + b * t`` for each expected stripe position along ``axis``."""
    thr = 127.0
    ys, xs = np.nonzero(evidence > thr)
    w = evidence[ys, xs]
    pos, t = (xs, ys) if axis == 0 else (ys, xs)
    lines: list[np.ndarray | None] = []
    for e in expected:
        sel = np.abs(pos - e) < 0.25 * CELL
        if sel.sum() < CELL:  # less than about one square's length of visible line
            lines.append(None)
            continue
        p, tt, ww = pos[sel].astype(float), t[sel].astype(float), w[sel]
        coef = None
        for _ in range(3):
            a = np.stack([np.ones_like(tt), tt], axis=1) * ww[:, None]
            coef, *_ = np.linalg.lstsq(a, p * ww, rcond=None)
            resid = np.abs(p - (coef[0] + coef[1] * tt))
            keep = resid < max(2.0, 2.5 * np.median(resid))
            p, tt, ww = p[keep], tt[keep], ww[keep]
            if len(p) < CELL // 2:
                break
        drift = abs(coef[0] + coef[1] * 4.5 * CELL - e) if coef is not None else 0.0
        if coef is None or abs(coef[1]) > 0.15 or drift > 0.2 * CELL:
            lines.append(None)
        else:
            lines.append(coef)
    return lines


def grid_coverage(image: np.ndarray, h: np.ndarray) -> float:
    """Share of the 14 inner grid lines' length where a line is actually seen.

    Discs hide part of the lines, but on the right board most of every line shows;
    an outline that is off by a row or that spans a table cloth sees far less.
    """
    t, side = _canvas(h)
    warped = cv2.warpPerspective(image, t @ np.linalg.inv(h), (side, side))
    vert, horz = line_evidence(warped)
    k = np.ones((1, 5), np.uint8)
    vert = cv2.dilate(vert, k)
    horz = cv2.dilate(horz, k.T)
    along = ((MARGIN + np.linspace(0.05, 7.95, 80)) * CELL).astype(int)
    at = ((MARGIN + np.arange(1, 8)) * CELL).astype(int)
    v = vert[along[:, None], at[None, :]] > 0
    hz = horz[at[:, None], along[None, :]] > 0
    return float((v.mean() + hz.mean()) / 2)


def refine_on_grid(image: np.ndarray, h: np.ndarray, rounds: int = 8) -> tuple[np.ndarray, float]:
    """Improve ``h`` (board squares -> image) on the printed grid; returns it and a score.

    Each round fits the lines seen near where the current estimate expects them, so
    a rough outline (a steep view, a far edge squeezed into few pixels) moves only
    part of the way per round: rounds go on until the corners stay put.
    """
    t, side = _canvas(h)
    score = 0.0
    for _ in range(rounds):
        to_canvas = t @ np.linalg.inv(h)
        warped = cv2.warpPerspective(image, to_canvas, (side, side), flags=cv2.INTER_LINEAR)
        vert, horz = line_evidence(warped)
        expected = (MARGIN + np.arange(1, 8)) * CELL
        vl = _fit_lines(vert, 0, expected)
        hl = _fit_lines(horz, 1, expected)
        src, dst = [], []
        for i, v in enumerate(vl):
            for j, hh in enumerate(hl):
                if v is None or hh is None:
                    continue
                # x = v0 + v1*y ; y = h0 + h1*x
                x = (v[0] + v[1] * hh[0]) / (1 - v[1] * hh[1])
                y = hh[0] + hh[1] * x
                src.append((i + 1, j + 1))
                dst.append((x, y))
        nv = sum(v is not None for v in vl)
        nh = sum(v is not None for v in hl)
        score = (nv + nh) / 14.0
        if nv < 3 or nh < 3:
            return h, score
        src_a = np.array(src, np.float64)
        dst_a = np.array(dst, np.float64)
        canvas_h, _ = cv2.findHomography(src_a, dst_a, 0)
        if canvas_h is None:
            return h, score
        new_h = np.linalg.inv(to_canvas) @ canvas_h
        new_h /= new_h[2, 2]
        moved = float(np.abs(_board_corners(new_h) - _board_corners(h)).max())
        h = new_h
        if moved < SETTLED * _square_px(h):
            break
    return h, score


def _board_corners(h: np.ndarray) -> np.ndarray:
    c = np.array([[0, 0, 1], [8, 0, 1], [8, 8, 1], [0, 8, 1]], np.float64) @ h.T
    return c[:, :2] / c[:, 2:]


def _square_px(h: np.ndarray) -> float:
    """The smallest side of a board square in the image, in pixels."""
    c = _board_corners(h)
    return float(min(np.linalg.norm(c[i] - c[(i + 1) % 4]) for i in range(4))) / 8
