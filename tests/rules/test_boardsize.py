"""The board sizes, defined once: which exist, their start, corners and edge, and where a
smaller board lies on a bigger grid (a 6x6 game on the 8x8 sensor board)."""

from __future__ import annotations

import pytest

from controller.boardsize import (
    SIZES,
    BoardSizeError,
    a_label,
    board_size,
    check_size,
    size_of_board_string,
)
from controller.squares import parse_square, square_name


@pytest.mark.parametrize("size", SIZES)
def test_each_size_is_accepted_as_it_is(size):
    assert check_size(size) == size == board_size(size).n


@pytest.mark.parametrize("bad", [7, 12, 0, -8, True, "8", 8.0, None])
def test_any_other_size_is_refused_naming_the_sizes_there_are(bad):
    refusal = rf"unsupported board size {bad!r} \(supported: 6, 8, 10\)"
    with pytest.raises(BoardSizeError, match=refusal):
        check_size(bad)


@pytest.mark.parametrize(("n", "white", "black"), [
    (6, ("c3", "d4"), ("d3", "c4")),
    (8, ("d4", "e5"), ("e4", "d5")),
    (10, ("e5", "f6"), ("f5", "e6")),
])
def test_the_start_is_the_centre_four_white_on_the_diagonal_from_a1(n, white, black):
    masks = board_size(n).start_masks()
    assert masks == tuple(sum(1 << parse_square(s, n) for s in squares)
                          for squares in (black, white))


@pytest.mark.parametrize(("n", "names"), [
    (6, ("a1", "f6", "f1", "a6")), (8, ("a1", "h8", "h1", "a8")), (10, ("a1", "j10", "j1", "a10")),
])
def test_the_corners_in_the_handicap_order(n, names):
    assert tuple(square_name(i, n) for i in board_size(n).corners()) == names


@pytest.mark.parametrize("n", SIZES)
def test_the_edge_is_the_outer_ring_of_squares(n):
    size = board_size(n)
    last_column, last_row = size.columns[-1], str(n)
    named = {i for i in range(size.squares)
             if square_name(i, n)[0] in ("a", last_column)
             or square_name(i, n)[1:] in ("1", last_row)}
    assert {i for i in range(size.squares) if size.edge_mask() >> i & 1} == named
    assert len(named) == 4 * (n - 1)
    assert size.full == (1 << n * n) - 1 and size.columns == "abcdefghij"[:n]


@pytest.mark.parametrize(("inner", "outer"), [(6, 8), (6, 10), (8, 10), (8, 8)])
def test_a_smaller_board_lies_centred_on_a_bigger_grid(inner, outer):
    small, big = board_size(inner), board_size(outer)
    under = [small.to_outer(i, big) for i in range(small.squares)]
    assert [small.from_outer(j, big) for j in under] == list(range(small.squares))
    assert sorted(set(under) | set(small.outer_ring(big))) == list(range(big.squares))
    assert len(small.outer_ring(big)) == big.squares - small.squares
    k = (outer - inner) // 2
    assert square_name(under[0], outer) == square_name(k * outer + k, outer)


def test_a_six_by_six_game_on_the_sensor_board_starts_at_b2():
    assert square_name(board_size(6).to_outer(parse_square("a1", 6), board_size(8)), 8) == "b2"
    assert board_size(6).from_outer(parse_square("a1"), board_size(8)) is None


def test_a_bigger_board_does_not_fit_on_a_smaller_grid():
    with pytest.raises(BoardSizeError, match="a 10x10 board does not fit on a 8x8 grid"):
        board_size(10).offset_in(board_size(8))


@pytest.mark.parametrize("n", SIZES)
def test_a_board_string_names_its_size_by_its_length(n):
    assert size_of_board_string("-" * n * n) == n


@pytest.mark.parametrize("length", [0, 35, 63, 65, 99])
def test_a_board_string_of_no_size_is_refused_naming_its_length(length):
    with pytest.raises(BoardSizeError, match=f"a board string of {length} squares fits no board"):
        size_of_board_string("-" * length)


def test_sizes_are_named_with_their_article():
    assert [a_label(n) for n in SIZES] == ["a 6x6", "an 8x8", "a 10x10"]
    assert board_size(8).a_label == "an 8x8" and board_size(10).label == "10x10"
