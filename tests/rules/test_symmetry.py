"""The eight board symmetries: inverses, and that turning a game keeps the game."""

from __future__ import annotations

from game_strategies import games
from hypothesis import given, settings
from hypothesis import strategies as st
from test_bitboard_flips import reachable

from controller.position import Position
from controller.symmetry import (
    INVERSE,
    TRANSFORMS,
    normalize_to_f5,
    transform_board_string,
    transform_mask,
    transform_moves,
    transform_position,
    transform_square,
    transforms_fixing,
)

transforms = st.sampled_from(list(TRANSFORMS))
sizes = st.sampled_from([6, 8, 10])


@settings(max_examples=100, deadline=None)
@given(sizes, st.data(), transforms)
def test_square_then_inverse_is_identity(size, data, t):
    sq = data.draw(st.integers(0, size * size - 1))
    assert transform_square(transform_square(sq, t, size), INVERSE[t], size) == sq


@settings(max_examples=100, deadline=None)
@given(st.integers(0, (1 << 64) - 1), transforms)
def test_mask_then_inverse_is_identity(mask, t):
    turned = transform_mask(mask, t)
    assert turned.bit_count() == mask.bit_count()
    assert transform_mask(turned, INVERSE[t]) == mask


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="-XO?xo", min_size=64, max_size=64), transforms)
def test_board_string_then_inverse_is_identity(board, t):
    turned = transform_board_string(board, t)
    assert sorted(turned) == sorted(board)
    assert transform_board_string(turned, INVERSE[t]) == board


@settings(max_examples=40, deadline=None)
@given(reachable(sizes=(6, 8, 10)), transforms)
def test_position_then_inverse_is_identity(pos, t):
    assert transform_position(transform_position(pos, t), INVERSE[t]) == pos


def test_the_eight_transforms_are_distinct():
    # a1 together with b1 lands on a different pair of squares under each symmetry.
    images = {transform_mask(0b11, t) for t in TRANSFORMS}
    assert len(images) == 8


def test_start_position_is_fixed_by_exactly_four_symmetries():
    assert sorted(transforms_fixing(Position.start())) == [0, 2, 6, 7]


def _final_score(moves: list[str]) -> tuple[int, int]:
    pos = Position.start()
    for m in moves:
        if not pos.legal_moves():
            pos = pos.pass_turn()
        pos = pos.play(m)
    return pos.final_score()


@settings(max_examples=60, deadline=None)
@given(games())
def test_normalize_to_f5_keeps_the_game_and_its_score(moves):
    turned, t = normalize_to_f5(moves)
    assert turned[0] == "f5"
    assert t in transforms_fixing(Position.start())
    assert _final_score(turned) == _final_score(moves)
    assert transform_moves(turned, INVERSE[t]) == moves


def test_normalize_to_f5_on_the_four_openings():
    for first in ("d3", "c4", "f5", "e6"):
        turned, _ = normalize_to_f5([first])
        assert turned == ["f5"]
