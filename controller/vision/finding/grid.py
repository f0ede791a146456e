"""Pinning the homography to the grid lines printed on the felt.

The outline of the green area is only as good as the felt's edge; the grid is what
the squares are actually defined by. In a top-down warp the interior grid lines are
thin dark stripes; each of the 2 (n - 1) of an n x n board (14 on 8x8) is fitted as a
straight line from the stretches discs leave visible, and their (n - 1)^2 crossings
give a new homography.
"""

from __future__ import annotations

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.colour import ColourModel
from controller.vision.cv import cv2

CELL = 40  # pixels per square in the refinement warp
MARGIN = 0.5  # squares of margin around the playing area
ALONG = 0.08  # squares along a line over which its evidence is averaged against noise ...
MAX_ALONG = 0.3  # ... and at the most, in the noisiest pictures
NOISE_REF = 0.03  # pixel noise, next to the felt's brightness, that the first is made for
SETTLED = 0.01  # squares a round may still move the corners when the grid fit has settled
ROUNDS = 8  # refinement rounds at the most (each moves the grid part of the way)


def _canvas(h: np.ndarray, n: int) -> tuple[np.ndarray, int]:
    """Board squares -> canvas pixels, and the canvas side."""
    t = np.array([[CELL, 0, MARGIN * CELL], [0, CELL, MARGIN * CELL], [0, 0, 1]], float)
    side = int(round((n + 2 * MARGIN) * CELL))
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
    # averaged along the line first: a faint line in a noisy dim picture shows only
    # once the noise is smoothed out, and a line is long while noise is not; the
    # noisier the picture next to the felt's brightness, the longer the stretch
    along = max(3, int(CELL * ALONG * _noisiness(v, felt))) | 1
    dark_v = cv2.morphologyEx(cv2.blur(v, (1, along)), cv2.MORPH_BLACKHAT,
                              np.ones((1, k), np.uint8))
    dark_h = cv2.morphologyEx(cv2.blur(v, (along, 1)), cv2.MORPH_BLACKHAT,
                              np.ones((k, 1), np.uint8))
    level = byte_median(v[felt]) if felt.any() else 60.0
    thr = max(3.0, 0.15 * level)
    both_x = np.zeros_like(felt)
    both_y = np.zeros_like(felt)
    for d in (3, 4):
        both_x[:, d:-d] |= felt[:, : -2 * d] & felt[:, 2 * d :]
        both_y[d:-d, :] |= felt[: -2 * d, :] & felt[2 * d :, :]
    vert = ((dark_v > thr) & both_x).astype(np.float32) * 255
    horz = ((dark_h > thr) & both_y).astype(np.float32) * 255
    return vert, horz


def _noisiness(v: np.ndarray, felt: np.ndarray) -> float:
    """How many times the usual stretch a line's evidence is averaged over: the
    pixel noise on the felt, next to the felt's brightness, over ``NOISE_REF``."""
    rows = slice(None, None, 4)  # a sample of rows is enough and much cheaper
    f = v[rows].astype(np.float32)
    on = felt[rows]
    if on.sum() < 100:
        return 1.0
    noise = float(np.median(np.abs(f - cv2.blur(f, (3, 1)))[on]))
    level = max(byte_median(v[rows][on]), 1.0)
    return float(np.clip(noise / level / NOISE_REF, 1.0, MAX_ALONG / ALONG))


def _fit_lines(evidence: np.ndarray, axis: int, expected: np.ndarray,
               n: int) -> list[np.ndarray | None]:
    """Fit ``pos = a + b * t`` for each expected stripe position along ``axis``, to
    the pixels of the band's straight stripe through the most evidence (a small
    Hough vote over offset and slope) alone."""
    thr = 127.0
    # nonzero() lists pixels row by row, so transposing first sorts them by the
    # coordinate across the lines: each line's band is then one slice
    if axis == 0:
        pos, t = np.nonzero(evidence.T > thr)
    else:
        pos, t = np.nonzero(evidence > thr)
    mid = 0.5 * evidence.shape[0]
    lines: list[np.ndarray | None] = []
    for e in expected:
        a = int(np.searchsorted(pos, e - 0.25 * CELL, side="right"))
        b = int(np.searchsorted(pos, e + 0.25 * CELL, side="left"))
        if b - a < CELL:  # less than about one square's length of visible line
            lines.append(None)
            continue
        p, tt = pos[a:b].astype(float), t[a:b].astype(float)
        keep = _strongest_stripe(p, tt - mid, e)
        p, tt = p[keep], tt[keep]
        coef = None
        for _ in range(3):
            coef = _line_fit(tt, p)
            if coef is None:
                break
            resid = np.abs(p - (coef[0] + coef[1] * tt))
            keep = resid < max(2.0, 2.5 * _median(resid))
            p, tt = p[keep], tt[keep]
            if len(p) < CELL // 2:
                break
        middle = (MARGIN + n / 2) * CELL  # the board's middle along the line
        drift = abs(coef[0] + coef[1] * middle - e) if coef is not None else 0.0
        if coef is None or abs(coef[1]) > 0.15 or drift > 0.2 * CELL:
            lines.append(None)
        else:
            lines.append(coef)
    return lines


#: Slopes voted over (a line's tilt in the warp): steps of 0.015, so a line between
#: two of them ends within a pixel and a half of either over the board's length.
SLOPES = np.linspace(-0.15, 0.15, 21)
_SLOPE_ROWS = np.arange(len(SLOPES))[:, None]
STRIPE = 2.0  # pixels either side of a voted line taken as its own


def _strongest_stripe(p: np.ndarray, t: np.ndarray, e: float) -> np.ndarray:
    """Which of the band's pixels lie on its straight stripe with the most votes."""
    off = p[None, :] - SLOPES[:, None] * t[None, :]
    lo = e - 0.5 * CELL
    bins = int(CELL)
    idx = np.clip((off - lo).astype(np.int64), 0, bins - 1) + _SLOPE_ROWS * bins
    votes = np.bincount(idx.ravel(), minlength=len(SLOPES) * bins).reshape(len(SLOPES), bins)
    # a stripe a few pixels wide: neighbouring offsets vote together
    votes = votes[:, :-2] + votes[:, 1:-1] + votes[:, 2:]
    k, j = np.unravel_index(int(np.argmax(votes)), votes.shape)
    best = lo + j + 1.5
    return np.abs(off[k] - best) <= STRIPE + 1.0


def byte_median(x: np.ndarray) -> float:
    """np.median of 8-bit values (at least one), counted rather than sorted: five
    times as fast on the tens of thousands of felt pixels a warp holds."""
    below = np.cumsum(np.bincount(x, minlength=256))
    n = len(x)
    lo = int(np.searchsorted(below, (n - 1) // 2, side="right"))
    hi = int(np.searchsorted(below, n // 2, side="right"))
    return 0.5 * (lo + hi)


def _median(x: np.ndarray) -> float:
    """np.median without its overhead, which dominates on the many small arrays here."""
    n = len(x)
    m = n // 2
    if n % 2:
        return float(np.partition(x, m)[m])
    part = np.partition(x, (m - 1, m))
    return 0.5 * float(part[m - 1] + part[m])


def _line_fit(t: np.ndarray, p: np.ndarray) -> np.ndarray | None:
    """Least squares ``p = a + b * t`` in closed form (many small fits per frame)."""
    n = len(t)
    if n < 2:
        return None
    tm, pm = t.mean(), p.mean()
    dt = t - tm
    var = float(dt @ dt)
    if var <= 1e-9:
        return None
    b = float(dt @ (p - pm)) / var
    return np.array([pm - b * tm, b])


def grid_coverage(image: np.ndarray, h: np.ndarray, offset: float = 0.0,
                  n: int = STANDARD) -> float:
    """Share of the inner grid lines' length (14 lines on 8x8) where a line is seen.

    Discs hide part of the lines, but on the right board most of every line shows;
    an outline that is off by a row or that spans a table cloth sees far less.
    """
    return grid_coverages(image, h, (offset,), n)[0]


def grid_coverages(image: np.ndarray, h: np.ndarray,
                   offsets: tuple[float, ...], n: int = STANDARD) -> list[float]:
    """:func:`grid_coverage` at several offsets (squares) from one warp of the image."""
    t, side = _canvas(h, n)
    warped = cv2.warpPerspective(image, t @ np.linalg.inv(h), (side, side))
    vert, horz = line_evidence(warped)
    k = np.ones((1, 5), np.uint8)
    vert = cv2.dilate(vert, k)
    horz = cv2.dilate(horz, k.T)
    along = ((MARGIN + np.linspace(0.05, n - 0.05, 10 * n)) * CELL).astype(int)
    out = []
    for offset in offsets:
        at = ((MARGIN + offset + np.arange(1, n)) * CELL).astype(int)
        v = vert[along[:, None], at[None, :]] > 0
        hz = horz[at[:, None], along[None, :]] > 0
        out.append(float((v.mean() + hz.mean()) / 2))
    return out


def refine_on_grid(image: np.ndarray, h: np.ndarray, rounds: int = ROUNDS,
                   n: int = STANDARD) -> tuple[np.ndarray, float]:
    """Improve ``h`` (board squares -> image) on the printed grid; returns it and a score.

    Each round fits the lines seen near where the current estimate expects them, so
    a rough outline (a steep view, a far edge squeezed into few pixels) moves only
    part of the way per round: rounds go on until the corners stay put. Each line
    is its band's strongest straight stripe, and the crossings of a line that
    disagrees with the others' lattice are left out: the rims of a row of discs
    pull a fit of the whole band off the line. Locking onto lines that well also
    fits a lattice of the wrong size to a dense pattern of lines; the board finder
    asks the learned square model about that.
    """
    t, side = _canvas(h, n)
    score = 0.0
    expected = (MARGIN + np.arange(1, n)) * CELL
    for _ in range(rounds):
        to_canvas = t @ np.linalg.inv(h)
        warped = cv2.warpPerspective(image, to_canvas, (side, side), flags=cv2.INTER_LINEAR)
        vert, horz = line_evidence(warped)
        vl = _fit_lines(vert, 0, expected, n)
        hl = _fit_lines(horz, 1, expected, n)
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
        score = (nv + nh) / (2.0 * (n - 1))
        if nv < 3 or nh < 3:
            return h, score
        canvas_h, _ = cv2.findHomography(np.array(src, np.float64), np.array(dst, np.float64),
                                         cv2.RANSAC, AGREE * CELL)
        if canvas_h is None:
            return h, score
        unscaled = np.linalg.inv(to_canvas) @ canvas_h
        new_h = unscaled / unscaled[2, 2]
        moved = float(np.abs(_board_corners(new_h, n) - _board_corners(h, n)).max())
        h = new_h
        if moved < SETTLED * _square_px(h, n):
            break
    return h, score


AGREE = 0.1  # squares: a crossing further than this from the others' lattice is left out


def _board_corners(h: np.ndarray, n: int) -> np.ndarray:
    c = np.array([[0, 0, 1], [n, 0, 1], [n, n, 1], [0, n, 1]], np.float64) @ h.T
    return c[:, :2] / c[:, 2:]


def _square_px(h: np.ndarray, n: int) -> float:
    """The smallest side of a board square in the image, in pixels."""
    c = _board_corners(h, n)
    return float(min(np.linalg.norm(c[i] - c[(i + 1) % 4]) for i in range(4))) / n


LATTICE_LINE = 2.0  # a line's response over the squares' middles beside it that counts it


def lattice_fit(image: np.ndarray, h: np.ndarray, n: int = STANDARD) -> tuple[float, float]:
    """How well a lattice of ``n`` x ``n`` squares sits where ``h`` puts it.

    Thin dark stripes (the printed lines, and the felt showing between discs) are
    averaged along each of the inner lines, and compared with the same average
    half a square away, at the squares' middles. A thin or faint grid that
    ``grid_coverage`` hardly sees still stands out there, since everything along a
    line adds up; a green cloth, or an outline off by a fraction of a square, does
    not. Returns the share of lines that stand out and the median ratio of line to
    middle response.
    """
    t, side = _canvas(h, n)
    warped = cv2.warpPerspective(image, t @ np.linalg.inv(h), (side, side))
    v = cv2.cvtColor(warped, cv2.COLOR_BGR2GRAY)
    k = max(3, int(CELL * 0.3)) | 1
    dark_v = cv2.morphologyEx(v, cv2.MORPH_BLACKHAT, np.ones((1, k), np.uint8))
    dark_h = cv2.morphologyEx(v, cv2.MORPH_BLACKHAT, np.ones((k, 1), np.uint8))
    inner = slice(int((MARGIN + 0.1) * CELL), int((MARGIN + n - 0.1) * CELL))
    prof_v = dark_v[inner, :].astype(np.float32).mean(axis=0)
    prof_h = dark_h[:, inner].astype(np.float32).mean(axis=1)
    ratios = []
    for prof in (prof_v, prof_h):
        for j in range(1, n):
            at = int(round((MARGIN + j) * CELL))
            line = float(prof[at - 2 : at + 3].max())
            mids = [
                float(prof[int(round((MARGIN + j + d) * CELL)) - 2 :
                           int(round((MARGIN + j + d) * CELL)) + 3].mean())
                for d in (-0.5, 0.5)
            ]
            ratios.append((line + 0.5) / (max(mids) + 0.5))
    r = np.array(ratios)
    return float((r > LATTICE_LINE).mean()), float(np.median(r))
