"""Board strings, starts, moves and scores: the rules' edges users meet first."""

from __future__ import annotations

import pytest

from controller.position import IllegalMoveError, Position
from controller.squares import BoardStringError, Color, mask_of

START = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27


# ------------------------------------------------------------ board strings
def test_start_board_string():
    assert Position.start().board_string() == START
    assert Position.from_board_string(START) == Position.start()


def test_observation_characters_are_not_a_position():
    bad = START[:63] + "?"
    with pytest.raises(BoardStringError, match="h8"):
        Position.from_board_string(bad)


# ------------------------------------------------------------------ starts
@pytest.mark.parametrize(
    ("stones", "corners"),
    [
        (1, ["a1"]),
        (2, ["a1", "h8"]),
        (3, ["a1", "h8", "h1"]),
        (4, ["a1", "h8", "h1", "a8"]),
    ],
)
def test_handicap_starts_give_black_corners_and_white_the_move(stones, corners):
    pos = Position.handicap(stones)
    assert pos.to_move is Color.WHITE
    assert pos.black == Position.start().black | mask_of(corners)
    assert pos.white == Position.start().white


@pytest.mark.parametrize("stones", [0, 5])
def test_handicap_out_of_range_is_refused(stones):
    with pytest.raises(BoardStringError, match=str(stones)):
        Position.handicap(stones)


def test_other_sizes_start_in_the_centre():
    six = Position.start(6)
    assert six.counts() == (2, 2)
    assert sorted(six.legal_squares()) == ["b3", "c2", "d5", "e4"]
    with pytest.raises(BoardStringError, match="7"):
        Position.start(7)


# ------------------------------------------------------------------- moves
def test_illegal_moves_name_the_square_and_reason():
    start = Position.start()
    with pytest.raises(IllegalMoveError, match="d4: occupied"):
        start.play("d4")
    with pytest.raises(IllegalMoveError, match="a1: it turns no disc"):
        start.play("a1")


def test_pass_is_refused_while_a_move_exists():
    with pytest.raises(IllegalMoveError, match="cannot pass: legal moves d3 c4 f5 e6"):
        Position.start().pass_turn()


# ------------------------------------------------------------------- score
def _board(black: int, white: int) -> Position:
    cells = "X" * black + "O" * white
    return Position.from_board_string(cells + "-" * (64 - len(cells)))


def test_final_score_gives_empties_to_the_winner():
    assert _board(30, 20).final_score() == (44, 20)
    assert _board(20, 30).final_score() == (20, 44)


def test_final_score_of_a_draw_splits_the_empties():
    assert _board(25, 25).final_score() == (32, 32)


def test_full_board_score_is_the_disc_count():
    assert _board(40, 24).final_score() == (40, 24)
    assert _board(40, 24).winner() is Color.BLACK
    assert _board(32, 32).winner() is None


def test_wipe_out_ends_the_game_with_all_squares_to_the_survivor():
    pos = Position.from_board_string("XXX" + "-" * 61)
    assert pos.is_game_over()
    assert pos.final_score() == (64, 0)
