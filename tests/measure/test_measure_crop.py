"""Cropping a labelled photo on one side by a share of the board, and counting each
crop under the symmetry its reading fits best."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.boardsize import SIZES
from controller.measure.crop import SIDES, best_symmetry, crop_board
from controller.symmetry import TRANSFORMS, square_table

CORNERS = np.array([[100, 50], [500, 50], [500, 450], [100, 450]], dtype=np.float64)


@pytest.mark.parametrize(("side", "shape"), [
    ("left", (600, 600)), ("right", (600, 400)), ("top", (450, 800)), ("bottom", (350, 800)),
])
def test_each_side_loses_its_share_of_the_board(side: str, shape: tuple[int, int]) -> None:
    image = np.zeros((600, 800, 3), dtype=np.uint8)
    out = crop_board(image, CORNERS, side, 0.25)  # a quarter of the board's 400 px
    assert out.shape[:2] == shape and out.flags["C_CONTIGUOUS"]


def test_an_unknown_side_is_refused() -> None:
    with pytest.raises(ValueError, match="side must be one of left, right, top, bottom"):
        crop_board(np.zeros((10, 10), dtype=np.uint8), CORNERS, "middle", 0.1)
    assert SIDES == ("left", "right", "top", "bottom")


def _moved(board: str, t: int, n: int) -> str:
    table = square_table(t, n)
    out = [""] * len(board)
    for i, ch in enumerate(board):
        out[table[i]] = ch
    return "".join(out)


@given(st.sampled_from(SIZES), st.sampled_from(TRANSFORMS), st.randoms(use_true_random=False))
def test_the_best_symmetry_puts_a_turned_reading_back_on_its_labels(
        n: int, t: int, rnd: object) -> None:
    truth = "".join(rnd.choice("-XO") for _ in range(n * n))  # type: ignore[attr-defined]
    table = square_table(t, n)
    reading = "".join(truth[table[i]] for i in range(n * n))
    reading = "?" + reading[1:]  # a square cut off reads unknown, never wrong
    best = best_symmetry(reading, truth)
    moved = _moved(reading, best, n)
    assert all(r == "?" or r == s for r, s in zip(moved, truth, strict=True))
