"""Finding the board by its lattice of grid lines, whatever the felt's outline says.

A glare spot, a board full of white discs or a dark, noisy room breaks the felt
into pieces, and the outline of the largest piece is then not the board's. The
printed grid holds all the same wherever it is seen: straight dark lines in two
families, each family meeting at one vanishing point. Once both vanishing points
are known, the view is rectified up to an affine map, where each family's lines
are parallel and evenly spaced; their spacing and phase then come from a 1-D
profile, and which 8 x 8 window of the endless lattice is the board from where
the lines stop and the felt's edge is. The outlines found this way are
candidates like the felt's own and are judged the same way (see
:mod:`controller.vision.finding.finder`).
"""

from __future__ import annotations

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.colour import ColourModel
from controller.vision.cv import components, cv2

CANVAS = 480  # side of the rectified working canvas, pixels
FAMILY_SPREAD = np.radians(28)  # lines of one family lie within this angle of its strongest
FAMILY_APART = np.radians(35)  # the two families' strongest lines are at least this far apart
VP_TOLERANCE = np.sin(np.radians(2.0))  # a line passes this close to its family's vanishing point
MIN_FAMILY = 4  # lines a family needs to pin its vanishing point
WINDOWS = 3  # board windows handed on per lattice
DIRECTIONS = 3  # strong line directions whose pairs may be the grid's two families


def _residual(lines: np.ndarray, v: np.ndarray, centre: np.ndarray) -> np.ndarray:
    """|sin| of the angle between each line and the direction to the point ``v``
    (homogeneous; at infinity it is a direction)."""
    a, b, c = lines[:, 0], lines[:, 1], lines[:, 2]
    d = a * centre[0] + b * centre[1] + c
    foot = centre[None, :] - d[:, None] * np.stack([a, b], axis=1)
    to_v = v[None, :2] - foot * v[2]
    n = np.linalg.norm(to_v, axis=1) + 1e-12
    along = np.stack([-b, a], axis=1)
    return np.abs(along[:, 0] * to_v[:, 1] - along[:, 1] * to_v[:, 0]) / n


def _vanishing_point(lines: np.ndarray, weight: np.ndarray,
                     centre: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The point most of ``lines`` pass through (RANSAC over pairs), and the inliers."""
    n = len(lines)
    best, best_in = None, None
    best_w = 0.0
    for i in range(min(n, 12)):
        for j in range(i + 1, min(n, 12)):
            v = np.cross(lines[i], lines[j])
            if not np.isfinite(v).all() or np.linalg.norm(v) < 1e-12:
                continue
            v = v / np.linalg.norm(v)
            inl = _residual(lines, v, centre) < VP_TOLERANCE
            w = float(weight[inl].sum())
            if w > best_w:
                best, best_in, best_w = v, inl, w
    if best is None or best_in is None or best_in.sum() < MIN_FAMILY:
        return None
    # refine on the inliers: the point nearest to all of them, in centred coordinates
    scale = float(np.linalg.norm(centre)) + 1.0
    t = np.array([[1 / scale, 0, -centre[0] / scale], [0, 1 / scale, -centre[1] / scale],
                  [0, 0, 1]])
    ln = lines[best_in] @ np.linalg.inv(t)
    ln = ln / np.linalg.norm(ln[:, :2], axis=1, keepdims=True)
    _, _, vt = np.linalg.svd(ln * weight[best_in, None])
    v = np.linalg.inv(t) @ vt[-1]
    v = v / np.linalg.norm(v)
    inl = _residual(lines, v, centre) < VP_TOLERANCE
    if inl.sum() < MIN_FAMILY:
        return best, best_in
    return v, inl


def _gap(a: np.ndarray | float, b: float) -> np.ndarray:
    """Angle between directions (0..pi) ``a`` and ``b``, at most a right angle."""
    d = np.abs(np.asarray(a) - b) % np.pi
    return np.minimum(d, np.pi - d)


def _family_pairs(angle: np.ndarray, weight: np.ndarray,
                  most: int = 1) -> list[tuple[np.ndarray, np.ndarray]]:
    """Indices of up to ``most`` pairs of line families, each the segments near one
    of two directions far enough apart: first the strongest direction (by summed
    segment length) with the strongest one apart from it; then pairs of the other
    strong directions. A striped table cloth or the long edges of a reflection can
    outweigh one of the grid's directions (and lie too near the other for a pair
    with it), and the grid's own two families are then a later pair."""
    bins = 90
    hist = np.bincount((angle / np.pi * bins).astype(int) % bins, weight, bins)
    hist = np.convolve(np.concatenate([hist[-2:], hist, hist[:2]]), np.ones(5), "valid")
    centres = (np.arange(bins) + 0.5) * np.pi / bins
    first = float(centres[int(np.argmax(hist))])
    second = float(centres[int(np.argmax(np.where(_gap(centres, first) >= FAMILY_APART,
                                                  hist, -1)))])
    peaks = [first]
    left = hist.copy()
    while len(peaks) < DIRECTIONS:
        left = np.where(_gap(centres, peaks[-1]) < FAMILY_SPREAD, -1, left)
        if left.max() <= 0:
            break
        peaks.append(float(centres[int(np.argmax(left))]))
    strength = dict(zip(centres.tolist(), hist.tolist(), strict=True))
    others = sorted(((a, b) for k, a in enumerate(peaks) for b in peaks[k + 1:]
                     if _gap(a, b) >= FAMILY_APART and {a, b} != {first, second}),
                    key=lambda ab: -(strength[ab[0]] + strength[ab[1]]))
    out = []
    for a, b in [(first, second), *others][:most]:
        ga, gb = _gap(angle, a), _gap(angle, b)
        fa = np.nonzero((ga < FAMILY_SPREAD) & (ga < gb))[0]
        fb = np.nonzero((gb < FAMILY_SPREAD) & (gb <= ga))[0]
        if len(fa) >= MIN_FAMILY and len(fb) >= MIN_FAMILY:
            out.append((fa, fb))
    return out


def _rectifier(va: np.ndarray, vb: np.ndarray, roi: np.ndarray) -> np.ndarray | None:
    """Image -> canvas: family A's lines vertical, family B's horizontal, each
    evenly spaced; the region of interest fitted into the canvas."""
    scale = float(np.ptp(roi, axis=0).max()) + 1.0
    centre = roi.mean(axis=0)
    t = np.array([[1 / scale, 0, -centre[0] / scale], [0, 1 / scale, -centre[1] / scale],
                  [0, 0, 1]])
    a, b = t @ va, t @ vb
    vl = np.cross(a, b)
    if abs(vl[2]) < 1e-9:
        return None
    vl = vl / vl[2]
    hp = np.array([[1, 0, 0], [0, 1, 0], vl], float)
    da, db = (hp @ a)[:2], (hp @ b)[:2]
    m = np.stack([db / np.linalg.norm(db), da / np.linalg.norm(da)], axis=1)
    if abs(np.linalg.det(m)) < np.sin(np.radians(20)):
        return None
    aff = np.eye(3)
    aff[:2, :2] = np.linalg.inv(m)
    h = aff @ hp @ t
    pts = cv2.perspectiveTransform(roi.reshape(-1, 1, 2).astype(np.float64), h).reshape(-1, 2)
    if not np.isfinite(pts).all():
        return None
    # the region must stay on the near side of the vanishing line
    w = (hp @ t @ np.vstack([roi.T, np.ones(len(roi))]))[2]
    if (w <= 0).any():
        return None
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    s = (CANVAS - 1) / float((hi - lo).max())
    fit = np.array([[s, 0, -lo[0] * s], [0, s, -lo[1] * s], [0, 0, 1]])
    return fit @ h


def _comb(prof: np.ndarray, lo: int, hi: int, p: float, cap: float,
          size: int) -> tuple[float, float]:
    """(first board line, strength) of the best ``size - 1`` consecutive lines (a
    board's inner lines) spaced ``p``."""
    inner = size - 1
    x = np.arange(len(prof), dtype=np.float64)
    n = int((hi - lo) / p) + 1
    ph = np.arange(0, p, 0.5)
    at = lo + ph[:, None] + p * np.arange(n)[None, :]
    on = np.interp(at, x, prof)
    before = np.interp(at - p / 2, x, prof)
    after = np.interp(at + p / 2, x, prof)
    d = np.clip(on - np.maximum(before, after), -cap, cap)
    d[:, (at[0] + p / 2 >= hi) | (at[0] - p / 2 < lo)] = -cap
    c = np.cumsum(np.pad(d, ((0, 0), (1, 0))), axis=1)
    win = c[:, inner:] - c[:, :-inner]  # the inner lines starting at each k
    k = np.unravel_index(int(np.argmax(win)), win.shape)
    return float(lo + ph[k[0]] + p * (k[1] - 1)), float(win[k]) / inner


def _period(prof: np.ndarray, extent: tuple[int, int],
            size: int) -> tuple[float, float] | None:
    """(spacing, first board line) of the 7 evenly spaced lines standing out most of
    the middles beside them in ``prof`` over ``extent``. Only 7 consecutive lines
    are judged: past the board the lattice stops, and the table must not count
    against it."""
    lo, hi = extent
    span = hi - lo
    if span < 40:
        return None
    cap = 3.0 * float(np.median(prof[lo:hi])) + 1.0
    coarse = [(float(p), *_comb(prof, lo, hi, p, cap, size))
              for p in np.arange(max(5.0, span / 30), span / (size - 0.5), 0.5)
              if int(span / p) + 1 >= size]
    if not coarse:
        return None
    p, _, strength = max(coarse, key=lambda r: r[2])
    if strength <= 0:
        return None
    # the spacing to a tenth of a pixel: over 8 squares a coarse one adds up
    fine = [(float(f), *_comb(prof, lo, hi, f, cap, size))
            for f in np.arange(p - 0.4, p + 0.45, 0.1)]
    p, first, _ = max(fine, key=lambda r: r[2])
    return p, first


ROI_GROW = 0.35  # the felt's hull is grown by this share of its size: glare or discs
# can hide much of the felt, but the board is still near what is seen of it


def region_of_interest(small: np.ndarray, loose: np.ndarray) -> np.ndarray | None:
    """Where to look for the lattice: around the larger pieces of green (``loose``,
    0/1), grown, since glare or rows of discs can leave much of the board unseen."""
    n, labels, stats, _ = components(loose)
    if n <= 1:
        return None
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.nonzero(areas >= 0.1 * areas.max())[0] + 1
    ys, xs = np.nonzero(np.isin(labels, keep))
    hull = cv2.convexHull(np.column_stack([xs, ys]).astype(np.int32)).reshape(-1, 2)
    return grown(hull.astype(np.float64), small.shape)


def grown(poly: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """The convex polygon ``poly`` grown by ``ROI_GROW`` of its size, kept inside
    an image of ``shape``."""
    centre = poly.mean(axis=0)
    grow = ROI_GROW * np.sqrt(max(cv2.contourArea(poly.astype(np.float32)), 1.0))
    d = poly - centre
    dist = np.linalg.norm(d, axis=1, keepdims=True)
    out = centre + d * (1 + grow / np.maximum(dist, 1.0))
    out[:, 0] = out[:, 0].clip(0, shape[1] - 1)
    out[:, 1] = out[:, 1].clip(0, shape[0] - 1)
    return out


def _prepared(gray: np.ndarray, mask: np.ndarray, cell: float) -> np.ndarray:
    """The grey image over its own smooth background, smoothed as much as its
    noise asks: a glare spot's glow, a lamp's pool of light and a dim room all
    leave the thin lines the same dips, and the speckle no clearer."""
    g = gray.astype(np.float32)
    back = cv2.GaussianBlur(g, (0, 0), max(2.0, 0.7 * cell))
    ratio = g / (back + 4.0)
    r = np.clip((ratio - 0.4) * (255.0 / 1.2), 0, 255)
    noise = float(np.median(np.abs(r - cv2.blur(r, (3, 3)))[mask > 0]))
    sigma = float(np.clip(noise / 3.0, 1.0, 3.0))
    return cv2.GaussianBlur(r, (0, 0), sigma).astype(np.uint8)


def _segments(gray: np.ndarray, mask: np.ndarray,
              cell: float) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Straight segments inside ``mask`` at least a third of a square long:
    homogeneous lines ((a, b) unit), directions (0..pi) and lengths, longest first."""
    seg = cv2.createLineSegmentDetector(cv2.LSD_REFINE_NONE).detect(_prepared(gray, mask, cell))[0]
    if seg is None:
        return None
    seg = seg.reshape(-1, 4).astype(np.float64)
    p, q = seg[:, :2], seg[:, 2:]
    length = np.linalg.norm(q - p, axis=1)
    mid = ((p + q) / 2).astype(int)
    mid[:, 0] = mid[:, 0].clip(0, gray.shape[1] - 1)
    mid[:, 1] = mid[:, 1].clip(0, gray.shape[0] - 1)
    ok = (length >= 0.35 * cell) & (mask[mid[:, 1], mid[:, 0]] > 0)
    p, q, length = p[ok], q[ok], length[ok]
    if len(p) < 2 * MIN_FAMILY:
        return None
    order = np.argsort(-length)
    p, q, length = p[order], q[order], length[order]
    d = q - p
    angle = np.arctan2(d[:, 1], d[:, 0]) % np.pi
    lines = np.cross(np.column_stack([p, np.ones(len(p))]), np.column_stack([q, np.ones(len(q))]))
    lines /= np.linalg.norm(lines[:, :2], axis=1, keepdims=True)
    return lines, angle, length


def _vanishing_points(lines: np.ndarray, length: np.ndarray, families: tuple[np.ndarray, ...],
                      centre: np.ndarray) -> list[np.ndarray] | None:
    """Each family's vanishing point, or None if one of them has none."""
    vps = []
    for f in families:
        r = _vanishing_point(lines[f], length[f], centre)
        if r is None:
            return None
        vps.append(r[0])
    return vps


def lattice_quads(small: np.ndarray, roi: np.ndarray, doubled: bool = False,
                  pairs: int = 1, size: int = STANDARD) -> list[np.ndarray]:
    """Board outlines (corners in ``small``'s pixels, a1 h1 h8 a8 in lattice order)
    from the grid lines seen inside the polygon ``roi``.

    Straight segments (the edges of the printed lines, and of the felt between
    discs) give each family's vanishing point; segments are found on a smoothed
    copy, so that a dim, noisy picture's speckle makes none. ``doubled``: the
    outlines with one family's spacing taken twice as wide instead (see
    :func:`_doubled`). ``pairs``: the lattices of up to that many pairs of line
    directions (see :func:`_family_pairs`), the strongest pair's first.
    """
    gray = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    mask = np.zeros(gray.shape, np.uint8)
    cv2.fillConvexPoly(mask, roi.astype(np.int32), 1)
    cell = np.sqrt(cv2.contourArea(roi.astype(np.float32))) / 10
    found = _segments(gray, mask, cell)
    if found is None:
        return []
    lines, angle, length = found
    centre = roi.reshape(-1, 2).mean(axis=0)
    outline = roi.reshape(-1, 2).astype(np.float64)
    out: list[np.ndarray] = []
    for fam in _family_pairs(angle, length, pairs):
        vps = _vanishing_points(lines, length, fam, centre)
        rect = None if vps is None else _rectifier(vps[0], vps[1], outline)
        if rect is not None:
            out += _windows(small, mask, rect, doubled, size)
    return out


def _windows(small: np.ndarray, mask: np.ndarray, rect: np.ndarray,
             doubled: bool, across: int) -> list[np.ndarray]:
    """The lattice's spacing and phase on the rectified canvas, and the ``across`` x
    ``across`` windows of it that best hold the board."""
    size = (CANVAS, CANVAS)
    m = cv2.warpPerspective(mask, rect, size, flags=cv2.INTER_NEAREST)
    felt, dark_v, dark_h = _maps(cv2.warpPerspective(small, rect, size))
    cols = np.nonzero(m.any(axis=0))[0]
    rows = np.nonzero(m.any(axis=1))[0]
    if len(cols) < 40 or len(rows) < 40:
        return []
    mf = m.astype(np.float32)
    prof_x = (dark_v * mf).sum(axis=0) / np.maximum(mf.sum(axis=0), 1)
    prof_y = (dark_h * mf).sum(axis=1) / np.maximum(mf.sum(axis=1), 1)
    px = _period(prof_x, (int(cols[0]), int(cols[-1])), across)
    py = _period(prof_y, (int(rows[0]), int(rows[-1])), across)
    if px is None or py is None:
        return []
    spacings = [(px, py)]
    if doubled:
        spacings = [(wide, py) for wide in _doubled(px)] + [(px, wide) for wide in _doubled(py)]
    inv = np.linalg.inv(rect)
    out = []
    for (p, ph), (q, qh) in spacings:
        for _, i0, j0 in _board_windows(felt, dark_v, dark_h, p, ph, q, qh, across):
            x0, y0 = ph + i0 * p, qh + j0 * q
            x1, y1 = x0 + across * p, y0 + across * q
            c = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
            quad = cv2.perspectiveTransform(c.reshape(-1, 1, 2), inv).reshape(-1, 2)
            if np.isfinite(quad).all():
                out.append(quad)
    return out


def _doubled(spacing: tuple[float, float]) -> list[tuple[float, float]]:
    """The lattice twice as wide, on either of the lines: when a reflection or the
    dark hides half the board's lines, lines half a square apart (every other one
    a square's middle, which stands out of nothing) can outscore the true spacing
    over the seven lines the comb judges."""
    p, first = spacing
    return [(2 * p, first), (2 * p, first + p)]


def _maps(canvas: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Felt, and thin dark upright and level stripes, on a rectified view."""
    felt = ColourModel().felt(cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV)).astype(np.float32)
    g = cv2.GaussianBlur(cv2.cvtColor(canvas, cv2.COLOR_BGR2GRAY), (3, 3), 0.8)
    kk = 9
    dark_v = cv2.morphologyEx(g, cv2.MORPH_BLACKHAT, np.ones((1, kk), np.uint8)).astype(np.float32)
    dark_h = cv2.morphologyEx(g, cv2.MORPH_BLACKHAT, np.ones((kk, 1), np.uint8)).astype(np.float32)
    return felt, dark_v, dark_h


def _board_windows(felt: np.ndarray, dark_v: np.ndarray, dark_h: np.ndarray, p: float,
                   ph: float, q: float, qh: float, size: int) -> list[tuple[float, int, int]]:
    """(score, lattice offsets in cells from the first board line found) of the
    ``size`` x ``size`` windows that best hold the board: the grid lines stand out along the 7 inner
    lines' every square (past the board they stop), and the felt stops at the
    window's edge (a felt-green table goes on past it)."""
    n = felt.shape[1]
    ki = np.arange(int(np.floor(-ph / p)) - 1, int((n - ph) / p) + 1)
    kj = np.arange(int(np.floor(-qh / q)) - 1, int((n - qh) / q) + 1)
    xs = ph + ki * p  # left line of each column of cells
    ys = qh + kj * q
    cf = np.zeros((len(kj), len(ki)))
    vl = np.zeros((len(kj), len(ki)))  # line on a cell's left side, over its middle
    hl = np.zeros((len(kj), len(ki)))  # ... on its top side
    for b, y in enumerate(ys):
        y0, y1 = int(round(y)), int(round(y + q))
        y0c, y1c = max(0, y0), min(n, y1)
        if y1c - y0c < 2:
            continue
        for a, x in enumerate(xs):
            x0, x1 = int(round(x)), int(round(x + p))
            x0c, x1c = max(0, x0), min(n, x1)
            if x1c - x0c < 2:
                continue
            cf[b, a] = felt[y0c:y1c, x0c:x1c].mean()
            xm = int(round(x + p / 2))
            ym = int(round(y + q / 2))
            if 2 <= x0 < n - 2 and xm < n:
                vl[b, a] = (dark_v[y0c:y1c, x0 - 1:x0 + 2].max(axis=1).mean()
                            - dark_v[y0c:y1c, xm].mean())
            if 2 <= y0 < n - 2 and ym < n:
                hl[b, a] = (dark_h[y0 - 1:y0 + 2, x0c:x1c].max(axis=0).mean()
                            - dark_h[ym, x0c:x1c].mean())
    pos = np.concatenate([vl[vl > 0], hl[hl > 0]])
    scale = float(np.percentile(pos, 75)) + 1e-3 if pos.size else 1.0
    vl = np.clip(vl / scale, -1, 1)
    hl = np.clip(hl / scale, -1, 1)
    padded = np.pad(cf, 1)
    scores = []
    s = size
    for b in range(0, max(1, len(kj) - (s - 1))):
        for a in range(0, max(1, len(ki) - (s - 1))):
            inside = padded[b + 1:b + s + 1, a + 1:a + s + 1]
            ring = (padded[b:b + s + 2, a:a + s + 2].sum() - inside.sum()) / (4 * s + 4)
            rim = (inside.sum() - inside[1:-1, 1:-1].sum()) / (4 * s - 4)
            lines = vl[b:b + s, a + 1:a + s].mean() + hl[b + 1:b + s, a:a + s].mean()
            score = lines + rim - ring
            scores.append((float(score), int(ki[a]), int(kj[b])))
    scores.sort(key=lambda s: -s[0])
    return scores[:WINDOWS]
