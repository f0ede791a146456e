"""The hand on the simulated board: a plan acted out disc by disc, and a faulty move put right."""

from __future__ import annotations

import random

import pytest
from arbiter_logs import wthor_2001

from controller.events import Irregularity
from controller.position import Position
from controller.records import GameRecord
from controller.simulator import SimOptions, random_game, simulate_game
from controller.simulator.hand import Hand
from controller.simulator.plan import correct_plan, inject
from controller.simulator.table import Table

K = Irregularity


@pytest.fixture(scope="module")
def game(data_dir) -> GameRecord:
    return wthor_2001(data_dir)[42]


def test_moves_are_played_one_disc_at_a_time(game):
    sim = simulate_game(game, SimOptions(seed=4, hand=False, clock=False))
    boards = [o.board for o in sim.observations if o.board is not None]
    changes = [
        sum(a != b for a, b in zip(x, y, strict=True))
        for x, y in zip(boards, boards[1:], strict=False)
    ]
    assert max(changes) == 1


def midgame(size: int, seed: int) -> Position:
    """The position half-way through a random game, where every kind has room to happen."""
    positions = random_game(size, seed).positions()
    return next(p for p in positions[len(positions) // 2:] if p.legal_moves())


def a_hand(pos: Position, seed: int, habits: bool) -> Hand:
    rng = random.Random(seed)
    table = Table(pos.board_string(), rng, hand=False, noise=0.0)
    return Hand(table, rng, pos.size, habits=habits, clock=True)


@pytest.mark.parametrize("size", [6, 8, 10])
@pytest.mark.parametrize("habits", [False, True])
def test_a_clean_move_leaves_the_position_the_rules_give(size, habits):
    for seed in range(10):
        pos = midgame(size, seed)
        hand = a_hand(pos, seed, habits)
        square = min(q for q in range(size * size) if pos.legal_moves() >> q & 1)
        hand.perform(correct_plan(pos, square), pos)
        assert "".join(hand.table.cells).upper() == pos.play(square).board_string()


#: Put right, these leave the move as the rules make it; the others take the disc back.
MOVE_STANDS = (K.FORGOTTEN_FLIP, K.OVER_FLIP, K.WRONG_COLOR, K.EXTRA_DISC, K.REMOVED_DISC,
               K.SHIFTED_DISC)


@pytest.mark.parametrize("kind", [*MOVE_STANDS, K.ILLEGAL_SQUARE, K.OUT_OF_TURN])
@pytest.mark.parametrize("habits", [False, True])
def test_a_faulty_move_put_right_leaves_the_board_as_the_rules_do(kind, habits):
    faulty = 0
    for seed in range(20):
        pos = midgame(8, seed)
        hand = a_hand(pos, seed, habits)
        square = max(q for q in range(pos.size ** 2) if pos.legal_moves() >> q & 1)
        before = hand.table.cells[:]
        plan = inject(kind, pos, square, before, hand.rng)
        if plan is None:
            continue
        hand.perform(plan, pos)
        faulty += hand.table.cells != correct_plan(pos, square).after(before)
        hand.repair(plan, before)
        right = pos.play(square).board_string() if kind in MOVE_STANDS else pos.board_string()
        assert "".join(hand.table.cells) == right, (kind, seed)
    assert faulty >= 10  # the faults were really on the board before they were put right
