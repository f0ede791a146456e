"""The mover's own move on the simulated board: what is played, and the truth told about it."""

from __future__ import annotations

import random

import pytest
from arbiter_logs import wthor_2001

from controller.events import Irregularity
from controller.position import Position
from controller.records import GameRecord
from controller.simulator import SimOptions, random_game, simulate_game
from controller.simulator.hand import Hand
from controller.simulator.move import Mover, Progress
from controller.simulator.table import Table
from controller.squares import square_name

K = Irregularity


@pytest.fixture(scope="module")
def game(data_dir) -> GameRecord:
    return wthor_2001(data_dir)[42]


def test_injected_faults_are_in_the_truth(game):
    sim = simulate_game(game, SimOptions(errors=0.5, seed=9))
    assert len(sim.injected) > 10
    flagged = sorted(
        (e["player"], e["kind"], e["squares"]) for e in sim.truth if e.event == "irregularity"
    )
    corrected = sorted((e["kind"], e["squares"]) for e in sim.truth if e.event == "corrected")
    # Exactly the faults nobody put right before the press are flagged, nothing else;
    # those the opponent pointed out are also corrected.
    assert flagged == sorted(
        (inj.player.value, kind, squares)
        for inj in sim.injected
        if inj.fix != "mover"
        for kind, squares in inj.flags.items()
    )
    assert corrected == sorted(
        (kind, squares)
        for inj in sim.injected
        if inj.fix == "opponent"
        for kind, squares in inj.flags.items()
    )
    assert {inj.fix for inj in sim.injected} == {"none", "mover", "opponent"}
    assert {k for inj in sim.injected for k in inj.flags} <= {k.value for k in Irregularity}


def a_mover(pos: Position, seed: int, clock: bool = True) -> Mover:
    rng = random.Random(seed)
    table = Table(pos.board_string(), rng, hand=False, noise=0.0)
    return Mover(Progress(pos), Hand(table, rng, pos.size, habits=False, clock=clock), rng,
                 clock=clock, habits=False)


def legal(pos: Position) -> list[int]:
    return [q for q in range(pos.size ** 2) if pos.legal_moves() >> q & 1]


@pytest.mark.parametrize("size", [6, 8, 10])
def test_a_clean_move_is_pressed_and_told_as_the_rules_play_it(size):
    pos = Position.start(size)
    for seed, square in enumerate(legal(pos)):
        mover = a_mover(pos, seed)
        mover.play(square, None)
        presses = [o for o in mover.table.observations if o.press is not None]
        assert [o.press for o in presses] == [pos.to_move]
        flips = sorted(square_name(q, size) for q in range(size ** 2) if pos.flips(square) >> q & 1)
        (told,) = mover.progress.truth
        assert (told.t, told.event, told.fields) == (presses[0].t, "move", {
            "player": pos.to_move.value, "square": square_name(square, size), "flips": flips})
        assert mover.progress.pos == pos.play(square)
        assert mover.progress.injected == [] and not mover.progress.left_open


def test_a_fault_left_on_the_board_is_told_and_play_goes_on_from_it():
    left = 0
    for seed in range(40):
        pos = random_game(8, seed).positions()[20]
        if not pos.legal_moves():
            continue
        mover = a_mover(pos, seed)
        mover.progress.number = 21
        mover.play(legal(pos)[0], K.FORGOTTEN_FLIP)
        (injected,) = mover.progress.injected
        if injected.fix != "none":
            continue
        left += 1
        assert (injected.number, injected.player) == (21, pos.to_move)
        told = [(e.event, e.fields.get("kind"), e.fields.get("squares"))
                for e in mover.progress.truth]
        assert told[0] == ("move", None, None)
        assert "forgotten_flip" in injected.flags  # now and then with an over-flip
        assert sorted(told[1:]) == sorted(
            ("irregularity", kind, squares) for kind, squares in injected.flags.items())
        assert mover.progress.left_open
        assert mover.progress.pos.board_string() == "".join(mover.table.cells).upper()
        assert mover.progress.pos != pos.play(legal(pos)[0])
    assert left >= 5


def test_without_a_clock_the_pass_a_move_forces_is_told_at_the_move():
    found = 0
    for seed in range(200):
        for pos in random_game(6, seed).positions():
            for square in legal(pos):
                after = pos.play(square)
                if after.legal_moves() or not after.opponent_moves():
                    continue
                mover = a_mover(pos, seed, clock=False)
                mover.play(square, None)
                assert [e.event for e in mover.progress.truth] == ["move", "pass"]
                assert mover.progress.truth[1]["player"] == pos.to_move.opponent.value
                assert mover.progress.pos == after.pass_turn()
                found += 1
        if found >= 5:
            break
    assert found >= 5
