"""Kaeshi's own search: alpha-beta gives exactly what a plain minimax gives."""

from __future__ import annotations

import random
import time

import pytest

from controller.bitboard import bit_indices, flips, legal_moves
from controller.engine.search import (
    CHECK_NODES,
    LEVEL_NAMES,
    LEVELS,
    NOMINAL_RATE,
    SOLVE_SPEEDUP,
    Searcher,
    Settings,
    deepen,
    final_margin,
    solve_nodes,
)
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


def test_levels_are_named_by_strength_and_grow_in_depth_and_endgame():
    names = [Settings.for_level(n).name for n in range(1, 6)]
    assert names == ["beginner", "novice", "club", "advanced", "strong"]
    assert all(LEVEL_NAMES[name] == n for n, name in enumerate(names, 1))
    depths = [(s.depth, s.exact) for s in LEVELS]
    assert depths == sorted(depths) and len(set(depths)) == len(depths)
    assert Settings.for_level(8).depth == 8 and Settings.for_level(99).depth == 20


class FakeClock:
    """Time that passes by a fixed step at every look: a search's deadline without a
    real clock, so the tests are exact whatever the machine's load."""

    def __init__(self, seconds: float, step: float) -> None:
        self.now, self.end, self.step = 0.0, seconds, step
        self.looks = 0

    def left(self) -> float:
        self.looks += 1
        self.now += self.step
        return self.end - self.now


@pytest.mark.parametrize("seed", range(4))
def test_a_search_out_of_time_answers_with_its_deepest_finished_depth(seed):
    pos = random_position(200 + seed, 30)
    clock = FakeClock(0.0, 1.0)  # out of time at the first look
    result = deepen(pos, Settings(6, 0), clock.left)
    # depth 1 is always finished, and it is the plain depth-1 answer
    assert result.depth == 1 and pos.is_legal(result.best)
    assert result.best == Searcher(Settings(1, 0)).analyse(pos).best
    # with time for a few looks, it goes deeper, but never past the level
    roomy = deepen(pos, Settings(3, 0), FakeClock(1e9, 1.0).left)
    assert roomy.depth == 3
    assert roomy.score == Searcher(Settings(3, 0)).analyse(pos).score


@pytest.mark.parametrize("seed", range(4))
def test_the_endgame_is_solved_only_when_the_solve_fits(seed):
    pos = random_position(300 + seed, 10)
    solved = deepen(pos, Settings(2, 12), FakeClock(1e9, 1.0).left)
    assert solved.exact and solved.depth == 10
    assert solved.score == Searcher(Settings(1, 12)).analyse(pos).score
    # time for the midgame depths but not for the solve: the midgame answer stands
    looks = FakeClock(1e9, 1.0)
    deepen(pos, Settings(2, 0), looks.left)
    short = FakeClock(looks.looks + 3, 1.0)
    answer = deepen(pos, Settings(2, 12), short.left)
    assert not answer.exact and answer.depth == 2 and pos.is_legal(answer.best)
    assert short.now <= short.end + CHECK_NODES  # it noticed the deadline and stopped


def test_a_deep_level_meets_a_real_deadline_in_a_hard_endgame():
    from controller.engine.own import timed_analyse

    pos = random_position(7, 18)
    began = time.monotonic()
    result = timed_analyse(pos, Settings(20, 18), 0.5)
    # the search itself stops at 85% of the time; the rest is the slack a loaded
    # machine needs between two looks at the clock
    assert time.monotonic() - began < 0.5 and pos.is_legal(result.best)


def test_a_solve_that_cannot_fit_is_not_tried_and_the_midgame_keeps_the_time():
    pos = random_position(9, 24)
    assert solve_nodes(24) / (SOLVE_SPEEDUP * NOMINAL_RATE) > 100  # hopeless in 100 s
    clock = FakeClock(100.0, 0.001)
    answer = deepen(pos, Settings(3, 30), clock.left)
    assert not answer.exact and answer.depth == 3 and pos.is_legal(answer.best)
    assert clock.now < 100.0  # finished, well before the deadline
