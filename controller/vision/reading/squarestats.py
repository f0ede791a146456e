"""Per-square statistics of one felt mask over the reading warp.

How much felt shows where a disc's top and base would be, how bright the felt is
round each square, and how bright and how green what covers the top is: the
numbers the reader decides on, measured again when the felt mask changes (felt
that a lamp's reflection washes out, see :mod:`controller.vision.reading.glare`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from controller.vision.sampling import Layout

DISC_PERCENTILE = 0.4  # of the disc top's grey levels: low enough to ignore highlights


@dataclass(frozen=True)
class Measures:
    """(64,) arrays, one value per square."""

    felt_top: np.ndarray  # felt fraction on the disc-top pattern
    felt_base: np.ndarray  # ... on the base pattern
    felt_grey: np.ndarray  # the felt's brightness round the square
    disc_grey: np.ndarray  # a low quantile of the non-felt grey levels on the top
    log_ratio: np.ndarray  # log(disc grey / felt grey)
    tint: np.ndarray  # how much greener than grey the top's non-felt pixels are
    felt_corners: np.ndarray  # felt fraction in the square's corners


def neighbourhood_mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Weighted mean over each square's 3x3 neighbourhood (one value per square of a
    square board); nan where the neighbourhood has no weight."""
    n = math.isqrt(values.size)
    v = np.pad((values * weights).reshape(n, n), 1)
    w = np.pad(weights.reshape(n, n), 1)
    sv, sw = v[0:n, 0:n], w[0:n, 0:n]  # summed in the order a plain sum() would
    for dy, dx in ((dy, dx) for dy in range(3) for dx in range(3)):
        if dy or dx:
            sv = sv + v[dy : dy + n, dx : dx + n]
            sw = sw + w[dy : dy + n, dx : dx + n]
    out = np.full(n * n, np.nan)
    ok = sw.ravel() > 0
    out[ok] = (sv.ravel()[ok]) / sw.ravel()[ok]
    return out


def green_tint(bgr: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Per row: how much greener than grey the kept pixels are on average (0..255)."""
    w = keep.astype(np.float32)[..., None]
    n = np.maximum(w.sum(axis=1), 1.0)
    mean = (bgr.astype(np.float32) * w).sum(axis=1) / n
    return mean[:, 1] - np.maximum(mean[:, 0], mean[:, 2])


def low_percentile(values: np.ndarray, keep: np.ndarray, q: float) -> np.ndarray:
    """Per-row ``q`` quantile of ``values`` where ``keep``; nan for empty rows."""
    v = np.where(keep, values.astype(np.float32), np.inf)
    v.sort(axis=1)
    n = keep.sum(axis=1)
    idx = np.clip((n * q).astype(int), 0, values.shape[1] - 1)
    out = v[np.arange(len(v)), idx].astype(np.float64)
    out[n == 0] = np.nan
    return out


def measure(lay: Layout, felt: np.ndarray, grey: np.ndarray, bgr: np.ndarray) -> Measures:
    """The statistics of flat canvas masks ``felt``, ``grey`` and colours ``bgr``."""
    top_felt = felt[lay.top]
    sq_felt = felt[lay.square]
    sq_grey = grey[lay.square].astype(np.float64)
    cnt = sq_felt.sum(axis=1).astype(np.float64)
    mean = np.where(cnt > 0, (sq_grey * sq_felt).sum(axis=1) / np.maximum(cnt, 1), 0.0)
    felt_grey = neighbourhood_mean(mean, cnt)
    if np.isnan(felt_grey).any():
        fallback = np.nanmedian(felt_grey) if not np.isnan(felt_grey).all() else 60.0
        felt_grey = np.where(np.isnan(felt_grey), fallback, felt_grey)
    disc_grey = low_percentile(grey[lay.top], ~top_felt, DISC_PERCENTILE)
    return Measures(
        felt_top=top_felt.mean(axis=1),
        felt_base=felt[lay.base].mean(axis=1),
        felt_grey=felt_grey,
        disc_grey=disc_grey,
        log_ratio=np.log(disc_grey + 2.0) - np.log(felt_grey + 2.0),
        tint=green_tint(bgr[lay.top], ~top_felt),
        felt_corners=felt[lay.corners].mean(axis=1),
    )


FRAME_CLUSTER = 5  # plainly black and plainly white discs a frame needs to judge by them
FRAME_MARGIN = 0.3  # log units: how much nearer one colour's discs a grey must be


def frame_edges(
    log_ratio: np.ndarray, black: np.ndarray, white: np.ndarray
) -> tuple[float, float] | None:
    """The brightest of the frame's plainly black discs and the dullest of its plainly
    white ones (log ratios), or None when it shows too few of either to judge by."""
    b, w = log_ratio[black], log_ratio[white]
    b, w = b[np.isfinite(b)], w[np.isfinite(w)]
    if len(b) < FRAME_CLUSTER or len(w) < FRAME_CLUSTER:
        return None
    return float(b.max()), float(w.min())


def side_by_frame(log_ratio: np.ndarray, edges: tuple[float, float] | None) -> np.ndarray:
    """-1 (black), +1 (white) or 0 for each grey: which of the frame's own discs it is
    much nearer to (``edges`` from :func:`frame_edges`).

    A disc between the colour model's levels (a black disc catching a lamp's light in
    a dim room, a white one in shade) is compared with the discs the same frame shows
    plainly black and plainly white rather than with fixed levels: well nearer the
    brightest plain black than the dullest plain white it is black, and the other way
    round; about as near to both, the two readings are genuinely close (0).
    """
    log_ratio = np.asarray(log_ratio, dtype=np.float64)
    out = np.zeros(log_ratio.shape, dtype=np.int8)
    if edges is None:
        return out
    top_black, low_white = edges
    with np.errstate(invalid="ignore"):
        inside = (log_ratio > top_black) & (log_ratio < low_white)
        lean = (low_white - log_ratio) - (log_ratio - top_black)  # > 0: nearer black
        out[inside & (lean > FRAME_MARGIN)] = -1
        out[inside & (lean < -FRAME_MARGIN)] = 1
    return out
