"""The NBoard and GTP lines on their own: what one side writes, the other reads back the
same, and a line the protocol does not allow is refused quoting it."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.boardsize import SIZES, STANDARD
from controller.engine.protocol import (
    EngineMove,
    ProtocolError,
    final_hints,
    format_nboard_move,
    format_search_line,
    ggf_game,
    gtp_error,
    gtp_ok,
    gtp_vertex,
    move_text,
    parse_gtp_reply,
    parse_move,
    parse_nboard_move,
    parse_score,
    parse_search_line,
    search_depth,
)
from controller.engine.timing import Clock
from controller.position import Position
from controller.records.ggf import read_ggf_text
from controller.squares import Color, square_name

squares = st.sampled_from(SIZES).flatmap(
    lambda n: st.tuples(st.just(n), st.integers(0, n * n - 1).map(lambda i: square_name(i, n))))
hundredths = st.integers(-6400, 6400).map(lambda k: k / 100)


@given(squares)
def test_every_square_of_every_size_reads_back_as_written(size_and_square):
    size, square = size_and_square
    assert parse_move(move_text(square), size) == square
    assert parse_move(gtp_vertex(square).lower(), size) == square


@pytest.mark.parametrize("text", ["PA", "pa", "PASS", "pass", " PA "])
def test_a_pass_is_none(text):
    assert parse_move(text) is None and move_text(None) == "PA" and gtp_vertex(None) == "PASS"


@pytest.mark.parametrize(("text", "size", "message"), [
    ("Z9", 8, "not a move: 'Z9'"), ("", 8, "not a move: ''"),
    ("f55", 8, "not a square on an 8x8 board: 'f55'"), ("g7", 6, "g7"), ("i1", 8, "i1"),
])
def test_what_is_no_move_of_the_board_is_refused(text, size, message):
    with pytest.raises(ProtocolError, match=message):
        parse_move(text, size)


def test_a_score_is_a_number_or_the_mean_of_a_draw_pair():
    assert parse_score(" 1.5 ") == 1.5 and parse_score("(-2,4)") == 1.0
    with pytest.raises(ProtocolError, match="not a score: 'best'"):
        parse_score("best")


nboard_squares = st.one_of(st.none(), st.integers(0, STANDARD * STANDARD - 1).map(square_name))
finite = st.floats(allow_nan=False, allow_infinity=False)
durations = st.floats(min_value=0, allow_nan=False, allow_infinity=False)


@given(nboard_squares, st.one_of(st.none(), finite), st.one_of(st.none(), durations))
def test_an_engines_move_reads_back_as_written(square, score, seconds):
    """NBoard is played on 8x8 only (the client refuses other sizes); a move may come with
    an eval, a time, both or neither, and reads back exactly as it was written."""
    move = EngineMove(square, score, seconds)
    assert parse_nboard_move(format_nboard_move(move)) == move


def test_a_move_with_a_time_and_no_eval_leaves_the_eval_empty():
    """The protocol's fields are positional, as NTest writes them: ``F5//0.25`` is a time."""
    assert format_nboard_move(EngineMove("f5", None, 0.25)) == "=== F5//0.25"
    assert parse_nboard_move("=== F5//0.25") == EngineMove("f5", None, 0.25)
    assert format_nboard_move(EngineMove("f5", -1.5)) == "=== F5/-1.5"
    assert format_nboard_move(EngineMove(None)) == "=== PA"


@pytest.mark.parametrize(("move", "message"), [
    (EngineMove("j10"), "not a square on an 8x8 board: 'j10'"),
    (EngineMove("F5"), "not a move of an NBoard engine: 'F5'"),
    (EngineMove("z9"), "not a move: 'Z9'"),
    (EngineMove("f5", math.nan), "not a score: nan"),
    (EngineMove("f5", math.inf, 1.0), "not a score: inf"),
    (EngineMove("f5", 1.0, -0.5), "not a time in seconds: -0.5"),
    (EngineMove("f5", None, math.inf), "not a time in seconds: inf"),
])
def test_what_the_reader_would_refuse_or_drop_is_not_written(move, message):
    with pytest.raises(ProtocolError, match=message):
        format_nboard_move(move)


@pytest.mark.parametrize("line", ["=== J10", "=== Z9", "=== F5/nan", "=== F5/inf/1",
                                  "=== F5/1/2/3", "=== /1/2"])
def test_the_reader_refuses_what_the_writer_refuses(line):
    with pytest.raises(ProtocolError):
        parse_nboard_move(line)


@pytest.mark.parametrize("text", ["x", "-0.5", "nan", "inf"])
def test_a_time_that_is_no_duration_is_dropped(text):
    assert parse_nboard_move(f"=== F5/1/{text}") == EngineMove("f5", 1.0, None)


def test_edax_writes_its_move_with_spaces():
    assert parse_nboard_move("=== F5 1.5 0.2") == EngineMove("f5", 1.5, 0.2)
    assert parse_nboard_move("=== d3/(0,2)/x") == EngineMove("d3", 1.0, None)
    with pytest.raises(ProtocolError, match="move line without a move"):
        parse_nboard_move("===   ")


@given(st.one_of(st.none(), st.sampled_from(["a1", "f5", "h8"])), hundredths,
       st.integers(1, 60))
def test_a_hint_line_reads_back_as_written(square, score, depth):
    line = format_search_line(square, score, depth)
    assert parse_search_line(line) == (square, score)
    assert search_depth(line) == (depth, 100.0)


def test_how_deep_a_hint_line_went():
    assert search_depth("search F5 1.5 0 21@98%") == (21, 98)
    assert search_depth("book F5 1.5 30 12") == (math.inf, 100.0)
    assert search_depth("search F5 1.5") == (-1.0, 0.0)
    with pytest.raises(ProtocolError, match="search line too short"):
        parse_search_line("search F5")


def test_final_hints_keep_each_moves_deepest_line_and_only_the_deepest_moves():
    lines = ["search F5 0.5 0 1", "search D3 9.0 0 1", "search F5 2.0 0 8",
             "status thinking", "search C4 1.0 0 8", "search C4 -1.0 0 8"]
    assert final_hints(lines) == ({"f5": 2.0, "c4": -1.0}, 8.0)
    assert final_hints(["book F5 1.0 30 12", "search D3 3.0 0 20"]) == ({"f5": 1.0}, math.inf)
    assert final_hints(["search F5 1.0"]) == ({"f5": 1.0}, None)
    assert final_hints(["nothing here"]) == ({}, None)


@given(st.text(st.characters(min_codepoint=33, max_codepoint=126), max_size=30))
def test_a_gtp_answer_reads_back_as_written(text):
    ok, error = gtp_ok(text), gtp_error(text or "failed")
    assert ok.endswith("\n\n") and error.endswith("\n\n")
    assert parse_gtp_reply(ok.rstrip("\n").split("\n")) == (True, text)
    assert parse_gtp_reply(error.rstrip("\n").split("\n")) == (False, text or "failed")


def test_a_gtp_reply_with_its_id_and_more_lines():
    assert parse_gtp_reply(["=3 d3", "more"]) == (True, "d3\nmore")
    with pytest.raises(ProtocolError, match="must start with '=' or '\\?': 'd3'"):
        parse_gtp_reply(["d3"])
    with pytest.raises(ProtocolError, match="empty GTP reply"):
        parse_gtp_reply([])


@pytest.mark.parametrize("size", SIZES)
def test_the_game_sent_to_an_engine_is_read_back_by_the_records_reader(size):
    rng, pos, moves = random.Random(size), Position.start(size), []
    for _ in range(12):
        if not pos.legal_moves():
            moves.append(None)
            pos = pos.pass_turn()
            continue
        moves.append(rng.choice(pos.legal_squares()))
        pos = pos.play(moves[-1])
    (game,) = read_ggf_text(ggf_game(Position.start(size), moves))
    assert game.start == Position.start(size)
    assert [m.square for m in game.moves] == moves
    assert game.positions()[-1] == pos


def test_each_sides_used_time_is_spread_over_its_moves():
    clock = Clock(main=600, increment=0, black=590, white=596)
    (game,) = read_ggf_text(ggf_game(Position.start(), ["f5", "d6", "c3"], clock))
    times = {color: sum(m.time or 0 for m in game.moves if m.player is color) for color in Color}
    assert times == {Color.BLACK: pytest.approx(10), Color.WHITE: pytest.approx(4)}
