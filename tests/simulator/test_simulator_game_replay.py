"""Real games through the simulated board and the arbiter: nothing missed, nothing invented.

The bench (``make bench``) runs the same check on 2,000+ games; here a spread of
WTH_2001 games sized for CI.
"""

from __future__ import annotations

from collections import Counter

import pytest
from arbiter_logs import wthor_2001

from controller.arbiter import ArbiterConfig, arbitrate
from controller.events import Event, Irregularity
from controller.simulator import SimOptions, simulate_game
from controller.simulator.plan import HABIT_KINDS


def content(events: list[Event]) -> list[dict]:
    """Events without their times (a correction's time depends on the frame rate)."""
    out = []
    for e in events:
        d = e.to_dict()
        d.pop("t")
        out.append(d)
    return out


@pytest.mark.parametrize(
    "clock,hand,noise",
    [(True, True, 0.0), (True, False, 0.05), (False, True, 0.05), (False, False, 0.0)],
)
def test_error_free_replays_give_the_stored_score(data_dir, clock, hand, noise):
    games = wthor_2001(data_dir)[::150]
    for i, game in enumerate(games):
        sim = simulate_game(game, SimOptions(seed=i, clock=clock, hand=hand, noise=noise))
        events = arbitrate(sim.observations, ArbiterConfig(clock=clock))
        assert not [e for e in events if e.event in ("irregularity", "corrected")]
        moves = [e["square"] for e in events if e.event == "move"]
        assert moves == game.transcript_moves()
        end = events[-1]
        assert end.event == "game_over"
        assert (end["black"], end["white"]) == game.result
        assert content(events) == content(sim.truth)


@pytest.mark.parametrize("clock,noise", [(True, 0.0), (True, 0.08), (False, 0.0), (False, 0.08)])
def test_injected_irregularities_are_all_found_exactly(data_dir, clock, noise):
    games = wthor_2001(data_dir)[5::90]
    kinds: Counter[str] = Counter()
    fixes: Counter[str] = Counter()
    for i, game in enumerate(games):
        sim = simulate_game(game, SimOptions(errors=0.08, seed=1000 + i, clock=clock, noise=noise))
        events = arbitrate(sim.observations)
        assert content(events) == content(sim.truth), f"game {i}: {sim.injected}"
        if clock:  # judgements happen at presses, so their times are exact too
            judged = [(e.t, e.event) for e in events if e.event in ("move", "pass")]
            assert judged == [(e.t, e.event) for e in sim.truth if e.event in ("move", "pass")]
        for inj in sim.injected:
            kinds.update(inj.flags.keys())
            fixes[inj.fix] += 1
    # A move out of turn is drawn only with habits (test_arbiter_core_sizes measures it).
    expected = {k.value for k in Irregularity} - {k.value for k in HABIT_KINDS}
    if not clock:
        # No press, no pass to judge; a disc of the other colour begins the next move.
        expected -= {"wrong_color", "illegal_pass"}
    assert set(kinds) == expected
    assert fixes["none"] and fixes["mover"] and fixes["opponent"]
    # Flagged truth really is in there: the arbiter reported every uncorrected fault.
    assert sum(kinds.values()) >= 0.05 * len(games) * 30
