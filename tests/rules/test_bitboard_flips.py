"""Property tests: the bitboard engine against the square-by-square reference."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_position_naive import grid, mask, naive_flips, naive_legal

from controller.position import Position
from controller.squares import parse_square
from controller.symmetry import TRANSFORMS, transform_position, transform_square

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def reachable(draw: st.DrawFn, sizes: tuple[int, ...] = (8,)) -> Position:
    """A position reached from a start by random legal play (passes where forced)."""
    size = draw(st.sampled_from(sizes))
    handicap = draw(st.integers(0, 4)) if size == 8 else 0
    pos = Position.handicap(handicap) if handicap else Position.start(size)
    for choice in draw(st.lists(st.integers(0, 1000), max_size=size * size - 4)):
        if pos.is_game_over():
            break
        if not pos.legal_moves():
            pos = pos.pass_turn()
            continue
        squares = pos.legal_squares()
        pos = pos.play(squares[choice % len(squares)])
    return pos


@SETTINGS
@given(reachable(sizes=(6, 8, 10)))
def test_flips_and_legal_moves_equal_the_reference(pos: Position):
    cells = grid(pos)
    me = pos.to_move.symbol
    assert pos.legal_moves() == mask(naive_legal(cells, pos.size, me))
    for sq in range(pos.size * pos.size):
        assert pos.flips(sq) == mask(naive_flips(cells, pos.size, me, sq))


@SETTINGS
@given(reachable(sizes=(6, 8, 10)))
def test_playing_a_move_adds_the_disc_and_turns_exactly_its_flips(pos: Position):
    me, them = pos.to_move, pos.to_move.opponent
    for name in pos.legal_squares():
        sq = parse_square(name, pos.size)
        f = pos.flips(sq)
        after = pos.play(sq)
        assert after.discs(me) == pos.discs(me) | f | 1 << sq
        assert after.discs(them) == pos.discs(them) & ~f
        assert after.to_move is them


@SETTINGS
@given(reachable(sizes=(6, 8, 10)), st.sampled_from(list(TRANSFORMS)))
def test_symmetry_commutes_with_playing(pos: Position, t: int):
    turned = transform_position(pos, t)
    assert turned.legal_moves().bit_count() == pos.legal_moves().bit_count()
    for name in pos.legal_squares():
        sq = parse_square(name, pos.size)
        assert transform_position(pos.play(sq), t) == turned.play(transform_square(sq, t, pos.size))
