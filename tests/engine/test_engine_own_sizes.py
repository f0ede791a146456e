"""Kaeshi's own engine on 6x6 and 10x10; a client refuses a size its engine does not play."""

from __future__ import annotations

import io
import random
import sys

import pytest

from controller.bitboard import bit_indices, geometry
from controller.engine.client import EngineClient, EngineSpec, Game
from controller.engine.own import serve
from controller.engine.search import Searcher, Settings, final_margin, weights
from controller.position import Position
from controller.symmetry import TRANSFORMS, transform_square


@pytest.mark.parametrize("size", [6, 10])
def test_the_weights_keep_the_boards_symmetry(size):
    w = weights(size)
    assert len(w) == size * size and w[0] == 100
    for t in TRANSFORMS:
        assert all(w[transform_square(i, t, size)] == w[i] for i in range(size * size))


def _exact(p: int, o: int, size: int, memo: dict) -> int:
    geo = geometry(size)
    key = (p, o)
    if key in memo:
        return memo[key]
    moves = geo.legal_moves(p, o)
    if not moves:
        best = final_margin(p, o, size * size) if not geo.legal_moves(o, p) \
            else -_exact(o, p, size, memo)
    else:
        best = -999
        for sq in bit_indices(moves):
            f = geo.flips(p, o, sq)
            best = max(best, -_exact(o & ~f, p | f | 1 << sq, size, memo))
    memo[key] = best
    return best


@pytest.mark.parametrize("seed", range(3))
def test_the_solver_is_exact_on_six_by_six_endgames(seed):
    rng = random.Random(seed)
    pos = Position.start(6)
    while pos.empty.bit_count() > 9 and not pos.is_game_over():
        pos = pos.play(rng.choice(bit_indices(pos.legal_moves()))) if pos.legal_moves() \
            else pos.pass_turn()
    result = Searcher(Settings(depth=2, exact=12)).analyse(pos, count=99)
    assert result.exact
    assert result.score == _exact(pos.mover, pos.other, 6, {})


def test_a_whole_ten_by_ten_game_against_itself_is_legal():
    pos, searcher = Position.start(10), Searcher(Settings(depth=1, exact=8))
    while not pos.is_game_over():
        result = searcher.analyse(pos)
        pos = pos.pass_turn() if result.best is None else pos.play(result.best)
    assert sum(pos.final_score()) == 100


def _own(protocol: str) -> EngineSpec:
    return EngineSpec((sys.executable, "-m", "controller.engine.own", "--protocol", protocol,
                       "--level", "1", "--seconds", "0.5"), protocol, level=1, seconds=5.0)


@pytest.mark.parametrize("size", [6, 10])
def test_the_own_engine_over_gtp_plays_other_sizes(size):
    client = EngineClient(_own("gtp"))
    try:
        start = Position.start(size)
        first = start.legal_squares()[0]
        move = client.choose(Game(start, (first,)))
        assert move is not None and move.square in start.play(first).legal_squares()
        again = client.choose(Game(Position.start(8)))  # and back to 8x8
        assert again is not None and again.square in Position.start().legal_squares()
    finally:
        client.close()


def test_an_nboard_engine_is_not_asked_about_another_size():
    client = EngineClient(_own("nboard"))
    try:
        assert client.choose(Game(Position.start(6))) is None
        assert "plays 8x8 Othello only, not 6x6" in client.note
        assert not client.gone  # the engine is fine: only the request was refused
        assert client.choose(Game(Position.start())) is not None
    finally:
        client.close()


def test_a_gtp_engine_refusing_the_size_is_named():
    out = io.StringIO()
    serve("gtp", 1, io.StringIO("boardsize 12\nboardsize 6\nshowboard\nquit\n"), out)
    replies = out.getvalue().split("\n\n")
    assert replies[0].startswith("? unacceptable size")
    assert replies[1].startswith("=") and "a b c d e f\n" in replies[2]
