"""Squares, board strings, starts and scores: the rules' edges users meet first."""

from __future__ import annotations

import pytest

from controller.position import IllegalMoveError, Position
from controller.squares import (
    BoardStringError,
    Color,
    mask_of,
    parse_square,
    square_name,
    validate_board_string,
)

START = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27


# ---------------------------------------------------------------- squares
def test_square_names_follow_the_board_print():
    assert parse_square("a1") == 0
    assert parse_square("h1") == 7
    assert parse_square("a8") == 56
    assert parse_square("H8") == 63
    assert parse_square(" f5 ") == 4 * 8 + 5
    assert square_name(63) == "h8"
    assert parse_square("j10", 10) == 99


@pytest.mark.parametrize("bad", ["i1", "a9", "a0", "z", "", "55", "f", "a1x", "h¹", "b٣"])
def test_bad_square_names_are_named_in_the_error(bad):
    with pytest.raises(BoardStringError) as err:
        parse_square(bad)
    assert repr(bad) in str(err.value)


def test_square_index_off_the_board_is_named():
    with pytest.raises(BoardStringError, match="64"):
        square_name(64)


# ------------------------------------------------------------ board strings
def test_start_board_string():
    assert Position.start().board_string() == START
    assert Position.from_board_string(START) == Position.start()


def test_bad_character_is_named_with_its_square():
    bad = START[:20] + "Z" + START[21:]
    with pytest.raises(BoardStringError) as err:
        validate_board_string(bad)
    assert "'Z'" in str(err.value) and "e3" in str(err.value)


def test_observation_characters_are_not_a_position():
    bad = START[:63] + "?"
    with pytest.raises(BoardStringError, match="h8"):
        Position.from_board_string(bad)


def test_wrong_length_says_how_many_squares():
    with pytest.raises(BoardStringError, match="63 squares"):
        validate_board_string(START[:63])


def test_rows_on_separate_lines_are_accepted():
    rows = "\n".join(START[i : i + 8] for i in range(0, 64, 8))
    assert validate_board_string(rows) == START


def test_bad_colour_is_named():
    with pytest.raises(BoardStringError, match="'green'"):
        Color.parse("green")


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
