"""Random legal games of every size: played to their end, legal move by move by the
position's own rules, and the same game for the same seed wherever it is asked for."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.boardsize import SIZES
from controller.position import Position
from controller.simulator import random_game


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(SIZES), st.integers(0, 2**32))
def test_a_random_game_is_legal_to_its_end(size, seed):
    game = random_game(size, seed)
    pos = game.start
    assert pos == Position.start(size)
    for move in game.moves:
        assert move.player is pos.to_move
        if move.square is None:
            assert not pos.legal_moves(), "a pass while a move was there"
            pos = pos.pass_turn()
        else:
            assert move.square in pos.legal_squares()
            pos = pos.play(move.square)
    assert pos.is_game_over()


@pytest.mark.parametrize("size", SIZES)
def test_the_same_seed_gives_the_same_game_and_others_other_games(size):
    def squares(seed: int) -> list[str | None]:
        return [m.square for m in random_game(size, seed).moves]

    assert squares(7) == squares(7)
    assert len({tuple(squares(seed)) for seed in range(10)}) == 10
