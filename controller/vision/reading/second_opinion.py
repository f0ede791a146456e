"""Where the reader's rules leave a square ``?``, the learned model may name it.

The rules give up wherever one cue is unclear; the network of
:mod:`controller.vision.reading.square_model` sees the whole square at once. It is asked
only where that can help and cannot mislead: never where anything foreign shows (a
hand), where the picture's edge cuts the square, or where a reflection clips the
disc's top white (nothing is left to judge there); and a colour it names must agree
with the discs the same frame shows plainly.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from controller.vision.reading.board_reading import (
    AMBIGUOUS,
    FOREIGN_SQUARE,
    GLARE,
    OCCLUDED,
    Reading,
)
from controller.vision.reading.glare import clipped_tops
from controller.vision.reading.square_model import PatchIndex, SquareModel, patches
from controller.vision.reading.squarestats import frame_edges, side_by_frame
from controller.vision.sampling import Layout

CLIPPED_TOP = 0.5  # share of a disc top clipped white beyond which nothing may name it
ASKED = (AMBIGUOUS, GLARE, OCCLUDED)  # the reasons the model may overrule


def second_opinion(r: Reading, canvas: np.ndarray, foreign: np.ndarray, layout: Layout,
                   index: PatchIndex, model: SquareModel | None) -> Reading:
    """``r`` with the squares the model is sure of named, and listed in ``learned``.

    ``canvas`` is the reader's smoothed top-down warp and ``foreign`` each square's
    share of foreign-coloured pixels.
    """
    if model is None:
        return r
    chars = np.array(list(r.board))
    why = np.array(r.reasons)
    ask = (chars == "?") & np.isin(why, ASKED)
    ask &= (foreign <= FOREIGN_SQUARE) & ~layout.outside
    ask &= clipped_tops(canvas, layout) <= CLIPPED_TOP
    squares = np.flatnonzero(ask)
    if not len(squares):
        return r
    states, p = model.decide(patches(canvas, index, squares))
    # no darker than the frame's dullest plain white for black, and the other way round
    edges = frame_edges(r.log_ratio, (chars == "X") & ~r.blocked, (chars == "O") & ~r.blocked)
    if edges is not None:
        lr = r.log_ratio[squares]
        side = side_by_frame(lr, edges)
        with np.errstate(invalid="ignore"):
            states[(states == "X") & ((side > 0) | (lr >= edges[1]))] = "?"
            states[(states == "O") & ((side < 0) | (lr <= edges[0]))] = "?"
    sure = states != "?"
    if not sure.any():
        return r
    conf = r.confidence.copy()
    named = squares[sure]
    chars[named] = states[sure]
    why[named] = ""
    conf[named] = 0.5 + 0.3 * p[sure]
    return replace(r, board="".join(chars), reasons=tuple(why), confidence=conf,
                   learned=tuple(int(q) for q in named))
