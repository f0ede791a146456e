"""Kaeshi's own search: alpha-beta gives exactly what a plain minimax gives."""

from __future__ import annotations

import random

import pytest

from controller.bitboard import bit_indices, flips, legal_moves
from controller.engine.search import Searcher, Settings, final_margin
from controller.position import Position
from controller.squares import parse_square, square_name


def random_position(seed: int, empties: int) -> Position:
    rng = random.Random(seed)
    pos = Position.start()
    while 64 - (pos.black | pos.white).bit_count() > empties and not pos.is_game_over():
        pos = pos.pass_turn() if not pos.legal_moves() else pos.play(
            rng.choice(pos.legal_squares()))
    return pos


def minimax(s: Searcher, p: int, o: int, depth: int, passed: bool = False) -> float:
    """Plain negamax to ``depth`` on the same evaluation, no pruning, no solver."""
    moves = legal_moves(p, o)
    if not moves:
        if passed or not legal_moves(o, p):
            return float(final_margin(p, o))
        return -minimax(s, o, p, depth, True)
    if depth == 0:
        return s.evaluate(p, o)
    best = -1e9
    for sq in bit_indices(moves):
        f = flips(p, o, sq)
        best = max(best, -minimax(s, o & ~f, p | f | 1 << sq, depth - 1))
    return best


@pytest.mark.parametrize("seed", range(6))
def test_midgame_scores_equal_a_plain_minimax(seed):
    pos = random_position(seed, 40)
    s = Searcher(Settings(depth=3, exact=0))
    result = s.analyse(pos, 64)
    p, o = pos.mover, pos.other
    expected = {}
    for sq in bit_indices(pos.legal_moves()):
        f = flips(p, o, sq)
        expected[square_name(sq)] = -minimax(s, o & ~f, p | f | 1 << sq, 2)
    assert result.scores == pytest.approx(expected)
    assert result.score == max(expected.values()) and not result.exact
    # asked for the best only, it still finds the same best score
    assert Searcher(Settings(depth=3, exact=0)).analyse(pos, 1).score == result.score


@pytest.mark.parametrize("seed", range(6))
def test_endgame_scores_are_exact(seed):
    pos = random_position(100 + seed, 8)
    result = Searcher(Settings(depth=1, exact=8)).analyse(pos, 64)
    s = Searcher()
    p, o = pos.mover, pos.other
    for square, score in result.scores.items():
        sq = parse_square(square)
        f = flips(p, o, sq)
        assert score == -minimax(s, o & ~f, p | f | 1 << sq, 99), square
    assert result.exact


def test_levels():
    assert Settings.for_level(1) == Settings(1, 12)
    assert Settings.for_level(99) == Settings(20, 12)
