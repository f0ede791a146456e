"""Checking a found grid square by square: is it a whole square off the board?

A grid put a whole row or column off still lies on printed lines, so the line
cues fit it as well as the right one; the felt cue (see ``nudge_onto_board``)
catches it only where the felt stops clearly at the frame, and a board with a
strip of felt past its outer line, or one full of discs, defeats that. The learned
square model (:mod:`controller.vision.reading.square_model`) was trained to answer
``other`` for a patch that is not one of the 64 squares (the frame, the table, a
patch half a square off), so the grid whose squares it recognises best is the one
on the board.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from controller.boardsize import STANDARD, board_size
from controller.vision.geometry import moved_by_squares
from controller.vision.reading.square_model import (
    CLASSES,
    INPUT,
    SquareModel,
    patch_index,
    patches,
)
from controller.vision.sampling import Layout, make_layout, smoothed, warp_to_canvas

OTHER = CLASSES.index("other")
#: How much less "not a square" a neighbouring grid must look, as a share of the
#: board, to replace the found one: four squares' worth, so a hand or a shifted
#: disc moving in or out of view never decides it.
BETTER_BY = 4 / 28
#: Doubt under which the found grid's ring is plainly on the board: a grid a square
#: off has a whole edge of 8 of the 28 ring squares on the frame or the table.
PLAINLY_ON = 0.15
#: The model's doubt of a grid's 64 squares (those outside the picture wholly
#: doubted) under which calibration takes the grid for the board's.
CONFIRMED = 0.2


@cache
def all_squares(n: int = STANDARD) -> np.ndarray:
    """Every square of an ``n`` x ``n`` board."""
    return np.arange(n * n)


@cache
def ring(n: int = STANDARD) -> np.ndarray:
    """The squares of the board's outer ring: a grid a square off differs from the
    right one there (one edge on the frame, the other short of it), not in the middle."""
    edge = board_size(n).edge_mask()
    return np.array([sq for sq in range(n * n) if edge >> sq & 1])


def not_squares(image: np.ndarray, h: np.ndarray, disc_height: float,
                model: SquareModel, squares: np.ndarray | None = None,
                cut_off_doubted: bool = False, n: int = STANDARD) -> float | None:
    """Mean probability that a square of grid ``h`` (of its outer ring unless
    ``squares`` says otherwise) is not a square of the board.

    None when part of the grid lies outside the picture (a cut-off board is placed
    by :mod:`controller.vision.finding.partial` instead); with ``cut_off_doubted``, a square
    outside counts as wholly doubted instead, so that a grid hanging off the
    picture is never preferred for the squares it does not show.
    """
    doubts = square_doubts(image, h, disc_height, model,
                           ring(n) if squares is None else squares, cut_off_doubted, n)
    return None if doubts is None else float(doubts.mean())


def square_doubts(image: np.ndarray, h: np.ndarray, disc_height: float,
                  model: SquareModel, squares: np.ndarray | None = None,
                  cut_off_doubted: bool = True, n: int = STANDARD) -> np.ndarray | None:
    """Per square of ``squares`` (all by default), the probability that it is not a
    square of the board (see :func:`not_squares`)."""
    squares = all_squares(n) if squares is None else squares
    layout = make_layout(h, (image.shape[1], image.shape[0]), disc_height, n=n)
    if layout.outside[squares].any() and not cut_off_doubted:
        return None
    p = _probabilities(image, layout, model, squares)
    return np.where(np.isnan(p[:, OTHER]), 1.0, p[:, OTHER])


def _probabilities(image: np.ndarray, layout: Layout, model: SquareModel,
                   squares: np.ndarray) -> np.ndarray:
    x, inside = square_inputs(image, layout, squares)
    p = np.full((len(squares), len(CLASSES)), np.nan)
    p[inside] = model.probabilities(x)
    return p


def square_inputs(image: np.ndarray, layout: Layout,
                  squares: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The model's inputs for those of ``squares`` wholly inside the picture, and
    which those are: for a caller that asks about several grids in one go."""
    inside = ~layout.outside[squares]
    if not inside.any():
        return np.zeros((0, 3, INPUT, INPUT), np.float32), inside
    canvas = smoothed(warp_to_canvas(image, layout))  # as the reader sees it
    return patches(canvas, patch_index(layout), squares[inside]), inside


def settle_whole_squares(image: np.ndarray, h: np.ndarray, disc_height: float,
                         model: SquareModel | None, n: int = STANDARD) -> np.ndarray:
    """``h``, or the grid a whole square away from it whose squares the model
    recognises clearly better (at most two steps)."""
    if model is None:
        return h
    here = not_squares(image, h, disc_height, model, n=n)
    if here is None or here < PLAINLY_ON:
        return h
    for _ in range(2):
        best = None
        for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            moved = moved_by_squares(h, dx, dy)
            there = not_squares(image, moved, disc_height, model, n=n)
            if there is not None and there < here - BETTER_BY and (
                    best is None or there < best[0]):
                best = (there, moved)
        if best is None:
            break
        here, h = best
    return h
