"""The simulator's habits (``SimOptions.habits``): each one really shows in the logs."""

from __future__ import annotations

import pytest
from arbiter_logs import wthor_2001

from controller.simulator import SimOptions, Simulation, simulate_game


@pytest.fixture(scope="module")
def sims(data_dir) -> list[Simulation]:
    games = wthor_2001(data_dir)[3::400]
    return [simulate_game(g, SimOptions(errors=0.15, seed=40 + i, habits=True))
            for i, g in enumerate(games)]


def square_stories(sim: Simulation) -> list[str]:
    """Per square, its definite readings in order with repeats folded ('-X-')."""
    stories = [""] * 64
    for o in sim.observations:
        if o.board is None:
            continue
        for i, ch in enumerate(o.board):
            if ch != "?" and not stories[i].endswith(ch):
                stories[i] += ch
    return stories


def test_every_correction_path_is_taken(sims):
    fixes = {inj.fix for sim in sims for inj in sim.injected}
    assert fixes == {"none", "mover", "opponent", "after", "self"}


def test_two_faults_in_one_move_of_several_pairs(sims):
    pairs = {tuple(sorted(inj.flags)) for sim in sims for inj in sim.injected
             if len(inj.flags) == 2}
    assert len(pairs) >= 3


def test_a_forgotten_press_judges_two_moves_at_one_press(sims):
    doubled = 0
    for sim in sims:
        moves = [e for e in sim.truth if e.event == "move"]
        doubled += sum(a.t == b.t and a["player"] != b["player"]
                       for a, b in zip(moves, moves[1:], strict=False))
    assert doubled


def test_discs_put_down_and_taken_back_and_pushed_onto_their_square(sims):
    put_back = pushed = 0
    for sim in sims:
        for story in square_stories(sim):
            put_back += "-X-" in story or "-O-" in story
            pushed += "-xX" in story or "-oO" in story
    assert put_back and pushed


def test_habits_are_off_by_default(data_dir):
    """Pinned seeds elsewhere (the demo) rely on the default stream: habits are asked for."""
    game = wthor_2001(data_dir)[0]
    plain = simulate_game(game, SimOptions(errors=0.1, seed=3))
    assert {inj.fix for inj in plain.injected} <= {"none", "mover", "opponent"}
    assert plain.observations != simulate_game(
        game, SimOptions(errors=0.1, seed=3, habits=True)).observations


def test_players_press_as_the_hand_leaves_the_board(sims):
    """0.15-0.4 s after the first frame without the hand, where a hand was at work."""
    gaps = []
    for sim in sims:
        left = None
        for o in sim.observations:
            if o.board is not None:
                if "?" in o.board:
                    left = None
                elif left is None:
                    left = o.t
            else:
                if left is not None:
                    gaps.append(round(o.t - left, 3))
                left = None
    assert len(gaps) > 100
    prompt = [g for g in gaps if g <= 0.4]
    assert len(prompt) > 0.5 * len(gaps)  # most presses follow a hand (the rest: thinking)
    assert min(prompt) >= 0.15
    assert max(prompt) - min(prompt) > 0.15  # drawn over the range, not one fixed delay
