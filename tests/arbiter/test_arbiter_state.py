"""The arbiter's whole state is its one ``ArbiterState``: nothing else carries a game on."""

from __future__ import annotations

import copy
import dataclasses
import json

import pytest

from controller.arbiter import Arbiter, ArbiterConfig
from controller.arbiter.state import ArbiterState
from controller.events import Event
from controller.observation import Observation
from controller.position import Position
from controller.simulator import SimOptions, random_game, simulate_game
from controller.simulator.table import PRESS_WAIT


def _game(size: int, clock: bool, habits: bool) -> list[Observation]:
    sim = simulate_game(random_game(size, 40 + size), SimOptions(
        errors=0.35, seed=size, clock=clock, noise=0.0 if clock else 0.03, habits=habits))
    return sim.observations


@pytest.mark.parametrize("size", [6, 8, 10])
@pytest.mark.parametrize(("clock", "wait"), [(True, 0.0), (True, PRESS_WAIT), (False, 0.0)])
def test_a_copy_of_the_state_alone_carries_the_game_on(size, clock, wait):
    """A fresh arbiter given a copy of another's state mid-game ends it as the other
    does: no part keeps anything of the game outside the state."""
    log = _game(size, clock, habits=wait > 0)
    config = ArbiterConfig(start=Position.start(size), press_wait=wait)
    straight = Arbiter(config)
    whole = [e for obs in log for e in straight.feed(obs)] + straight.finish(log[-1].t)
    assert any(e.event == "irregularity" for e in whole)
    for cut in (len(log) // 5, len(log) // 2, len(log) - 3):
        first = Arbiter(config)
        events: list[Event] = [e for obs in log[:cut] for e in first.feed(obs)]
        second = Arbiter(config)
        second.state = copy.deepcopy(first.state)
        events += [e for obs in log[cut:] for e in second.feed(obs)]
        events += second.finish(log[-1].t)
        assert [e.to_dict() for e in events] == [e.to_dict() for e in whole], cut
        assert second.record() == straight.record()


def test_the_arbiter_holds_its_configuration_and_its_state_and_nothing_else():
    arbiter = Arbiter(ArbiterConfig(press_wait=PRESS_WAIT))
    for obs in _game(8, clock=True, habits=True):
        arbiter.feed(obs)
    assert set(vars(arbiter)) == {"config", "state"}


def test_the_state_is_plain_data_that_keeps_the_board_size():
    """``asdict`` of the state mid-game is plain JSON with the board's size in it."""
    log = _game(10, clock=True, habits=True)
    arbiter = Arbiter(ArbiterConfig(start=Position.start(10), press_wait=PRESS_WAIT))
    held = False
    for obs in log:
        arbiter.feed(obs)
        held = held or arbiter.state.held is not None
        data = json.loads(json.dumps(dataclasses.asdict(arbiter.state)))
        assert data["position"]["size"] == 10
    assert held  # a press was held along the way, its view included above
    assert {f.name for f in dataclasses.fields(ArbiterState)} >= {"position", "stable", "held"}
