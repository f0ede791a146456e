"""How a game is run (``config``): what the configuration refuses, and who wins a drawn
game under each draw rule."""

from __future__ import annotations

import pytest

from controller.arbiter import ArbiterConfig
from controller.boardsize import SIZES
from controller.position import Position
from controller.squares import Color


def test_an_unsupported_size_is_refused_by_the_config():
    with pytest.raises(ValueError, match="unsupported board size 7"):
        ArbiterConfig(start=Position(0, 0, Color.BLACK, 7))


@pytest.mark.parametrize("wait", [-0.1, float("nan")])
def test_a_press_wait_below_nothing_or_not_a_number_is_refused(wait):
    with pytest.raises(ValueError, match="press_wait must be 0 or more seconds"):
        ArbiterConfig(press_wait=wait)


@pytest.mark.parametrize(
    "draws_allowed,holder,winner",
    [
        (True, None, None),  # a drawn game is a draw
        (True, Color.WHITE, None),  # with draws, the right does not matter
        (False, Color.WHITE, Color.WHITE),  # 引き分け勝ち (rule 1)
        (False, Color.BLACK, Color.BLACK),
        (False, None, Color.BLACK),  # nobody named: black wins a drawn game
    ],
)
def test_the_draw_win_right_decides_a_drawn_game_only_when_draws_are_not_allowed(
        draws_allowed, holder, winner):
    config = ArbiterConfig(draws_allowed=draws_allowed, draw_win_right=holder)
    assert config.draw_winner() is winner


def test_every_size_the_rules_play_is_taken_and_the_defaults_are_a_home_game():
    for size in SIZES:
        assert ArbiterConfig(start=Position.start(size)).start.size == size
    config = ArbiterConfig()
    assert config.start == Position.start()
    assert (config.mode, config.clock, config.settled, config.press_wait) == ("home", None,
                                                                            False, 0.0)
