"""Squares whose disc, if any, does not stand plainly on its centre.

The reader's first look settles the squares that are clearly felt or clearly
covered. What is left may hold a disc pushed off centre (a shifted disc, which the
tournament rules name), a neighbour's disc leaning in, or a washed-out or blurred
disc: each is looked for where its base and top would be, and called placed or
shifted only when its distance from the centre is clear of the frame's own locating
noise (see :func:`too_close`), and only in a colour the first look does not plainly
contradict: a black disc beside a lamp's reflection, sought off centre, can take in
the light and look white.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from controller.vision.colour import ColourModel
from controller.vision.reading.board_reading import AMBIGUOUS, GLARE, OUTSIDE, Reading
from controller.vision.reading.glare import (
    CLIPPED,
    GLARE_TINT,
    RING_DARK,
    RING_QUANTILE,
    TINT_MARGIN,
)
from controller.vision.reading.shifted import fit_map, locate_disc
from controller.vision.reading.squarestats import DISC_PERCENTILE, green_tint
from controller.vision.sampling import CELL, Layout

CLEAR_EMPTY = 0.97  # felt fractions beyond which no disc search is needed
CLEAR_DISC = 0.03
SHIFT_THRESHOLD = 0.335  # squares off centre from which a disc is reported shifted
SHIFT_DOUBT = (0.045, 0.065)  # ... margins below and above it reported as '?' when the
# frame shows no clearly placed disc to measure its own locating noise on
NOISE_SAMPLE = 8  # clearly placed discs located per frame to measure that noise
NOISE_FLOOR = 0.01  # squares: never call placed or shifted closer to the line than this
LEAN_CLEAR = 0.8  # squares from a square's centre beyond which a found disc is surely
# a neighbour's: nearer, it may be the square's own disc pushed across the line
SURE_EMPTY = 0.9  # felt fraction for an empty verdict on a square with a disc nearby
SHIFT_COVERED = 0.25  # a disc off centre leaves felt in a pattern; both below this: doubt
SHIFT_EMPTY_BASE = 0.95  # a base pattern this clear of disc cannot belong to a shifted disc


@dataclass(frozen=True)
class Search:
    """What the search needs of a reader, taken afresh for each frame: the watcher
    follows the light by replacing the reader's colour model between frames."""

    layout: Layout
    model: ColourModel
    disc_bias: np.ndarray  # (2,) squares: the offset common to all discs (see pipeline)
    top: np.ndarray  # pixel offsets of a disc's top (see sampling.disc_pattern)
    ring: np.ndarray  # pixel offsets of the felt ring round it


def settle_uncentred(
    at: Search, r: Reading, felt: np.ndarray, grey: np.ndarray, canvas_bgr: np.ndarray,
    tint_ref: tuple[float, float] | None = None,
) -> Reading:
    """Squares that are neither clearly empty nor clearly covered: find the disc."""
    lo = np.minimum(r.felt_top, r.felt_base)
    hi = np.maximum(r.felt_top, r.felt_base)
    unclear = ~((lo >= CLEAR_EMPTY) | (hi <= CLEAR_DISC)) & ~r.blocked
    chars = np.array(list(r.board))
    conf = r.confidence.copy()
    # an empty verdict on a square that is not clearly felt needs SURE_EMPTY felt:
    # short of it, a blurred or dim disc off centre, or glare, may be there. The
    # search below may still find the disc, or a neighbour's leaning in.
    doubt = unclear & (chars == "-") & (lo < SURE_EMPTY)
    chars[doubt], conf[doubt] = "?", 0.0
    why = np.array(r.reasons or [""] * len(r.board), dtype="<U9")
    why[doubt] = AMBIGUOUS
    if r.glare is not None:
        # left unsearched because a lamp may wash it out: glare is why it is unknown
        why[unclear & r.glare & (chars == "?") & (why == AMBIGUOUS)] = GLARE
        unclear &= ~r.glare
    if not unclear.any():
        return replace(r, board="".join(chars), confidence=conf, reasons=tuple(why))
    lay, model = at.layout, at.model
    side = lay.side
    felt2d = felt.reshape(side, side)
    fmap = fit_map(felt2d)
    noise: list[float] = []  # this frame's locating noise, measured when first needed
    n = lay.n
    for sq in np.flatnonzero(unclear):
        centre_sq = np.array([sq % n + 0.5, sq // n + 0.5])
        expected = lay.centres[sq] + lay.offsets[sq] * CELL
        fit = locate_disc(fmap, expected, lay.offsets[sq])
        if fit is None:
            continue
        off = fit.base - centre_sq - at.disc_bias
        if not (0.0 <= fit.base[0] <= n and 0.0 <= fit.base[1] <= n):
            chars[sq], conf[sq] = "?", 0.0  # a disc hanging over the board's edge
            continue
        if np.abs(off).max() >= 0.5:  # a neighbour's disc leaning in ...
            col, row = int(fit.base[0]), int(fit.base[1])
            owner = row * n + col
            # empty when the felt shows all round the middle of the square, where
            # its own disc, even pushed off centre, would stand; or when the
            # neighbour itself shows that disc and it stands far enough away that
            # it cannot be this square's own, pushed over
            owned = 0 <= col < n and 0 <= row < n and r.board[owner] in "XOxo"
            far = owned and float(np.hypot(*off)) >= LEAN_CLEAR
            if r.felt_base[sq] >= SURE_EMPTY and (far or lo[sq] >= SURE_EMPTY):
                chars[sq], conf[sq] = "-", 0.6
            else:  # something of its own may still be in the square
                chars[sq], conf[sq] = "?", 0.0
            continue
        tx, ty = fit.top_px
        idx = np.clip(at.top[:, 0] + ty, 0, side - 1) * side + np.clip(
            at.top[:, 1] + tx, 0, side - 1
        )
        keep = ~felt[idx]
        if keep.sum() < 0.6 * len(idx):
            if chars[sq] == "-":  # a disc stands near the centre: not empty
                chars[sq], conf[sq] = "?", 0.0
            continue
        g = float(np.quantile(grey[idx][keep], DISC_PERCENTILE))
        ring = np.clip(at.ring[:, 0] + ty, 0, side - 1) * side + np.clip(
            at.ring[:, 1] + tx, 0, side - 1
        )
        ratio = float(np.log(g + 2.0) - np.log(r.felt_grey[sq] + 2.0))
        # the same tests as for a centred disc (see read_canvas)
        if ratio > model.cut:
            glare = float(np.quantile(grey[ring], RING_QUANTILE)) > RING_DARK * g
            tint = float(green_tint(canvas_bgr[idx][None], keep[None])[0])
            glare |= tint > GLARE_TINT and (
                tint_ref is None or tint > (tint_ref[0] + TINT_MARGIN) * max(g, 1.0)
            )
        else:  # a black disc with a clipped highlight over most of its top
            glare = float((canvas_bgr[idx].min(axis=1) >= CLIPPED).mean()) > 0.3
        if glare:
            chars[sq], conf[sq], why[sq] = "?", 0.0, GLARE
            continue
        white = plainly_white(ratio, model)
        # the first look, at the top where a centred disc's would be
        centred = plainly_white(float(r.log_ratio[sq]), model)
        if white is None or centred not in (None, white):  # undecided, or two colours
            chars[sq], conf[sq] = "?", 0.0
            continue
        distance = float(np.hypot(*off))
        if not noise:
            noise.append(locating_noise(at, r, fmap))
        if too_close(distance, noise[0]):
            chars[sq], conf[sq] = "?", 0.0  # too close to call placed or shifted
            continue
        shifted = distance >= SHIFT_THRESHOLD
        # the felt patterns must agree with a disc off centre: some felt shows
        # where the centred disc would be, but not all of its base
        if shifted and (
            max(r.felt_top[sq], r.felt_base[sq]) < SHIFT_COVERED
            or r.felt_base[sq] >= SHIFT_EMPTY_BASE
        ):
            chars[sq], conf[sq] = "?", 0.0
            continue
        chars[sq] = ("o" if white else "x") if shifted else ("O" if white else "X")
        conf[sq] = 0.5 + 0.4 * min(1.0, fit.fit)
    why[chars != "?"] = ""
    why[(chars == "?") & (why == "")] = AMBIGUOUS
    why[lay.outside & (chars == "?")] = OUTSIDE
    return replace(r, board="".join(chars), confidence=conf, reasons=tuple(why))


def plainly_white(log_ratio: float, model: ColourModel) -> bool | None:
    """A disc top's colour from its brightness over the felt's (log ratio): white
    or black, or None within the model's undecided band round the cut (or for no
    measure at all, nan)."""
    if not abs(log_ratio - model.cut) >= model.band:  # nan falls here too
        return None
    return log_ratio > model.cut


def locating_noise(at: Search, r: Reading, fmap: np.ndarray) -> float:
    """How far this frame puts discs that plainly stand on their centres (median
    offset found, in squares), or nan when it shows none.

    Their true offsets are near zero, so what is measured is the grid's misfit
    and the search's own error here, plus a player's ordinary untidiness: the
    uncertainty of any other disc's distance in the same frame.
    """
    hi = np.maximum(r.felt_top, r.felt_base)
    clear = np.flatnonzero((hi <= CLEAR_DISC) & ~r.blocked & np.isfinite(r.log_ratio))
    lay = at.layout
    found = []
    for sq in clear[:: max(1, len(clear) // NOISE_SAMPLE)][:NOISE_SAMPLE]:
        fit = locate_disc(fmap, lay.centres[sq] + lay.offsets[sq] * CELL, lay.offsets[sq])
        if fit is not None:
            off = fit.base - np.array([sq % lay.n + 0.5, sq // lay.n + 0.5]) - at.disc_bias
            found.append(float(np.hypot(*off)))
    return float(np.median(found)) if len(found) >= 3 else float("nan")

def too_close(distance: float, noise: float) -> bool:
    """Whether placed and shifted are genuinely close for a disc found ``distance``
    off centre: within the frame's own locating noise of the line (the fixed
    margins at most, and they alone when the frame gave no way to measure it)."""
    low, high = SHIFT_DOUBT
    if np.isfinite(noise):  # never wider than the margins it replaces
        low, high = min(low, max(NOISE_FLOOR, noise)), min(high, max(NOISE_FLOOR, noise))
    return SHIFT_THRESHOLD - low < distance < SHIFT_THRESHOLD + high
