"""The values inside GGF tags: each written the way GGS writes it and read back the same,
and each refusal naming what is wrong."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.boardsize import SIZES
from controller.position import Position
from controller.records.ggf_values import (
    board_value,
    date_from_dt,
    dt_from_date,
    parse_board,
    parse_number,
    parse_result,
    result_value,
)
from controller.records.model import RecordError
from controller.squares import Color


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any arrangement of discs on any board, either side to move."""
    size = draw(st.sampled_from(SIZES))
    cells = draw(st.lists(st.sampled_from("-XO"), min_size=size * size, max_size=size * size))
    black = sum(1 << i for i, c in enumerate(cells) if c == "X")
    white = sum(1 << i for i, c in enumerate(cells) if c == "O")
    return Position(black, white, draw(st.sampled_from(Color)), size)


@given(positions())
def test_a_board_reads_back_as_written(position):
    assert parse_board(board_value(position)) == position


def test_a_board_is_written_row_by_row_as_ggs_does():
    assert board_value(Position.start(6)) == "6 ------ ------ --O*-- --*O-- ------ ------ *"


@pytest.mark.parametrize(("value", "message"), [
    ("", "must start with the board size"),
    ("eight ---", "must start with the board size"),
    ("7 " + "-" * 49 + " *", "unsupported board size 7"),
    ("6 " + "-" * 35 + " *", "35 squares and a side to move given, a 6x6 board needs 36"),
    ("6 " + "-" * 7 + "Z" + "-" * 28 + " *", "bad character 'Z' at b2"),
    ("6 " + "-" * 36 + " ?", "side to move must be \\* or O, not '\\?'"),
])
def test_a_bad_board_is_refused_naming_what_is_wrong(value, message):
    with pytest.raises(RecordError, match=message):
        parse_board(value)


@pytest.mark.parametrize(("text", "seconds"), [
    ("12.5", 12.5), (" 3 ", 3.0), ("01:02.5", 62.5), ("1:00:00", 3600.0), ("", None),
])
def test_a_number_or_a_clock_reading(text, seconds):
    assert parse_number(text, "TI[]") == seconds


@pytest.mark.parametrize("text", ["abc", "nan", "inf", "-inf", "1:x"])
def test_what_is_no_number_is_named(text):
    with pytest.raises(RecordError, match=f"TI\\[\\] '{text}' is not a number"):
        parse_number(text, "TI[]")


@pytest.mark.parametrize(("value", "date"), [
    ("2001.07.04", "2001-07-04"), ("2001.7.4_12:00:00.0", "2001-07-04"),
    ("2001/7", "2001-07"), ("1999", "1999"), ("1000000000", "2001-09-09"), ("soon", "soon"),
])
def test_dates_as_servers_wrote_them(value, date):
    assert date_from_dt(value) == date


@pytest.mark.parametrize("date", ["2001-07-04", "2001-07", "1999"])
def test_a_date_is_written_back_as_ggs_writes_it(date):
    assert dt_from_date(date) == date.replace("-", ".")
    assert date_from_dt(dt_from_date(date)) == date


@given(st.sampled_from(SIZES), st.data(),
       st.sampled_from(["", "resignation", "time", "agreement"]))
def test_a_result_reads_back_as_written(size, data, note):
    black = data.draw(st.integers(0, size * size))
    result = (black, size * size - black)
    assert parse_result(result_value(result, note), size) == (result, note)


def test_a_result_is_the_margin_with_the_empties_to_the_winner():
    assert parse_result("+12.000", 8) == ((38, 26), "")
    assert parse_result("-64:r", 8) == ((0, 64), "resignation")
    assert result_value((0, 64), "time") == "-64.000:t"


@pytest.mark.parametrize("value", ["+0.5", "?", "+3.000", "+66", "+2:q", "12 points"])
def test_a_result_that_is_no_split_of_the_board_gives_none(value):
    assert parse_result(value, 8) == (None, "")
