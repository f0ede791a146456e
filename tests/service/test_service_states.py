"""The service's states: only the real transitions, and a lost sensor's return to
the state it interrupted."""

from __future__ import annotations

import pytest

from controller.service.states import State, StateMachine


def test_state_machine_allows_only_real_transitions():
    seen = []
    sm = StateMachine(lambda old, new, why: seen.append((old, new, why)))
    assert sm.state is State.STARTING
    sm.go(State.WAITING_FOR_BOARD)
    sm.go(State.WAITING_FOR_START)
    sm.go(State.PLAYING, "start position")
    sm.sensor_lost("serial unplugged")
    assert sm.state is State.SENSOR_LOST and sm.resumes_to is State.PLAYING
    sm.set_underlying(State.PAUSED)  # paused from the web while the sensor was away
    sm.sensor_back()
    assert sm.state is State.PAUSED
    with pytest.raises(ValueError, match="no transition from paused to waiting for board"):
        sm.go(State.WAITING_FOR_BOARD)
    assert sm.go(State.PAUSED) is False
    assert seen[2] == (State.WAITING_FOR_START, State.PLAYING, "start position")
    assert len(seen) == 5
