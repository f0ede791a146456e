"""Square names, board strings and colours: the words every part of Kaeshi reads a board in."""

from __future__ import annotations

import pytest

from controller.squares import (
    BoardStringError,
    Color,
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


def test_bad_character_is_named_with_its_square():
    bad = START[:20] + "Z" + START[21:]
    with pytest.raises(BoardStringError) as err:
        validate_board_string(bad)
    assert "'Z'" in str(err.value) and "e3" in str(err.value)


def test_wrong_length_says_how_many_squares():
    with pytest.raises(BoardStringError, match="63 squares"):
        validate_board_string(START[:63])


def test_rows_on_separate_lines_are_accepted():
    rows = "\n".join(START[i : i + 8] for i in range(0, 64, 8))
    assert validate_board_string(rows) == START


def test_bad_colour_is_named():
    with pytest.raises(BoardStringError, match="'green'"):
        Color.parse("green")
