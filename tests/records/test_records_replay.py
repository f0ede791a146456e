"""Replaying a file's moves: the passes the rules force put back, every other pass and
every illegal move refused by its number in the file."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.boardsize import SIZES
from controller.position import Position
from controller.records.model import RecordError
from controller.records.replay import Step, replay, square_index
from controller.squares import Color, parse_square, square_name


def _played(size: int, seed: int) -> tuple[list[tuple[Color, str | None]], Position]:
    """A whole random game by the position's own rules, its passes written out as ``None``."""
    rng = random.Random(seed)
    pos = Position.start(size)
    turns: list[tuple[Color, str | None]] = []
    while not pos.is_game_over():
        if not pos.legal_moves():
            turns.append((pos.to_move, None))
            pos = pos.pass_turn()
        turns.append((pos.to_move, rng.choice(pos.legal_squares())))
        pos = pos.play(turns[-1][1])
    return turns, pos


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SIZES), st.integers(0, 2**32))
def test_passes_left_out_are_put_back_where_the_rules_force_them(size, seed):
    turns, final = _played(size, seed)
    steps = [Step(square_index(square, size)) for _, square in turns if square is not None]
    moves, end = replay(Position.start(size), steps)
    assert [(m.player, m.square) for m in moves] == turns
    assert end == final


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(SIZES), st.integers(0, 2**32))
def test_passes_written_out_are_kept_as_written(size, seed):
    turns, final = _played(size, seed)
    steps = [Step(None if square is None else square_index(square, size), player)
             for player, square in turns]
    moves, end = replay(Position.start(size), steps)
    assert [(m.player, m.square) for m in moves] == turns
    assert end == final


def test_square_index_knows_every_name_of_every_size():
    for size in SIZES:
        for i in range(size * size):
            assert square_index(square_name(i, size), size) == i == parse_square(
                square_name(i, size), size)


@pytest.mark.parametrize(("steps", "message"), [
    ([Step(None)], "move 1: black cannot pass: legal moves d3 c4 f5 e6"),
    ([Step(parse_square("f5")), Step(parse_square("d4"))],
     "move 2: white cannot play d4: occupied"),
    ([Step(parse_square("a1"))], "move 1: black cannot play a1: it turns no disc"),
    ([Step(parse_square("f5"), Color.WHITE)], r"move 1 \(f5\) is by white, but black is to move"),
])
def test_an_illegal_step_is_named_by_its_number_in_the_file(steps, message):
    with pytest.raises(RecordError, match=message):
        replay(Position.start(), steps)


def test_a_move_after_the_end_of_the_game_is_refused():
    turns, final = _played(6, 0)
    assert final.is_game_over()
    steps = [Step(square_index(square, 6)) for _, square in turns if square is not None]
    over = f"move {len(steps) + 1} \\(a1\\): the game is already over"
    with pytest.raises(RecordError, match=over):
        replay(Position.start(6), [*steps, Step(0)])


def test_a_board_that_stood_is_played_on_from():
    board = list(Position.start().board_string())
    board[parse_square("f5")] = "X"  # black's f5 turned nothing, and no one put it right
    stood = Position.from_board_string("".join(board), Color.WHITE)
    reply = stood.legal_squares()[0]
    moves, end = replay(Position.start(), [Step(parse_square("f5"), stands=stood),
                                           Step(parse_square(reply))])
    assert [(m.player, m.square) for m in moves] == [(Color.BLACK, "f5"), (Color.WHITE, reply)]
    assert moves[0].stands == stood
    assert end == stood.play(reply)
