"""Boards cut off by the image's edge: the lattice placed from what is visible.

A webcam that does not quite see the whole board shows a felt region whose outline
runs along the image's border on one side. The finder takes that side for a board
edge, so the 8 x 8 lattice is squeezed into the visible part (its spacing then
disagrees with the printed lines) or, where the grid pins the spacing, slid a row
or a column towards the cut, onto the frame. Neither the felt's outline nor the
grid alone can tell: the printed lines give the spacing but repeat every square,
and only a board edge that is really seen (felt stops, frame begins) fixes which
line is the first. So, once the felt is seen to run into the image border, the
lattice's spacing and direction are taken from the printed lines, and it is slid by
whole squares to where the board edges that are seen put it: a cut edge lies 8
squares from the opposite one. Where what is seen does not say, or the new lattice
sits worse on the visible lines than the finder's, the finder's is kept. Squares
the picture cuts read ``?``, reason ``outside`` (``Layout.outside``, sampling.py).
"""

from __future__ import annotations

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.colour import ColourModel
from controller.vision.cv import cv2
from controller.vision.finding.grid import CELL, line_evidence, refine_on_grid

JUDGE_CELL = 16  # pixels per square where felt is judged (the printed lines need CELL)
MARGIN = 4  # squares of canvas around the current lattice: room for the part cut off
REACH = 3.5  # squares past the lattice within which an image border counts as near
CUT_RUN = 1.0  # squares of felt along the image border that say the board runs past it
MIN_PERIOD = 0.55  # square widths (of the current lattice) a true square spans at least
SHEARS = (-0.16, -0.08, 0.0, 0.08, 0.16)  # skews of the lines tried in the current lattice
PEAK = 0.3  # share of the profile's highest peak a line must reach to count
MIN_LINES = 4  # lines seen along an axis, at the least, to measure its spacing
LINE_FIT = 0.2  # share of a square the lines may stray from a projective lattice
FELT_HUE = 12  # OpenCV hue either side of the board's own felt colour ...
FELT_SAT = (0.55, 1.8)  # ... saturation and brightness relative to it, that still
FELT_VAL = (0.4, 2.5)  # count as that felt (shade and light vary over a board)
BOARD_SQUARE = 0.7  # felt share of a square's corners that says it is on the board ...
BARE_SQUARE = 0.55  # ... and below which it is off it (frame, table, a margin of felt)
BOARD_LINE = 0.5  # votes of a column (share of its squares, board less not) plainly board
PLACE_MARGIN = 0.75  # columns' worth of votes by which the best placing must beat the next
MOVE_MARGIN = 1.5  # ... and the lattice as it was, to move it (an edge row half off the
# felt, or glare, moves the votes by less; a whole row or column off by more)
SAME_SPACING = 0.07  # relative change of the lattice's size below which it was not squeezed
NET_SLACK = 0.02  # net grid a new lattice may see less than the finder's (noise)
SEEN_SQUARE = 0.5  # share of a square inside the image for it to be judged at all


def _canvas(n: int, cell: int = CELL) -> tuple[np.ndarray, int]:
    """Board squares -> canvas pixels (with ``MARGIN`` squares each side), and side."""
    t = np.array([[cell, 0, MARGIN * cell], [0, cell, MARGIN * cell], [0, 0, 1]], float)
    return t, int((n + 2 * MARGIN) * cell)


def near_border(h: np.ndarray, size: tuple[int, int], n: int = STANDARD) -> bool:
    """Whether the lattice, grown by ``REACH`` squares, reaches the image border
    (``size`` is width, height): a cheap test that leaves a board well inside the
    picture alone (a squeezed lattice can lie squares inside the felt's edge)."""
    r = REACH
    edge = np.linspace(-r, n + r, n + 1)
    pts = np.vstack([np.column_stack([edge, np.full(n + 1, -r)]),
                     np.column_stack([np.full(n + 1, n + r), edge]),
                     np.column_stack([edge, np.full(n + 1, n + r)]),
                     np.column_stack([np.full(n + 1, -r), edge])])
    ph = np.column_stack([pts, np.ones(len(pts))]) @ h.T
    if (ph[:, 2] <= 0).any():
        return True
    xy = ph[:, :2] / ph[:, 2:]
    w, hh = size
    return bool((xy[:, 0] < 0).any() or (xy[:, 0] > w - 1).any()
                or (xy[:, 1] < 0).any() or (xy[:, 1] > hh - 1).any())


def _warp_seen(image: np.ndarray, to_canvas: np.ndarray, side: int
               ) -> tuple[np.ndarray, np.ndarray]:
    """The image warped onto a ``side`` x ``side`` canvas, and which canvas pixels
    come from inside the picture (the rest is padding, which says nothing)."""
    warped = cv2.warpPerspective(image, to_canvas, (side, side), flags=cv2.INTER_LINEAR)
    ones = np.full(image.shape[:2], 255, np.uint8)
    seen = cv2.warpPerspective(ones, to_canvas, (side, side), flags=cv2.INTER_NEAREST) > 0
    return warped, seen


def _warp(image: np.ndarray, h: np.ndarray, n: int,
          cell: int = CELL) -> tuple[np.ndarray, np.ndarray]:
    """The image on the lattice's canvas, and where the canvas is inside the image.

    Canvas points the homography puts behind the camera are not in the image,
    whatever pixel the warp would fetch for them.
    """
    t, side = _canvas(n, cell)
    warped, seen = _warp_seen(image, t @ np.linalg.inv(h), side)
    back = h @ np.linalg.inv(t)
    w = back[2, 0] * np.arange(side)[None, :] + back[2, 1] * np.arange(side)[:, None] + back[2, 2]
    seen &= np.sign(w) == np.sign(back[2] @ np.array([side / 2, side / 2, 1.0]))
    return warped, seen


def _corner_mask(n: int, cell: int = CELL) -> np.ndarray:
    """Canvas pixels in the corners of every square, where no centred disc reaches."""
    ys, xs = np.mgrid[0:cell, 0:cell]
    d = np.hypot(xs + 0.5 - cell / 2, ys + 0.5 - cell / 2) / cell
    half = 0.42 * cell
    inner = (np.abs(xs + 0.5 - cell / 2) <= half) & (np.abs(ys + 0.5 - cell / 2) <= half)
    across = n + 2 * MARGIN
    return np.tile((d > 0.55) & inner, (across, across))


def _board_felt(
    warped: np.ndarray, seen: np.ndarray, n: int, cell: int = CELL
) -> np.ndarray | None:
    """Pixels of the canvas that look like this board's own felt.

    Its colour is taken from the corners of the lattice's middle squares (which
    the finder put on the board, and where no disc stands): a green cloth or a
    greenish table round the board differs from it, and a dark or dull felt that
    a fixed colour range would miss still matches itself. None: no felt there.
    """
    hsv = cv2.cvtColor(warped, cv2.COLOR_BGR2HSV)
    mid = np.zeros_like(seen)
    lo, hi = (MARGIN + 1) * cell, (MARGIN + n - 1) * cell
    mid[lo:hi, lo:hi] = True
    pick = mid & seen & _corner_mask(n, cell)
    green = ColourModel().felt(hsv) | (hsv[..., 1] > 25)
    px = hsv[pick & green]
    if len(px) < 4 * cell:
        return None
    hue, sat, val = (float(np.median(px[:, k])) for k in range(3))
    h, s, v = (hsv[..., k].astype(np.float32) for k in range(3))
    dh = np.abs(h - hue)
    dh = np.minimum(dh, 180 - dh)
    return ((dh <= FELT_HUE) & (s >= FELT_SAT[0] * sat) & (s <= FELT_SAT[1] * sat + 10)
            & (v >= FELT_VAL[0] * val) & (v <= FELT_VAL[1] * val + 10) & seen)


def cut_axes(seen: np.ndarray, felt: np.ndarray, cell: int = CELL,
             n: int = STANDARD) -> tuple[bool, bool]:
    """Whether the felt near the lattice runs into the image border across the
    columns (x) and across the rows (y) of the lattice.

    The image border is where canvas pixels stop being inside the image; felt
    there for over a square's length means the board goes on past it. Which axis
    that cuts follows from the border's direction in the lattice.
    """
    near = np.zeros_like(seen)
    lo, hi = int((MARGIN - REACH) * cell), int((MARGIN + n + REACH) * cell)
    near[lo:hi, lo:hi] = True
    inner = cv2.erode(seen.astype(np.uint8), np.ones((3, 3), np.uint8), borderValue=1) > 0
    border = seen & ~inner & near
    pts = np.argwhere(border & felt)
    if len(pts) < CUT_RUN * cell:
        return False, False
    # the border's normal, pixel by pixel, from the in-image mask's gradient
    m = cv2.GaussianBlur(seen.astype(np.float32), (0, 0), 2.0)
    gy = cv2.Sobel(m, cv2.CV_32F, 0, 1)[pts[:, 0], pts[:, 1]]
    gx = cv2.Sobel(m, cv2.CV_32F, 1, 0)[pts[:, 0], pts[:, 1]]
    across_x = int((np.abs(gx) > np.abs(gy)).sum())  # border crosses the columns
    across_y = len(pts) - across_x
    return across_x >= CUT_RUN * cell, across_y >= CUT_RUN * cell


def _peaks(profile: np.ndarray, support: np.ndarray) -> np.ndarray | None:
    """Whole-square numbers and positions of the printed lines seen in a profile:
    (n, 2) rows of (number, canvas position), or None when too few stand out.

    Spacing may change along the profile (perspective the current lattice does not
    undo), so lines are numbered by the gaps between neighbours, not by one period.
    """
    p = cv2.GaussianBlur(profile.astype(np.float32).reshape(1, -1), (0, 0), 1.5).ravel()
    p = np.where(support, p, 0.0)
    if p.max() <= 0:
        return None
    gap = MIN_PERIOD * CELL * 0.5
    for _ in range(2):
        tall = p >= PEAK * float(p.max())
        cand = np.flatnonzero(tall & (p >= np.roll(p, 1)) & (p >= np.roll(p, -1)))
        keep: list[int] = []
        for i in cand[np.argsort(-p[cand])]:
            if all(abs(i - j) >= gap for j in keep):
                keep.append(int(i))
        pos = np.sort(np.array(keep, float))
        if len(pos) < MIN_LINES:
            return None
        gap = 0.6 * float(np.median(np.diff(pos)))
    steps = np.diff(pos)
    # a line hidden all along (rare) leaves a gap twice its neighbours'
    number = np.concatenate([[0], np.cumsum(np.maximum(1, np.rint(steps / np.median(steps))))])
    return np.column_stack([number, pos])


def _projective_1d(lines: np.ndarray) -> np.ndarray | None:
    """Fit position = (a k + b) / (c k + 1) to the numbered lines (a row of evenly
    spaced lines seen in perspective); returns (a, b, c), or None if the lines do
    not sit on such a lattice (a disc's rim or the frame taken for a line)."""
    k, x = lines[:, 0], lines[:, 1]
    m = np.column_stack([k, np.ones_like(k), -k * x])
    coef, *_ = np.linalg.lstsq(m, x, rcond=None)
    fit = (coef[0] * k + coef[1]) / (coef[2] * k + 1)
    step = float(np.median(np.diff(x) / np.diff(k)))
    if np.abs(fit - x).max() > LINE_FIT * step:
        return None
    return coef


def _aligned(ev: np.ndarray, axis: int) -> tuple[np.ndarray, float]:
    """The evidence of one family of lines summed along them, and the shear that
    lines them up best (the current lattice may be turned or skewed a little)."""
    side = ev.shape[0]
    c = side / 2
    best: tuple[float, np.ndarray, float] | None = None
    for s in SHEARS:
        m = np.array([[1, -s, s * c], [0, 1, 0]], np.float32)
        if axis == 1:  # horizontal lines: shift each column along y instead
            m = np.array([[1, 0, 0], [-s, 1, s * c]], np.float32)
        img = ev if s == 0 else cv2.warpAffine(ev, m, (side, side), flags=cv2.INTER_NEAREST)
        prof = img.sum(axis=0 if axis == 0 else 1).astype(np.float64)
        sharp = float((prof ** 2).sum()) / (float(prof.sum()) ** 2 + 1e-9)
        if best is None or sharp > best[0]:
            best = (sharp, prof, s)
    assert best is not None
    return best[1], best[2]


def _respace(warped: np.ndarray, felt: np.ndarray, h: np.ndarray,
             n: int) -> np.ndarray | None:
    """``h`` with the lattice's spacing and direction taken from the printed lines.

    The finder's lattice of a cut-off board is squeezed towards the cut and, since
    one side of its outline is the image border and not a board edge, skewed as
    well; the lines themselves are what is sure. Where they show no clear lattice
    it is left as it is (None).
    """
    vert, horz = line_evidence(warped)
    c = warped.shape[0] / 2
    fits = []
    for axis, ev in enumerate((vert, horz)):
        prof, shear = _aligned(ev, axis)
        lines = _peaks(prof, np.asarray(felt.any(axis=0 if axis == 0 else 1)))
        if lines is None:
            return None
        coef = _projective_1d(lines)
        if coef is None:
            return None
        # number the lines near the old lattice's: old square 0 is at MARGIN * CELL
        step = float(np.median(np.diff(lines[:, 1]) / np.diff(lines[:, 0])))
        first = int(lines[0, 0]) + round((MARGIN * CELL - lines[0, 1]) / step)
        fits.append((coef, shear, first))
    src, dst = [], []
    for i in range(-2, n + 3):
        for j in range(-2, n + 3):
            ki, kj = i + fits[0][2], j + fits[1][2]
            (ax, bx, cx), sx = fits[0][0], fits[0][1]
            (ay, by, cy), sy = fits[1][0], fits[1][1]
            if abs(cx * ki + 1) < 0.2 or abs(cy * kj + 1) < 0.2:
                continue
            u0 = (ax * ki + bx) / (cx * ki + 1)  # u - sx (v - c)
            v0 = (ay * kj + by) / (cy * kj + 1)  # v - sy (u - c)
            inv = np.linalg.inv(np.array([[1.0, -sx], [-sy, 1.0]]))
            u, v = inv @ np.array([u0 - sx * c, v0 - sy * c])
            src.append((i, j))
            dst.append((u, v))
    if len(src) < 16:
        return None
    canvas_from_new, _ = cv2.findHomography(np.array(src, float), np.array(dst, float), 0)
    if canvas_from_new is None:
        return None
    t, _ = _canvas(n)
    return h @ np.linalg.inv(t) @ canvas_from_new


def _square_shares(felt: np.ndarray, seen: np.ndarray, n: int,
                   cell: int = CELL) -> tuple[np.ndarray, np.ndarray]:
    """Per canvas square: felt share of its seen corners, and its share inside the
    image."""
    across = n + 2 * MARGIN
    corner = _corner_mask(n, cell)

    def per_square(mask: np.ndarray) -> np.ndarray:
        return (mask & corner).reshape(across, cell, across, cell).sum(
            axis=(1, 3)).astype(np.float64)

    share = per_square(felt) / np.maximum(per_square(seen), 1)
    return share, seen.reshape(across, cell, across, cell).mean(axis=(1, 3))


def _first(share: np.ndarray, inside: np.ndarray, size: int) -> int | None:
    """The canvas column where the board's first column is, from the squares'
    felt shares and in-image shares (rows: the lattice's span across the columns).

    Every column seen says, by its squares, whether it is board or not (frame,
    table, the margin round a grid); the 8 columns that agree best with being the
    board, the others not, are taken if the lattice as it stands (first column
    ``MARGIN``: its numbering follows the finder's, whose outline edges that are
    seen are the board's) agrees clearly less, and no other choice nearly as well;
    None when the choice is unclear.
    Columns outside the picture say nothing, so a cut-off board is placed by the
    edge that is seen, its cut edge 8 squares on.
    """
    judged = inside >= SEEN_SQUARE
    on = ((share >= BOARD_SQUARE) & judged).sum(axis=0)
    off = ((share < BARE_SQUARE) & judged).sum(axis=0)
    vote = (on - off) / float(size)  # +1: a whole column of board, -1: a whole one of none
    n = len(vote)
    scores = []
    for first in range(n - size + 1):
        sign = -np.ones(n)
        sign[first : first + size] = 1
        score = float((sign * vote).sum())
        # felt is no glare's doing: a column plainly of board is never left out
        if (vote[sign < 0] >= BOARD_LINE).any():
            score = -np.inf
        scores.append(score)
    order = np.argsort(scores)[::-1]
    best, second = scores[order[0]], scores[order[1]]
    if not np.isfinite(best):
        return None
    if best - scores[MARGIN] < MOVE_MARGIN:  # the lattice as it is is nearly as good
        return MARGIN
    if best - second < PLACE_MARGIN or vote[order[0] : order[0] + size].sum() <= 0:
        return None
    return int(order[0])


def _place(image: np.ndarray, h: np.ndarray, n: int) -> np.ndarray | None:
    """Slide the lattice by whole squares so that its edges that are seen fall
    where the felt stops; None when what is seen does not fix both axes."""
    warped, seen = _warp(image, h, n, JUDGE_CELL)
    felt = _board_felt(warped, seen, n, JUDGE_CELL)
    if felt is None:
        return None
    share, inside = _square_shares(felt, seen, n, JUDGE_CELL)
    # columns are judged over the board's rows and rows over its columns: each
    # axis's placing moves the span the other is judged on, so it is done twice
    found: list[int | None] = [MARGIN, MARGIN]
    for _ in range(2):
        col0, row0 = (MARGIN if f is None else f for f in found)
        rows, cols = slice(row0, row0 + n), slice(col0, col0 + n)
        found = [_first(share[rows, :], inside[rows, :], n),
                 _first(share[:, cols].T, inside[:, cols].T, n)]
    if found[0] is None or found[1] is None:
        return None
    shift = [found[0] - MARGIN, found[1] - MARGIN]
    if shift == [0, 0]:
        return h
    return h @ np.array([[1, 0, shift[0]], [0, 1, shift[1]], [0, 0, 1]], float)


def refit_cut_off(image: np.ndarray, h: np.ndarray, n: int = STANDARD) -> np.ndarray:
    """The board homography ``h`` re-placed when the board is cut off by the image's
    edge; unchanged when it is not, or when what is seen does not say where."""
    if not near_border(h, (image.shape[1], image.shape[0]), n):
        return h
    small, seen = _warp(image, h, n, JUDGE_CELL)
    felt = _board_felt(small, seen, n, JUDGE_CELL)
    if felt is None or not any(cut_axes(seen, felt, JUDGE_CELL, n)):
        return h
    warped, seen = _warp(image, h, n)
    felt = _board_felt(warped, seen, n)
    if felt is None:
        return h
    spaced = _respace(warped, felt, h, n)
    if spaced is None:
        return h
    refined, _ = refine_on_grid(image, spaced, n=n)
    placed = _place(image, refined, n)
    if placed is None:
        return h
    if placed is refined:  # not moved: worth taking only for a spacing that differs
        if not _respaced(h, refined, n):
            return h
        final = refined
    else:
        final, _ = refine_on_grid(image, placed, n=n)
    # the printed lines have the last word: a lattice that sits on them worse than
    # the finder's did (lines misread under glare) is not taken
    return final if _net(image, final, n) >= _net(image, h, n) - NET_SLACK else h


def _net(image: np.ndarray, h: np.ndarray, n: int) -> float:
    """Grid seen on the lattice's inner lines less grid seen half a square off them,
    over the part of the lines inside the picture (what is cut off says nothing)."""
    t = np.array([[CELL, 0, CELL / 2], [0, CELL, CELL / 2], [0, 0, 1]], float)
    warped, seen = _warp_seen(image, t @ np.linalg.inv(h), (n + 1) * CELL)
    vert, horz = line_evidence(warped)
    k = np.ones((1, 5), np.uint8)
    vert, horz = cv2.dilate(vert, k) > 0, cv2.dilate(horz, k.T) > 0
    along = ((0.5 + np.linspace(0.05, n - 0.05, 10 * n)) * CELL).astype(int)
    net = 0.0
    for offset, sign in ((0.0, 1.0), (0.5, -1.0)):
        at = ((0.5 + offset + np.arange(1, n)) * CELL).astype(int)
        ok_v, ok_h = seen[along[:, None], at[None, :]], seen[at[:, None], along[None, :]]
        hits = vert[along[:, None], at[None, :]][ok_v].sum() + horz[at[:, None],
                                                                   along[None, :]][ok_h].sum()
        net += sign * float(hits) / max(1, int(ok_v.sum() + ok_h.sum()))
    return net


def _respaced(old: np.ndarray, new: np.ndarray, n: int) -> bool:
    """Whether the lattice's size differs between two homographies along either
    axis by more than ``SAME_SPACING`` (the old one squeezed into what is seen)."""
    from controller.vision.geometry import corners_of

    a, b = corners_of(old, n), corners_of(new, n)

    def sides(c: np.ndarray) -> np.ndarray:
        return np.array([np.linalg.norm(c[1] - c[0]) + np.linalg.norm(c[2] - c[3]),
                         np.linalg.norm(c[3] - c[0]) + np.linalg.norm(c[2] - c[1])])

    ratio = sides(b) / np.maximum(sides(a), 1e-9)
    return bool((np.abs(ratio - 1) > SAME_SPACING).any())
