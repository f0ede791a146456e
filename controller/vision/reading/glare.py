"""Telling a lamp's reflection from what lies under it, square by square.

A reflection adds white light: it lifts every channel, so washed-out felt keeps
part of the green channel's lead over the other two, and it fades out slowly, so
round a glare spot the picture stays nearly as bright as in its middle. A white
disc has no lead of its own (beyond the tint the light or the camera gives every
white disc on the board alike) and ends in an edge, with the felt, the gaps
between discs or its own shade darker round it. Only where the reflection clips
the whole disc area is nothing left to tell.
"""

from __future__ import annotations

import numpy as np

from controller.vision.cv import cv2
from controller.vision.reading.squarestats import Measures, low_percentile, neighbourhood_mean
from controller.vision.sampling import CELL, MARGIN, Layout

GLARE_TINT = 10.0  # green lead of a disc top's mean colour that means washed-out felt
TINT_MARGIN = 0.05  # ... and beyond the frame's white discs' own lead, per grey level
TINT_REFERENCE = 3  # plain white discs a frame must show to measure their lead
CLIPPED = 245  # level from which a channel (or a pixel, in all of them) is clipped
FELT_CEILING = 1.4  # felt is never brighter than this next to the felt around it
LEVEL_SPREAD = 1.6  # the felt's brightness varies over a board by at most this factor
WASHED_GREEN = 0.35  # share of the felt's green lead that washed-out felt keeps
WASHED_OVER_WHITE = 1.5  # ... and this many times the greenest white disc's, per grey level
WASHED_LEVEL = 0.6  # ... at least this bright next to the board's plain felt
WASHED_MIN_LEAD = 12  # grey levels: a felt this close to grey cannot show it
RING_QUANTILE = 0.2  # the darker part of the ring round a disc's top ...
RING_DARK = 0.45  # ... is at most this share of a white top's grey, or it is glare
RING_LIFT = 0.0  # ... and brighter than the felt round the square (log share of the way to the top)
RING_LIFT_CORNER = 0.25  # ... unless the corners too are lifted this share of the way
CORNER_DARK = 0.5  # ... or the darker part of the square's corners is
RING_MODE = "new"
UNEVEN_TOP = 0.35  # spread of a white top's grey levels (beyond noise) that means glare


def clipped_tops(canvas: np.ndarray, layout: Layout) -> np.ndarray:
    """(64,) share of each square's disc-top pixels clipped in every channel: where a
    reflection leaves nothing of what lies under it to measure."""
    return (canvas.reshape(-1, 3)[layout.top].min(axis=2) >= CLIPPED).mean(axis=1)


def green_lead(bgr: np.ndarray) -> np.ndarray:
    """Per pixel: how far green leads the stronger of blue and red (int16)."""
    px = bgr.astype(np.int16)
    return px[..., 1] - np.maximum(px[..., 0], px[..., 2])


def felt_lead(lay: Layout, lead: np.ndarray, felt: np.ndarray) -> float | None:
    """The plain felt's green lead on this frame (median over the squares' felt),
    or None when too little felt shows or it is too grey to tell by its green."""
    sample = lay.square[:, ::4]
    own = felt[sample]
    if own.sum() < 20:
        return None
    plain = float(np.median(lead[sample][own]))
    return plain if plain >= WASHED_MIN_LEAD else None


def washed_felt(
    lead: np.ndarray, grey: np.ndarray, plain: float, white: tuple[float, float] | None,
    felt_grey: float = 0.0,
) -> np.ndarray:
    """Pixels (flat) that keep enough of the felt's green lead to be washed-out felt,
    not much darker than the plain felt (``felt_grey``: a reflection only lifts it;
    a dark olive frame or table keeps a green lead too), and
    clearly more than the greenest of this frame's white discs for their
    brightness (where the light makes white discs as green as washed-out felt, a
    lamp's reflection on the felt cannot be told from them: it is left to the
    glare tests)."""
    out = (lead >= WASHED_GREEN * plain) & (grey >= WASHED_LEVEL * felt_grey)
    if white is not None:
        hi = white[1]
        out &= lead > max(hi + TINT_MARGIN, WASHED_OVER_WHITE * hi) * np.maximum(grey, 1)
    return out


def white_tint(
    tint: np.ndarray, disc_grey: np.ndarray, top_bgr: np.ndarray, plain: np.ndarray,
    clipped_too: bool = False,
) -> tuple[float, float] | None:
    """The green tint, per grey level, that this frame gives its white discs (their
    felt's reflection, the lamp's colour, the white balance): typical and among the
    greenest (a channel clipping on the brighter discs spreads it). None when the
    frame shows too few ``plain`` ones (white tops with felt round them) with no
    channel clipped, or, ``clipped_too``, too few at all."""
    # a channel clipped on a bright disc hides its tint: only discs clear of it count
    clear = plain & ((top_bgr.max(axis=2) >= CLIPPED).mean(axis=1) < 0.1)
    if clear.sum() >= TINT_REFERENCE:
        plain = clear
    elif clipped_too and plain.sum() >= TINT_REFERENCE:
        pass  # every white disc clipped alike: their tint is still each other's
    else:
        return None
    ratio = tint[plain] / np.maximum(disc_grey[plain], 1.0)
    return float(np.median(ratio)), float(np.quantile(ratio, 0.9))


def not_too_bright(lay: Layout, felt: np.ndarray, grey: np.ndarray, white_log: float) -> np.ndarray:
    """The felt mask without pixels far brighter than the felt in the corners of
    the squares around them: a white disc that a green cast, a dull felt or the
    felt's own reflection tints just enough to pass the colour test is no felt."""
    cf = felt[lay.corners]
    cnt = cf.sum(axis=1).astype(np.float64)
    level = np.where(cnt > 0, (grey[lay.corners] * cf).sum(axis=1) / np.maximum(cnt, 1), 0.0)
    own = level[cnt > 0]
    # a square's own felt corners, where it has them, under a shadow's or a lamp's
    # edge that leaves its neighbours darker
    level = np.fmax(neighbourhood_mean(level, cnt), np.where(cnt > 0, level, np.nan))
    if np.isnan(level).all():
        return felt
    # where discs spill into the corners (blur, a wide disc) and pass for felt there,
    # the board's felt elsewhere says how bright felt can be
    typical = float(np.median(own))
    level = np.minimum(np.where(np.isnan(level), typical, level), LEVEL_SPREAD * typical)
    n = lay.n
    level = level.reshape(n, n)
    pad = int(round(MARGIN * CELL))
    img = cv2.resize(level.astype(np.float32), (n * CELL, n * CELL),
                     interpolation=cv2.INTER_LINEAR)
    rest = lay.side - n * CELL - pad
    img = cv2.copyMakeBorder(img, pad, rest, pad, rest, cv2.BORDER_REPLICATE)
    ceiling = max(FELT_CEILING, float(np.exp(0.5 * white_log)))
    return felt & (grey <= ceiling * img.ravel())


def square_pixels(lay: Layout, squares: np.ndarray) -> np.ndarray:
    """(side * side,) bools: canvas pixels of the given squares (one bool each), with
    the margin beyond the board's edge going with the edge squares."""
    n = lay.n
    grid = squares.reshape(n, n).astype(np.uint8)
    img = cv2.resize(grid, (n * CELL, n * CELL), interpolation=cv2.INTER_NEAREST)
    pad = int(round(MARGIN * CELL))
    rest = lay.side - n * CELL - pad
    img = cv2.copyMakeBorder(img, pad, rest, pad, rest, cv2.BORDER_REPLICATE)
    return img.ravel() > 0


def ring_dark(lay: Layout, grey: np.ndarray) -> np.ndarray:
    """(64,) the darker part of the ring round each disc top's expected place."""
    ring = grey[lay.ring]
    k = int(RING_QUANTILE * ring.shape[1])
    return np.partition(ring, k, axis=1)[:, k].astype(np.float64)


def _spread(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Per row, the 90th less the 10th percentile of ``values`` where ``keep``:
    how unevenly a patch is lit, beyond a few odd pixels."""
    return low_percentile(values, keep, 0.9) - low_percentile(values, keep, 0.1)


def _even_where_bright(lay: Layout, grey: np.ndarray, felt: np.ndarray, squares: np.ndarray,
                       limit: np.ndarray, disc_grey: np.ndarray) -> np.ndarray:
    """Whether each square's top, looked at where its bright part is rather than
    where the grid puts it, is even after all: a white disc placed a quarter of a
    square off shows its edge in the top's pattern, while a reflection on a black
    disc is uneven wherever it is looked at."""
    out = np.zeros(len(squares), bool)
    side = lay.side
    for k, sq in enumerate(squares):
        window = lay.square[sq]
        bright = window[grey[window] > 0.5 * disc_grey[k]]
        if len(bright) < 4:
            continue
        top = lay.top[sq]
        dy = int(round(float(np.mean(bright // side)) - float(np.mean(top // side))))
        dx = int(round(float(np.mean(bright % side)) - float(np.mean(top % side))))
        if dx == 0 and dy == 0:
            continue
        moved = np.clip(top + dy * side + dx, 0, side * side - 1)[None, :]
        out[k] = bool(_spread(grey[moved], ~felt[moved])[0] <= limit[k])
    return out


def glare_flags(
    lay: Layout, cut: float, m: Measures, felt: np.ndarray, grey: np.ndarray,
    white: tuple[float, float] | None,
) -> np.ndarray:
    """(64,) bools: squares whose top may be a lamp's reflection, not a disc.

    ``cut``: the log brightness ratio above which a top is white; ``white``: the
    white discs' tint (see ``white_tint``).
    """
    # washed-out felt under a lamp's glare is still faintly green; a disc is not,
    # unless the light or the camera tints every white disc on the board alike
    glare = m.tint > GLARE_TINT
    if white is not None:
        glare &= m.tint > (white[0] + TINT_MARGIN) * np.maximum(m.disc_grey, 1.0)
    whitish = (m.log_ratio > cut) & ~glare
    # glare over a black disc lights it unevenly; a white disc's top is even
    idx = np.flatnonzero(whitish)
    if len(idx):
        top_spread = _spread(grey[lay.top[idx]], ~felt[lay.top[idx]])
        sub = lay.square[:, ::2]  # the felt's noise and texture, typical over the board
        sk = felt[sub]
        spread = _spread(grey[sub], sk)
        felt_spread = float(np.nanpercentile(spread, 25)) if np.isfinite(spread).any() else 20.0
        limit = UNEVEN_TOP * m.disc_grey[idx] + 1.5 * felt_spread
        uneven = top_spread > limit
        uneven[uneven] = ~_even_where_bright(lay, grey, felt, idx[uneven], limit[uneven],
                                             m.disc_grey[idx[uneven]])
        glare[idx[uneven]] = True
    # a white disc ends in an edge: somewhere round it (the felt, the gaps between
    # it and its neighbours, its own shade) the picture is far darker than its top.
    # A lamp's reflection fades out slowly, so all round a glare spot, or a black
    # disc lit by one, it stays nearly as bright as in the middle.
    ring = ring_dark(lay, grey)
    lit = (ring > RING_DARK * m.disc_grey) & whitish
    # ... measured from the felt: where the felt is nearly as bright as the white
    # discs (an exposure that clips them), the darker part of a white disc's ring
    # is the felt itself, at the felt's level, not lifted towards the top's
    lit &= np.log(ring + 2.0) - np.log(m.felt_grey + 2.0) > RING_LIFT * m.log_ratio
    # between white neighbours, blurred, the ring may be light all round; the gaps
    # at the square's corners, between four discs, still show the felt dark
    corners = grey[lay.corners]
    k = int(RING_QUANTILE * corners.shape[1])
    corner_dark = np.partition(corners, k, axis=1)[:, k].astype(np.float64)
    lifted = np.log(corner_dark + 2.0) - np.log(m.felt_grey + 2.0) > RING_LIFT_CORNER * m.log_ratio
    lit &= (corner_dark > CORNER_DARK * m.disc_grey) | lifted
    glare |= lit
    return glare
