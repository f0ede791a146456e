"""The felt's outline as a cue to where the board is.

The felt is found by its hue, or by its green chroma when it is too dark or grey
for the hue test; the convex hull of each felt region bridges the notches that
discs on the edge squares cut into its outline, and four lines fitted to the
hull's sides give a candidate outline (see :mod:`controller.vision.finding.finder` for how
candidates are judged). In a dim picture the sensor's noise passes or fails single
pixels of felt and table alike, and the felt only shows as where green pixels are
dense: the guesses of :func:`outline_guesses` also look there.
"""

from __future__ import annotations

import itertools

import numpy as np

from controller.errors import KaeshiError
from controller.vision.cv import components, cv2
from controller.vision.geometry import upright_order

WORK_SIZE = 800  # longest side of the working copy used for the coarse search
MIN_AREA = 0.008  # share of the image a playing area covers at the least
MIN_CHROMA = 0.05  # green's excess over red and blue, relative to green, of any felt
GUESS_RUNS = 6  # a felt outline's longest straight runs combined into guessed outlines
PUSHED = (1.3, 1.6, 2.0)  # a guessed outline's side pushed out, times the sides beside it
OVER_FELT = 1.6  # area of an outline, to the felt's hull, beyond which it is no board's
DENSE_WINDOW = 1 / 40  # of the working copy's longest side: where green pixels are counted


class BoardNotFound(KaeshiError):
    """No playing area could be found; the message says what was seen instead.

    ``felt_seen``: the finder did find a felt-coloured area, only no board on it.
    What the user is told to change follows from it: a felt too dark or too grey
    for a plain hue test is still felt, and "no felt in view" would send the user to
    re-aim a camera that points at the board."""

    def __init__(self, message: str, felt_seen: bool = False) -> None:
        super().__init__(message)
        self.felt_seen = felt_seen


def green_mask_hsv(hsv: np.ndarray) -> np.ndarray:
    """Board felt under any reasonable light: a green hue with real saturation."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    return ((h >= 30) & (h <= 95) & (s >= 55) & (v >= 14)).astype(np.uint8)


def _largest_component(mask: np.ndarray) -> tuple[np.ndarray, int]:
    n, labels, stats, _ = components(mask)
    if n <= 1:
        return np.zeros_like(mask), 0
    areas = stats[1:, cv2.CC_STAT_AREA]
    best = int(np.argmax(areas)) + 1
    return (labels == best).astype(np.uint8), int(areas[best - 1])


def clean_mask(mask: np.ndarray) -> np.ndarray:
    """Drop specks of noise, then close the grid lines and the gaps between discs."""
    side = max(mask.shape)
    k = max(3, side // 200) | 1
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((k, k), np.uint8))
    kc = max(5, side // 60) | 1
    return cv2.morphologyEx(mask, cv2.MORPH_CLOSE, np.ones((kc, kc), np.uint8))


def _otsu(values: np.ndarray) -> float:
    v = np.clip(values, 0, 255).astype(np.uint8).reshape(-1, 1)
    t, _ = cv2.threshold(v, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return float(t)


def green_chroma(small: np.ndarray) -> np.ndarray:
    """Green's excess over the larger of red and blue, relative to green (0..1).

    Unlike saturation and value, it does not fall with the light: a dark felt in
    a dim room, or one washed out by JPEG, keeps its share of green.
    """
    f = cv2.blur(small, (3, 3)).astype(np.float32)
    b, g, r = f[..., 0], f[..., 1], f[..., 2]
    return np.clip((g - np.maximum(r, b)) / (g + 8.0), 0, 1)


def _chroma_regions(small: np.ndarray) -> list[np.ndarray]:
    """Felt candidates from the green-chroma cue, split where the image says."""
    chroma = green_chroma(small)
    on = chroma >= MIN_CHROMA
    out: list[np.ndarray] = []
    if on.sum() < 0.5 * MIN_AREA * on.size:
        return out
    cut = max(MIN_CHROMA, _otsu(chroma[on] * 255) / 255)
    for test in (on, chroma >= cut):
        region = _playing_area(clean_mask(test.astype(np.uint8)))
        if region is not None:
            out.append(region)
    return out


def _dense_regions(small: np.ndarray) -> list[np.ndarray]:
    """Felt candidates where pixels passing the hue test, or the chroma test, are
    denser than around them.

    In a dim room the noise passes many of the table's pixels and fails many of the
    felt's, in specks a few pixels wide that opening the mask cannot part (it
    erodes both alike), but counted over a window wider than the specks, as wide as
    a small board's square, the felt stands out. The window rounds the region's
    corners, which the lines fitted to its sides do not follow.
    """
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    k = max(5, int(max(small.shape[:2]) * DENSE_WINDOW)) | 1
    out = []
    for on in (green_mask_hsv(hsv) > 0, green_chroma(small) >= MIN_CHROMA):
        if on.sum() < MIN_AREA * on.size:
            continue  # too few green pixels for a playing area, however dense
        dense = cv2.blur(on.astype(np.float32), (k, k))
        region = _playing_area((dense >= _otsu(dense * 255) / 255).astype(np.uint8))
        if region is not None:
            out.append(region)
    return out


def _playing_area(mask: np.ndarray) -> np.ndarray | None:
    """The mask's largest region, when it is large enough to be a playing area."""
    region, area = _largest_component(mask)
    return region if area >= MIN_AREA * region.size else None


def _green_regions(small: np.ndarray) -> list[np.ndarray]:
    """Candidate felt regions, from loose to strict colour tests.

    A green cloth on the table, a greyish-green wall or heavy noise passes the
    loose test and merges with the felt; the felt is usually the more saturated
    and brighter of the two, which the stricter (Otsu-split) tests pick out. A
    felt too dark or too grey for the hue test still shows in the green chroma.
    """
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    loose = green_mask_hsv(hsv)
    region, area = _largest_component(clean_mask(loose))
    if area < MIN_AREA * region.size:
        raise BoardNotFound(
            f"no board in the image: the largest green area covers only "
            f"{100 * area / region.size:.1f}% of it"
        )
    out = [region]
    on = loose > 0
    s_cut = _otsu(hsv[..., 1][on])
    v_cut = _otsu(hsv[..., 2][on])
    med_s = float(np.median(hsv[..., 1][region > 0]))
    tests = (
        hsv[..., 1] >= 0.6 * med_s,
        hsv[..., 1] >= s_cut,
        (hsv[..., 1] >= s_cut) & (hsv[..., 2] >= v_cut),
        hsv[..., 2] >= v_cut,
    )
    for test in tests:
        tight = (on & test).astype(np.uint8)
        region2, area2 = _largest_component(clean_mask(tight))
        if area2 >= MIN_AREA * region2.size and area2 < 0.97 * area:
            out.append(region2)
    return out


def _line_through(points: np.ndarray) -> np.ndarray:
    """Homogeneous line a*x + b*y + c = 0 by total least squares."""
    mean = points.mean(axis=0)
    _, _, vt = np.linalg.svd(points - mean, full_matrices=False)
    normal = vt[1]
    return np.array([normal[0], normal[1], -normal @ mean])


def _hull_sides(hull: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """The hull outline as straight runs, near-collinear neighbours merged."""
    peri = cv2.arcLength(hull, True)
    poly = cv2.approxPolyDP(hull, 0.012 * peri, True).reshape(-1, 2).astype(np.float64)
    sides = [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]
    merged = True
    while merged and len(sides) > 4:
        merged = False
        for i in range(len(sides)):
            a, b = sides[i], sides[(i + 1) % len(sides)]
            da, db = a[1] - a[0], b[1] - b[0]
            cos = da @ db / (np.linalg.norm(da) * np.linalg.norm(db) + 1e-9)
            if cos > np.cos(np.radians(9)):
                j = (i + 1) % len(sides)
                sides[i] = (a[0], b[1])
                del sides[j]
                merged = True
                break
    return sides


def _quad_from_hull(hull: np.ndarray) -> np.ndarray:
    """Four lines along the hull's four longest straight runs, intersected.

    A hand or a glare over one corner cuts that corner off the felt's outline, but
    the four sides stay the longest runs, so the hidden corner is recovered.
    """
    sides = _hull_sides(hull)
    if len(sides) < 4:
        return _box(hull)
    quad = _quad_on(hull, [sides[k] for k in _longest(sides, 4)])
    if quad is None or not _near_felt(quad, hull):
        return _box(hull)
    return quad


def _longest(sides: list[tuple[np.ndarray, np.ndarray]], n: int) -> list[int]:
    """The ``n`` longest of the hull's straight runs, in the hull's order."""
    lengths = np.array([np.linalg.norm(b - a) for a, b in sides])
    return sorted(np.argsort(-lengths)[:n])


def _near_felt(quad: np.ndarray, hull: np.ndarray) -> bool:
    """No corner of ``quad`` far outside the felt's outline (else two of its sides
    were not the board's, or joined runs of two regions)."""
    return cv2.contourArea(quad.astype(np.float32)) <= OVER_FELT * cv2.contourArea(hull)


def _box(hull: np.ndarray) -> np.ndarray:
    return cv2.boxPoints(cv2.minAreaRect(hull)).astype(np.float64)


def _quad_on(hull: np.ndarray, sides: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray | None:
    """The quadrilateral of lines fitted along four of the hull's straight runs
    (in the hull's order), or None when two of them are parallel."""
    pts = _densify(hull.reshape(-1, 2).astype(np.float64))
    lines = []
    for p, q in sides:
        d = q - p
        length = np.linalg.norm(d)
        u = d / length
        nrm = np.array([-u[1], u[0]])
        rel = pts - p
        along = rel @ u
        dist = np.abs(rel @ nrm)
        sel = (along > 0.1 * length) & (along < 0.9 * length) & (dist < 0.02 * length + 2)
        if sel.sum() < 5:
            lines.append(np.cross(np.append(p, 1), np.append(q, 1)))
        else:
            lines.append(_line_through(pts[sel]))
    out = []
    for i in range(4):
        x = np.cross(lines[i - 1], lines[i])
        if abs(x[2]) < 1e-9:
            return None
        out.append(x[:2] / x[2])
    return np.array(out)


def _densify(poly: np.ndarray, step: float = 2.0) -> np.ndarray:
    out = []
    for i in range(len(poly)):
        p, q = poly[i], poly[(i + 1) % len(poly)]
        n = max(1, int(np.linalg.norm(q - p) / step))
        t = np.arange(n)[:, None] / n
        out.append(p + t * (q - p))
    return np.vstack(out)


def coarse_quads(image: np.ndarray, cue: str = "hue") -> list[np.ndarray]:
    """Candidate outlines of the playing area, upright-ordered (image pixels).

    ``cue`` says how the felt is told from the rest: ``hue`` (a green hue with real
    saturation) or ``chroma`` (green's share over red and blue, for felts too dark
    or grey for the first).
    """
    hulls, scale, least = _felt_hulls(image, cue)
    quads = []
    for hull in hulls:
        q = _quad_from_hull(hull)
        if cv2.contourArea(q.astype(np.float32)) >= least:
            quads.append(upright_order(q) / scale)
    if not quads:
        raise BoardNotFound("the green area found is too small to be a board", felt_seen=True)
    return quads


def outline_guesses(image: np.ndarray) -> list[np.ndarray]:
    """Guessed outlines of a board whose felt a lamp's reflection partly washes out
    (both cues), upright-ordered, image pixels.

    A reflection over a corner leaves a straight cut across it that can outrun a
    side the frame's shadow shortened, and then the four longest runs of the
    felt's outline are not the board's four sides: any four of the
    ``GUESS_RUNS`` longest are guessed. A reflection right across the board hides
    the felt beyond a straight cut that the outline takes for a side: each outline
    is guessed with one side pushed out by each of ``PUSHED``. The felt of a dim,
    noisy picture is looked for where green pixels are dense, too. They are many
    (tens to a hundred) and mostly wrong, so only a caller that can tell the
    board's by what it shows (calibration, by the start position) asks for them.
    No felt: no guesses.
    """
    guesses = []
    for cue in ("hue", "chroma", "dense"):
        try:
            hulls, scale, least = _felt_hulls(image, cue)
        except BoardNotFound:
            continue
        for hull in hulls:
            quads = _run_combinations(hull)
            quads += _pushed_out(_quad_from_hull(hull))
            guesses += [upright_order(q) / scale for q in quads
                        if cv2.isContourConvex(q.astype(np.float32))
                        and cv2.contourArea(q.astype(np.float32)) >= least]
    return guesses


def _run_combinations(hull: np.ndarray) -> list[np.ndarray]:
    """Quadrilaterals on any four of the hull's ``GUESS_RUNS`` longest straight runs
    that stay near the felt (a corner far outside it joins runs of two regions)."""
    sides = _hull_sides(hull)
    quads = [_quad_on(hull, [sides[k] for k in four])
             for four in itertools.combinations(_longest(sides, GUESS_RUNS), 4)]
    return [q for q in quads if q is not None and _near_felt(q, hull)]


def _pushed_out(quad: np.ndarray) -> list[np.ndarray]:
    """``quad`` with each side in turn pushed out along the two sides beside it, to
    ``PUSHED`` times their length."""
    out = []
    for k in range(4):
        before, a, b, after = (k - 1) % 4, k, (k + 1) % 4, (k + 2) % 4
        for f in PUSHED:
            q = quad.copy()
            q[a] = quad[before] + f * (quad[a] - quad[before])
            q[b] = quad[after] + f * (quad[b] - quad[after])
            out.append(q)
    return out


def _felt_hulls(image: np.ndarray, cue: str) -> tuple[list[np.ndarray], float, float]:
    """Convex hulls of the felt regions ``cue`` finds in the working copy, the
    working copy's scale, and the least area (working pixels) of a playing area."""
    if image is None or image.ndim != 3 or image.shape[2] != 3 or min(image.shape[:2]) < 32:
        raise BoardNotFound("the image is empty or too small to hold a board")
    scale = WORK_SIZE / max(image.shape[:2])
    small = image
    if scale < 1:
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    else:
        scale = 1.0
    if cue == "hue":
        regions = _green_regions(small)
    elif cue == "chroma":
        regions = _chroma_regions(small)
    else:
        regions = _dense_regions(small)
    hulls = []
    for region in regions:
        contours, _ = cv2.findContours(region, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
        hulls.append(cv2.convexHull(max(contours, key=cv2.contourArea)))
    return hulls, scale, MIN_AREA * small.shape[0] * small.shape[1]


def coarse_quad(image: np.ndarray) -> np.ndarray:
    return coarse_quads(image)[0]
