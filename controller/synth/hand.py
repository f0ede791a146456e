"""Hands and arms over the board for the synthetic renderer.

A hand is drawn as polygons laid out on the board plane and projected into the
image, so which squares it hides is known exactly. The contract with the ground
truth: every square marked hidden is covered over at least 90% of its area, every
other square over at most ``MAX_STRAY`` (10%).

A hand is the same size on every board: the board's squares are the unit, so on a
6x6 board it covers as many squares as on 8x8, and more of the board. The board's
size comes from the squares it is given (one flag a square) or is passed as ``n``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from controller.boardsize import STANDARD
from controller.synth.camera import Camera
from controller.synth.textures import soft_blur
from controller.vision.cv import cv2

#: Largest fraction of a square's area a hand may cover without the square being hidden.
MAX_STRAY = 0.10
#: Resolution (pixels per square) at which coverage is measured.
COVER_RES = 32
#: How far across the board a free hand's palm may reach, as a share of its side
#: (five squares of the standard board: past the middle).
REACH_IN = 5 / STANDARD

SLEEVE_COLOURS = np.array(
    [[40, 40, 40], [120, 60, 30], [200, 200, 200], [40, 40, 140], [90, 110, 60], [150, 120, 100]],
    dtype=np.float32,
)
SKIN_TONES = np.array(
    [[110, 150, 210], [95, 135, 195], [80, 115, 170],
     [60, 90, 140], [45, 65, 105], [130, 165, 225]],
    dtype=np.float32,
)


def _rounded_rect(x0: float, y0: float, x1: float, y1: float, r: float) -> np.ndarray:
    r = min(r, (x1 - x0) / 2, (y1 - y0) / 2)
    pts = []
    for cx, cy, a0 in ((x1 - r, y0 + r, -90), (x1 - r, y1 - r, 0), (x0 + r, y1 - r, 90),
                       (x0 + r, y0 + r, 180)):
        for k in range(5):
            a = math.radians(a0 + k * 22.5)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts)


def _ellipse(cx: float, cy: float, rx: float, ry: float, angle: float, n: int = 24) -> np.ndarray:
    t = np.linspace(0, 2 * np.pi, n, endpoint=False)
    ca, sa = math.cos(angle), math.sin(angle)
    x, y = rx * np.cos(t), ry * np.sin(t)
    return np.column_stack([cx + x * ca - y * sa, cy + x * sa + y * ca])


def _runs(cells: Iterable[int]) -> list[tuple[int, int]]:
    """Maximal runs of consecutive integers, as (first, last)."""
    out: list[tuple[int, int]] = []
    for c in sorted(cells):
        if out and c == out[-1][1] + 1:
            out[-1] = (out[-1][0], c)
        else:
            out.append((c, c))
    return out


def side_of(squares: np.ndarray) -> int:
    """The columns of the board one value a square describes."""
    return math.isqrt(len(squares))


def square_blob(hidden: np.ndarray, grow: float = -0.01, radius: float = 0.15) -> list[np.ndarray]:
    """Board-plane polygons whose union covers exactly the hidden squares (corners rounded)."""
    n = side_of(hidden)
    grid = hidden.reshape(n, n)
    polys = []
    for r in range(n):
        for a, b in _runs(np.flatnonzero(grid[r])):
            polys.append(_rounded_rect(a - grow, r - grow, b + 1 + grow, r + 1 + grow, radius))
    for c in range(n):
        for a, b in _runs(np.flatnonzero(grid[:, c])):
            polys.append(_rounded_rect(c - grow, a - grow, c + 1 + grow, b + 1 + grow, radius))
    return polys


def components(hidden: np.ndarray) -> list[list[int]]:
    """Groups of hidden squares connected through edges or corners."""
    size = side_of(hidden)
    left = set(np.flatnonzero(hidden).tolist())
    groups = []
    while left:
        stack, group = [left.pop()], []
        while stack:
            s = stack.pop()
            group.append(s)
            r, c = divmod(s, size)
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    n = (r + dr) * size + c + dc
                    if 0 <= r + dr < size and 0 <= c + dc < size and n in left:
                        left.remove(n)
                        stack.append(n)
        groups.append(sorted(group))
    return groups


Edge = tuple[np.ndarray, np.ndarray, np.ndarray]


def board_edges(n: int = STANDARD) -> dict[str, Edge]:
    """Each edge of an ``n`` x ``n`` board as (outward direction, point on the edge,
    direction along it)."""
    return {
        "left": (np.array([-1.0, 0.0]), np.array([0.0, 0.0]), np.array([0.0, 1.0])),
        "right": (np.array([1.0, 0.0]), np.array([float(n), 0.0]), np.array([0.0, 1.0])),
        "top": (np.array([0.0, -1.0]), np.array([0.0, 0.0]), np.array([1.0, 0.0])),
        "bottom": (np.array([0.0, 1.0]), np.array([0.0, float(n)]), np.array([1.0, 0.0])),
    }


def _edge_runs(group: list[int], n: int) -> list[tuple[str, int, int]]:
    """Runs of a group's squares lying along a board edge: (edge, first, last) along it."""
    rc = [divmod(s, n) for s in group]
    last = n - 1
    out = []
    for edge, pick in (("left", lambda r, c: r if c == 0 else None),
                       ("right", lambda r, c: r if c == last else None),
                       ("top", lambda r, c: c if r == 0 else None),
                       ("bottom", lambda r, c: c if r == last else None)):
        along = [v for r, c in rc if (v := pick(r, c)) is not None]
        out += [(edge, a, b) for a, b in _runs(along)]
    return out


def arm_polygons(edge: str, a: float, b: float, reach: float, width: float,
                 cuff: float, n: int = STANDARD) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """An arm leaving the board across ``edge`` between positions ``a``..``b`` along it,
    as (skin polygons, sleeve polygons).

    Inside the playing area it stays within that span (it lies over hidden squares);
    past the edge it widens to a forearm, bare for ``cuff`` squares, then sleeved
    out to ``reach``.
    """
    out_dir, origin, along = board_edges(n)[edge]

    def pt(u: float, v: float) -> np.ndarray:
        return origin + out_dir * u + along * v

    mid_c = (a + b) / 2
    w = max(width, b - a)
    inner = [pt(-0.5, a), pt(-0.5, b), pt(0.02, b), pt(0.02, a)]
    flare = [pt(0.0, a), pt(0.0, b), pt(1.2, mid_c + w / 2), pt(1.2, mid_c - w / 2)]
    u1 = 1.2 + cuff
    fore = [pt(1.2, mid_c - w / 2), pt(1.2, mid_c + w / 2),
            pt(u1, mid_c + w / 2 + 0.1 * cuff), pt(u1, mid_c - w / 2 - 0.1 * cuff)]
    g1, g2 = w / 2 + 0.1 * cuff + 0.15, w / 2 + 0.1 * reach + 0.15
    sleeve = [pt(u1, mid_c - g1), pt(u1, mid_c + g1), pt(reach, mid_c + g2), pt(reach, mid_c - g2)]
    return [np.array(p) for p in (inner, flare, fore)], [np.array(sleeve)]


def finger_creases(group: list[int], inward: np.ndarray, rng: np.random.Generator,
                   n: int = STANDARD) -> list[np.ndarray]:
    """Short lines between fingers at the tip of a hand lying over ``group``."""
    centres = np.array([[s % n + 0.5, s // n + 0.5] for s in group])
    depth = centres @ inward
    tip = centres[depth > depth.max() - 0.5]
    side = np.array([-inward[1], inward[0]])
    lo, hi = (tip @ side).min() - 0.4, (tip @ side).max() + 0.4
    front = depth.max() + 0.45
    mid, half = (lo + hi) / 2, min(0.9, (hi - lo) / 2)
    out = []
    for k in (-1, 0, 1):  # three gaps between four fingers
        v = mid + k * half / 2 + rng.uniform(-0.05, 0.05)
        length = rng.uniform(0.45, 0.75)
        out.append(np.array([side * v + inward * front, side * v + inward * (front - length)]))
    return out


def free_hand(rng: np.random.Generator, size: int = STANDARD
              ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A hand reaching in from a random edge of a ``size`` board to a random spot, as
    (skin polygons: palm, fingers, forearm; sleeve polygons)."""
    edges = board_edges(size)
    edge = str(rng.choice(list(edges)))
    out_dir, origin, along = edges[edge]
    depth = rng.uniform(0.5, REACH_IN * size)  # how far in the palm reaches
    pos = rng.uniform(1.0, size - 1.0)         # where along the edge, a square in from a corner
    palm = origin - out_dir * depth + along * pos
    ang = math.atan2(-out_dir[1], -out_dir[0]) + rng.uniform(-0.4, 0.4)
    polys = [_ellipse(palm[0], palm[1], 0.95, 0.75, ang)]
    d = np.array([math.cos(ang), math.sin(ang)])
    n = np.array([-d[1], d[0]])
    for k, off in enumerate((-0.5, -0.17, 0.17, 0.5)):
        length = (0.7, 0.85, 0.8, 0.6)[k] * rng.uniform(0.8, 1.2)
        tip = palm + d * (0.6 + length / 2) + n * off * 1.1
        polys.append(_ellipse(tip[0], tip[1], length / 2 + 0.1, 0.16, ang + rng.uniform(-0.2, 0.2)))
    # The forearm: from the palm back out past the edge, bare up to a cuff.
    cuff = palm - d * (depth + rng.uniform(1.5, 3.0))
    back = palm - d * 40.0
    polys.append(np.array([palm + n * 0.7, palm - n * 0.7, cuff - n * 0.85, cuff + n * 0.85]))
    sleeve = [np.array([cuff + n * 1.0, cuff - n * 1.0, back - n * 4.0, back + n * 4.0])]
    return polys, sleeve


class HandPainter:
    """Rasterises board-plane polygons into image-space masks: the whole hand and arm,
    the sleeve part of it, and creases between fingers."""

    def __init__(self, cam: Camera, width: int, height: int, n: int = STANDARD) -> None:
        self.cam, self.w, self.h, self.n = cam, width, height, n
        self.H = cam.plane_homography(0.0)
        self.mask = np.zeros((height, width), dtype=np.uint8)
        self.sleeve = np.zeros((height, width), dtype=np.uint8)
        self.creases = np.zeros((height, width), dtype=np.uint8)
        # The same polygons on a top-down raster of the playing area: coverage is
        # measured here, exactly, whatever the picture's size or blur.
        self.plane = np.zeros((n * COVER_RES, n * COVER_RES), dtype=np.uint8)

    def project(self, poly: np.ndarray) -> np.ndarray | None:
        """Project a board-plane polygon, clipped to the part well in front of the camera."""
        pts3 = np.column_stack([poly, np.zeros(len(poly))])
        depth = self.cam.depth(pts3)
        mid = self.n / 2
        near = 0.3 * float(self.cam.depth(np.array([[mid, mid, 0.0]]))[0])
        kept = []
        n = len(pts3)
        for i in range(n):
            j = (i + 1) % n
            di, dj = depth[i] - near, depth[j] - near
            if di >= 0:
                kept.append(pts3[i])
            if di * dj < 0:
                kept.append(pts3[i] + (pts3[j] - pts3[i]) * (di / (di - dj)))
        if len(kept) < 3:
            return None
        return self.cam.project(np.array(kept))

    def fill(self, polys: Iterable[np.ndarray], sleeve: bool = False) -> None:
        for poly in polys:
            p = self.project(poly)
            if p is None:
                continue
            hull = cv2.convexHull(np.round(p * 16).astype(np.int32))
            cv2.fillConvexPoly(self.mask, hull, 255, cv2.LINE_AA, 4)
            if sleeve:
                cv2.fillConvexPoly(self.sleeve, hull, 255, cv2.LINE_AA, 4)
            flat = np.clip(poly * COVER_RES - 0.5, -1e5, 1e5)
            hull = cv2.convexHull(np.round(flat * 16).astype(np.int32))
            cv2.fillConvexPoly(self.plane, hull, 255, cv2.LINE_AA, 4)

    def crease(self, segments: Iterable[np.ndarray], px: float) -> None:
        thick = max(1, int(round(0.035 * px)))
        for seg in segments:
            p = self.cam.project(np.column_stack([seg, np.zeros(2)]))
            a, b = (tuple(int(v) for v in np.round(q * 16)) for q in p)
            cv2.line(self.creases, a, b, 255, thick, cv2.LINE_AA, 4)

    def coverage(self) -> np.ndarray:
        """Fraction of each square's area the hand covers (one float a square)."""
        res, n = COVER_RES, self.n
        return self.plane.reshape(n, res, n, res).mean(axis=(1, 3)).reshape(n * n) / 255.0


def square_coverage(mask: np.ndarray, homography: np.ndarray, n: int = STANDARD) -> np.ndarray:
    """Fraction of each square of an ``n`` x ``n`` board covered by an image-space
    mask (0..255), via the board plane."""
    res = COVER_RES
    t = np.array([[1 / res, 0, 0.5 / res], [0, 1 / res, 0.5 / res], [0, 0, 1]])
    board = cv2.warpPerspective(mask, homography @ t, (n * res, n * res),
                                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return board.reshape(n, res, n, res).mean(axis=(1, 3)).reshape(n * n) / 255.0


def hand_mask(
    hidden: np.ndarray,
    cam: Camera,
    width: int,
    height: int,
    rng: np.random.Generator,
    exact: bool,
    free: bool,
    px_per_square: float = 40.0,
) -> tuple[HandPainter, np.ndarray]:
    """Draw a hand hiding ``hidden`` squares; return (the painted masks, final hidden).

    ``exact``: the final hidden set equals ``hidden``; an arm is drawn only where a
    group of hidden squares reaches the board's edge (an arm elsewhere would hide
    more squares). Otherwise arms always reach out of the board, ``free`` adds a
    whole hand at a random place, and every square they cover by more than
    ``MAX_STRAY`` joins the hidden set and is covered completely.
    """
    size = side_of(hidden)
    edges = board_edges(size)
    painter = HandPainter(cam, width, height, size)
    hidden = hidden.astype(bool).copy()
    painter.fill(square_blob(hidden))
    reach = 40.0
    for group in components(hidden):
        runs = _edge_runs(group, size)
        inward = None
        if runs:
            edge, a, b = max(runs, key=lambda e: (e[2] - e[1], rng.random()))
            skin, sleeve = arm_polygons(edge, a + 0.08, b + 0.92, reach,
                                        rng.uniform(1.4, 2.0), rng.uniform(1.0, 3.0), size)
            painter.fill(skin)
            painter.fill(sleeve, sleeve=True)
            inward = -edges[edge][0]
        elif not exact:
            rows, cols = np.divmod(np.array(group), size)
            cy, cx = rows.mean() + 0.5, cols.mean() + 0.5
            dist = {"left": cx, "right": size - cx, "top": cy, "bottom": size - cy}
            edge = min(dist, key=lambda e: dist[e] + rng.uniform(0, 1.5))
            out_dir, _, _ = edges[edge]
            c = np.array([cx, cy])
            n = np.array([-out_dir[1], out_dir[0]]) * 0.6
            cuff = c + out_dir * (dist[edge] + rng.uniform(1.5, 3.0))
            far = c + out_dir * reach
            painter.fill([np.array([c + n, c - n, cuff - n * 1.3, cuff + n * 1.3])])
            painter.fill([np.array([cuff + n * 1.5, cuff - n * 1.5, far - n * 5, far + n * 5])],
                         sleeve=True)
            inward = -out_dir
        else:
            inward = list(edges.values())[int(rng.integers(4))][0]
        painter.crease(finger_creases(group, inward, rng, size), px_per_square)
    if free and not exact:
        skin, sleeve = free_hand(rng, size)
        painter.fill(skin)
        painter.fill(sleeve, sleeve=True)
    if not exact:
        cover_strays(painter, hidden)
    return painter, hidden


def cover_strays(painter: HandPainter, hidden: np.ndarray) -> np.ndarray:
    """Squares the painted hand covers past ``MAX_STRAY`` join ``hidden`` and are
    covered whole, so the truth's ``?`` and the picture agree (the last round only
    marks them); ``hidden`` is updated in place and returned."""
    for attempt in range(6):
        grow = (painter.coverage() > MAX_STRAY) & ~hidden
        if not grow.any():
            break
        hidden |= grow
        if attempt < 5:
            painter.fill(square_blob(grow, radius=0.1))
    return hidden


def paint_hand(
    canvas: np.ndarray,
    painter: HandPainter,
    rng: np.random.Generator,
    skin: np.ndarray,
    sleeve: np.ndarray,
    px_per_square: float,
    shadow_offset: tuple[float, float],
) -> None:
    """Composite a shaded hand and arm (and their soft shadow) onto a float32 canvas."""
    mask = painter.mask
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return
    h, w = mask.shape
    dx, dy = shadow_offset
    pad = int(abs(dx) + abs(dy) + 3 * max(1.0, 0.25 * px_per_square)) + 2
    x0, x1 = max(0, xs.min() - pad), min(w, xs.max() + pad + 1)
    y0, y1 = max(0, ys.min() - pad), min(h, ys.max() + pad + 1)
    view = canvas[y0:y1, x0:x1]
    m = mask[y0:y1, x0:x1]
    alpha = m.astype(np.float32) / 255.0
    # Shadow: the hand's outline shifted away from the light and blurred.
    shift = np.array([[1, 0, dx], [0, 1, dy]], dtype=np.float32)
    sh = cv2.warpAffine(alpha, shift, (x1 - x0, y1 - y0))
    sh = soft_blur(sh, max(1.0, 0.25 * px_per_square))
    keep = 1.0 - 0.45 * sh
    # Rounded look: brighter along the middle of each limb, darker at its outline.
    dist = cv2.distanceTransform((m > 127).astype(np.uint8), cv2.DIST_L2, 3)
    roundness = np.sqrt(np.clip(dist / max(1.0, 0.45 * px_per_square), 0, 1))
    shade = 0.6 + 0.45 * roundness
    hh, ww = m.shape
    shade += 0.03 * cv2.resize(rng.standard_normal((hh // 40 + 2, ww // 40 + 2)).astype(np.float32),
                               (ww, hh), interpolation=cv2.INTER_CUBIC)
    creases = painter.creases[y0:y1, x0:x1]
    if creases.any():
        shade *= 1.0 - 0.3 * soft_blur(creases, max(0.8, 0.03 * px_per_square)) / 255.0
    sl = painter.sleeve[y0:y1, x0:x1].astype(np.float32)[..., None] / 255.0
    base = skin[None, None, :] * (1 - sl) + sleeve[None, None, :] * sl
    colour = shade[..., None] * base
    view *= (keep * (1.0 - alpha))[..., None]
    view += colour * alpha[..., None]
