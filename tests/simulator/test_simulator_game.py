"""The simulated board: seeded, valid, realistic, and exact about what it injected."""

from __future__ import annotations

import pytest
from arbiter_logs import wthor_2001

from controller.arbiter.readings import HOLD
from controller.records import GameRecord
from controller.simulator import SimOptions, simulate_game
from controller.simulator.table import FRAME
from controller.squares import OBSERVATION_ALPHABET, Color, validate_board_string


@pytest.fixture(scope="module")
def game(data_dir) -> GameRecord:
    return wthor_2001(data_dir)[42]


def blip_frames(observations, width: int = 1) -> dict[int, int]:
    """Index of each board with readings that differ from the same square's readings
    in the ``width`` boards just before and just after (all alike), and how many."""
    boards = [(i, o.board) for i, o in enumerate(observations) if o.board is not None]
    found: dict[int, int] = {}
    for k in range(width, len(boards) - width):
        i, cur = boards[k]
        around = [b for _, b in boards[k - width:k] + boards[k + 1:k + 1 + width]]
        n = sum(c != "?" and len(set(seen)) == 1 and seen[0] not in ("?", c)
                for c, seen in zip(cur, zip(*around, strict=True), strict=True))
        if n:
            found[i] = n
    return found


def blips(observations) -> int:
    return sum(blip_frames(observations).values())


def test_same_seed_same_log_other_seed_other_log(game):
    a = simulate_game(game, SimOptions(errors=0.2, seed=5, noise=0.1))
    b = simulate_game(game, SimOptions(errors=0.2, seed=5, noise=0.1))
    c = simulate_game(game, SimOptions(errors=0.2, seed=6, noise=0.1))
    assert a.observations == b.observations and a.truth == b.truth
    assert a.observations != c.observations


def test_log_is_valid_and_ends_on_the_final_position(game):
    sim = simulate_game(game, SimOptions(seed=1))
    times = [o.t for o in sim.observations]
    assert times == sorted(times)
    for o in sim.observations:
        if o.board is not None:
            validate_board_string(o.board, 8, OBSERVATION_ALPHABET)
    assert sim.observations[-1].board == game.final_position().board_string()
    presses = [o.press for o in sim.observations if o.press is not None]
    assert presses[0] is Color.WHITE  # rule 4: white starts the clock
    assert len(presses) == 1 + len(game.moves)


def test_hand_hides_squares_and_no_clock_means_no_presses(game):
    with_hand = simulate_game(game, SimOptions(seed=2))
    assert any("?" in (o.board or "") for o in with_hand.observations)
    bare = simulate_game(game, SimOptions(seed=2, hand=False, clock=False))
    assert not any("?" in (o.board or "") for o in bare.observations)
    assert not any(o.press for o in bare.observations)


def test_noise_is_one_frame_misreads(game):
    assert blips(simulate_game(game, SimOptions(seed=3, hand=False)).observations) == 0
    noisy = simulate_game(game, SimOptions(seed=3, hand=False, noise=0.3)).observations
    assert blips(noisy) > 100


def test_a_misread_stands_one_frame_even_on_a_still_board(game):
    """The arbiter takes a reading that stood HOLD seconds: a misread never does."""
    obs = simulate_game(game, SimOptions(seed=3, hand=False, noise=0.3)).observations
    stood = [obs[i + 1].t - obs[i].t for i in blip_frames(obs, width=2)]
    assert max(stood) <= FRAME + 0.001 < HOLD
    assert max(o.t - p.t for p, o in zip(obs, obs[1:], strict=False)) > HOLD  # still boards
