"""The positions the harness renders come from real games, with the share of discs
marked off-centre that was asked for."""

from __future__ import annotations

import numpy as np
import pytest

from controller.boardsize import SIZES
from controller.measure.evaluation import random_position
from controller.position import Position


@pytest.mark.parametrize("size", SIZES)
def test_a_random_position_is_reached_by_legal_play(size: int) -> None:
    rng = np.random.default_rng(7)
    start = Position.start(size).board_string()
    lengths = set()
    for _ in range(20):
        board = random_position(rng, size=size)
        assert len(board) == size * size and set(board) <= set("-XO")
        # play only adds discs: the start's four squares are never empty again
        assert all(b != "-" for b, s in zip(board, start, strict=True) if s != "-")
        assert Position.from_board_string(board, size=size).board_string() == board
        lengths.add(board.count("-"))
    assert len(lengths) > 5  # games of many lengths, not one position again and again


def test_shifted_marks_only_discs_and_only_as_often_as_asked() -> None:
    rng = np.random.default_rng(3)
    assert not any(c in "xo" for _ in range(10) for c in random_position(rng, shifted=0.0))
    all_shifted = [random_position(rng, shifted=1.0) for _ in range(10)]
    assert all(set(b) <= set("-xo") and ("x" in b or "o" in b) for b in all_shifted)
