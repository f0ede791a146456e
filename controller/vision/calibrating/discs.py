"""Calibration's cue from the start discs themselves: a board guessed round them.

In a dark room, under a lamp's saturated reflection or inside a wooden frame, the
felt outline and the printed lattice can offer no outline within a square of the
board, while a person still sees it at once by its four start discs: two light
discs a square's diagonal apart, the dark ones at the other diagonal (or lost in
the dark felt), and felt all round them. Those fix the board's middle, its size
and its turn (an affine map from the four disc centres), but not its perspective:
extrapolated four squares out, that map leaves corners one to three squares off.
The felt's four edges, each sought as the straight line near where the discs put it
that best parts green inside from not green outside, fix the rest. The guesses are
only proposals: calibration takes one only when it reads the start position.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.cv import cv2
from controller.vision.finding.felt import green_chroma
from controller.vision.geometry import (
    apply_homography,
    corners_of,
    homography_from_corners,
    upright_order,
)


@cache
def start_disc_centres(n: int = STANDARD) -> np.ndarray:
    """Disc centres in board squares: the two light discs first, then the two dark."""
    lo, hi = n / 2 - 0.5, n / 2 + 0.5
    return np.array([[lo, lo], [hi, hi], [hi, lo], [lo, hi]])


@cache
def _ring(n: int) -> np.ndarray:
    """The twelve squares round the four discs, empty felt at the start."""
    lo, hi = n // 2 - 1, n // 2  # the start discs' columns and rows
    return np.array([(x + 0.5, y + 0.5) for x in range(lo - 1, hi + 2)
                     for y in range(lo - 1, hi + 2) if not (lo <= x <= hi and lo <= y <= hi)])

#: Blob sizes (pixels) a light disc's top is sought at, and peaks kept at each: a
#: disc spans roughly 10 to 40 pixels in a picture the finder works on.
SCALES = (12.0, 20.0, 32.0)
PEAKS = 20
#: Distance in pixels between the two light discs' centres (a square's diagonal).
PAIR_PX = (8.0, 110.0)
#: Chroma over which a ring square counts as felt, and the share of the ring that
#: must: the discs of a start position lie on felt, a lamp or two cups do not.
FELT_CHROMA = 0.03
FELT_SHARE = 0.6
#: Share of the ring that must lie in the picture, and the blur (of the light discs'
#: distance apart) under which the discs' and the ring's grey levels are read.
RING_SEEN = 0.75
LEVEL_BLUR = 0.12
#: A cluster's score, besides its light peaks' strengths: weights of the ring's felt
#: share, of how much darker than the felt the dark diagonal is and of how much
#: lighter the light one (log grey levels), the last two counted up to their caps.
FELT_WEIGHT, DARK_WEIGHT, DARK_CAP, LIGHT_WEIGHT, LIGHT_CAP = 3.0, 5.0, 0.5, 2.0, 1.0
#: Clusters kept, at least this many disc diagonals apart (one cluster per board).
#: Under a lamp that lights one dark disc, or in a dark room, the start discs'
#: cluster can rank behind several glints on the frame and the table. Each kept
#: costs a refused picture about a second.
CLUSTERS = 6
APART = 0.5
#: Board-edge search: canvas pixels per square, the canvas's extent (squares), how
#: far across an edge the felt is compared (squares) and the line positions tried
#: (squares from where the discs put the edge, first coarse, then round the first).
CELL = 8
PAST = 4.0  # squares of canvas beyond each edge of the board
ACROSS = 0.35
FIRST_SPAN, SECOND_SPAN, STEP = 3.0, 0.8, 0.1
#: Points along an edge its lines are sampled at, per square of the edge.
ALONG_PER_SQUARE = 3.5


def _extent(n: int) -> tuple[float, float]:
    """The canvas's extent in squares."""
    return -PAST, n + PAST


def _along(n: int) -> np.ndarray:
    """Points along an edge its lines are sampled at (squares from its ends)."""
    return np.linspace(0.5, n - 0.5, int(ALONG_PER_SQUARE * n))


def disc_guesses(image: np.ndarray, n: int = STANDARD) -> list[np.ndarray]:
    """Board grids (squares -> pixels) guessed from the likeliest clusters of start
    discs in ``image``, each put on the felt's edges; likeliest first."""
    chroma = green_chroma(image)
    out = []
    for affine in disc_clusters(image, chroma, n):
        h = on_felt_edges(chroma, affine, n)
        quad = corners_of(h, n)
        if np.isfinite(quad).all() and cv2.isContourConvex(quad.astype(np.float32)):
            out.append(homography_from_corners(upright_order(quad), n))
    return out


def disc_clusters(image: np.ndarray, chroma: np.ndarray,
                  n: int = STANDARD) -> list[np.ndarray]:
    """Affine maps (squares -> pixels) putting the start discs on the likeliest 2x2
    clusters of start discs: two light blobs a diagonal apart, lighter than the felt
    on ``FELT_SHARE`` of the ring round them; the darker the other diagonal, the
    likelier (in a dark room the dark discs can vanish into the felt)."""
    grey = np.log1p(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32))
    pts, vals = _light_peaks(grey)
    found: list[tuple[float, float, np.ndarray]] = []
    for i, j in itertools.combinations(range(len(pts)), 2):
        d = float(np.linalg.norm(pts[i] - pts[j]))
        if not PAIR_PX[0] <= d <= PAIR_PX[1]:
            continue
        half = (pts[j] - pts[i]) / 2
        across = np.array([-half[1], half[0]])  # the two mirror images give one board
        mid = (pts[i] + pts[j]) / 2
        at = np.array([pts[i], pts[j], mid + across, mid - across])
        a = np.vstack([cv2.getAffineTransform(start_disc_centres(n)[:3].astype(np.float32),
                                              at[:3].astype(np.float32)), [0, 0, 1]])
        ring = apply_homography(a, _ring(n))
        felt, inside = _sample(chroma, ring)
        share = float(((felt > FELT_CHROMA) & inside).mean())
        if inside.mean() < RING_SEEN or share < FELT_SHARE:
            continue
        blur = cv2.GaussianBlur(grey, (0, 0), max(1.0, LEVEL_BLUR * d))
        level = float(np.median(_sample(blur, ring)[0][inside]))
        discs = _sample(blur, at)[0]
        light = min(discs[0], discs[1]) - level
        if light <= 0:
            continue
        dark = level - max(discs[2], discs[3])
        score = (vals[i] + vals[j] + FELT_WEIGHT * share + DARK_WEIGHT * min(dark, DARK_CAP)
                 + LIGHT_WEIGHT * min(light, LIGHT_CAP))
        found.append((float(score), d, a))
    kept: list[tuple[float, np.ndarray]] = []
    for _, d, a in sorted(found, key=lambda f: -f[0]):
        centre = apply_homography(a, np.array([[n / 2, n / 2]]))[0]
        if all(np.linalg.norm(centre - c) > APART * d for c, _ in kept):
            kept.append((centre, a))
    return [a for _, a in kept[:CLUSTERS]]


def on_felt_edges(chroma: np.ndarray, h: np.ndarray, n: int = STANDARD) -> np.ndarray:
    """Grid ``h`` with its outline moved onto the felt's four edges: in a canvas
    drawn through ``h`` each edge is the straight line near where ``h`` puts it
    along which the felt's chroma (next to the ring's) falls most from inside to
    outside; twice, the second time round the first's edges. Where a reflection
    hides part of an edge both sides read not green, which only weakens it."""
    extent = _extent(n)
    ring = _ring(n)
    to_squares = np.array([[1 / CELL, 0, extent[0]], [0, 1 / CELL, extent[0]], [0, 0, 1.0]])
    side = int((extent[1] - extent[0]) * CELL)
    for span in (FIRST_SPAN, SECOND_SPAN):
        canvas = cv2.warpPerspective(chroma, h @ to_squares, (side, side),
                                     flags=cv2.WARP_INVERSE_MAP | cv2.INTER_LINEAR,
                                     borderValue=-1.0)
        felt = max(float(np.median(_canvas_at(canvas, ring[:, 0], ring[:, 1], n))), 0.02)
        canvas = np.where(canvas < 0, -1.0, np.clip(canvas / felt, 0, 1.5)).astype(np.float32)
        lines = [_edge(canvas, at, span, sign, upright, n)
                 for upright in (True, False) for at, sign in ((0.0, 1.0), (float(n), -1.0))]
        quad = np.array([_crossing(lines[v], lines[w], n)  # left, right, top, bottom
                         for v, w in ((0, 2), (1, 2), (1, 3), (0, 3))])
        h = h @ homography_from_corners(quad, n)
        h /= h[2, 2]
    return h


def _edge(canvas: np.ndarray, at: float, span: float, sign: float,
          upright: bool, n: int) -> tuple[float, float]:
    """The line (its position at both ends of the edge, squares) within ``span``
    of ``at`` with the most felt on its ``sign`` side and the least on the other."""
    offsets = np.arange(at - span, at + span + 1e-9, STEP)
    a, b = (x.reshape(-1, 1) for x in np.meshgrid(offsets, offsets, indexing="ij"))
    points = _along(n)
    pos = a + (b - a) * points[None, :] / n
    along = np.broadcast_to(points[None, :], pos.shape)
    sides = [(pos + s * ACROSS, along) if upright else (along, pos + s * ACROSS)
             for s in (sign, -sign)]
    inner, outer = (_canvas_at(canvas, x, y, n) for x, y in sides)
    seen = (inner >= 0) & (outer >= 0)  # both sides inside the picture
    score = np.where(seen, np.clip(inner - outer, -1, 1), 0).mean(axis=1)
    k = int(np.argmax(score))
    return float(a[k, 0]), float(b[k, 0])


def _crossing(upright: tuple[float, float], level: tuple[float, float],
              n: int) -> np.ndarray:
    """Where the line x = a + (b - a) y / n crosses y = c + (d - c) x / n."""
    (a, b), (c, d) = upright, level
    m = np.array([[1, -(b - a) / n], [-(d - c) / n, 1]])
    return np.linalg.solve(m, np.array([a, c]))


def _canvas_at(canvas: np.ndarray, x: np.ndarray, y: np.ndarray, n: int) -> np.ndarray:
    """Canvas values at board points (squares), -1 outside the canvas."""
    low = _extent(n)[0]
    px = ((np.asarray(x, np.float32) - low) * CELL).astype(np.float32)
    py = ((np.asarray(y, np.float32) - low) * CELL).astype(np.float32)
    return cv2.remap(canvas, px.reshape(px.shape[0], -1), py.reshape(py.shape[0], -1),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                     borderValue=-1.0).reshape(px.shape)


def _light_peaks(grey: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Local maxima of a difference of Gaussians at each of ``SCALES``, each over the
    response's local spread, so a disc in a dark corner counts as much as one in
    the light; the ``PEAKS`` strongest per scale."""
    pts, vals = [], []
    for s in SCALES:
        dog = cv2.GaussianBlur(grey, (0, 0), 0.22 * s) - cv2.GaussianBlur(grey, (0, 0), 0.55 * s)
        resp = dog / (np.sqrt(cv2.GaussianBlur(dog * dog, (0, 0), 2.0 * s)) + 1e-3)
        k = max(3, int(0.8 * s) | 1)
        ys, xs = np.nonzero((resp >= cv2.dilate(resp, np.ones((k, k), np.uint8))) & (resp > 0))
        best = np.argsort(resp[ys, xs])[::-1][:PEAKS]
        pts += list(np.stack([xs[best], ys[best]], 1).astype(float))
        vals += list(resp[ys[best], xs[best]])
    return np.array(pts).reshape(-1, 2), np.array(vals)


def _sample(img: np.ndarray, pts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Values at the pixels nearest ``pts`` (clamped), and which lie in the picture."""
    h, w = img.shape[:2]
    xs = np.clip(np.round(pts[:, 0]).astype(int), 0, w - 1)
    ys = np.clip(np.round(pts[:, 1]).astype(int), 0, h - 1)
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < w) & (pts[:, 1] >= 0) & (pts[:, 1] < h)
    return img[ys, xs], inside
