"""The service's explicit states, and the only transitions between them.

A lost sensor is a state like any other: the service keeps its game, its journal
and its web page, says what happened, and carries on when the sensor is back.
A journal that cannot be written is one too, and it outranks a lost sensor: play
is held (nothing is shown that is not on disk) until a write succeeds again.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum

log = logging.getLogger("kaeshi.service")


class State(StrEnum):
    STARTING = "starting"
    WAITING_FOR_BOARD = "waiting_for_board"
    WAITING_FOR_START = "waiting_for_start"
    PLAYING = "playing"
    PAUSED = "paused"
    GAME_OVER = "game_over"
    SENSOR_LOST = "sensor_lost"
    JOURNAL_FAILED = "journal_failed"

    @property
    def label(self) -> str:
        return self.value.replace("_", " ")


#: Where each state may go. SENSOR_LOST returns to the state it interrupted.
ALLOWED: dict[State, frozenset[State]] = {
    State.STARTING: frozenset({
        State.WAITING_FOR_BOARD, State.WAITING_FOR_START, State.PLAYING, State.PAUSED,
        State.GAME_OVER, State.SENSOR_LOST,
    }),
    State.WAITING_FOR_BOARD: frozenset({
        State.WAITING_FOR_START, State.PLAYING, State.PAUSED, State.SENSOR_LOST,
    }),
    State.WAITING_FOR_START: frozenset({
        State.PLAYING, State.PAUSED, State.SENSOR_LOST, State.GAME_OVER,
    }),
    State.PLAYING: frozenset({State.PAUSED, State.GAME_OVER, State.SENSOR_LOST}),
    State.PAUSED: frozenset({State.PLAYING, State.GAME_OVER, State.SENSOR_LOST}),
    # a new game begins when the start position is set up again
    State.GAME_OVER: frozenset({
        State.WAITING_FOR_BOARD, State.WAITING_FOR_START, State.PLAYING, State.SENSOR_LOST,
    }),
    State.SENSOR_LOST: frozenset({
        State.WAITING_FOR_BOARD, State.WAITING_FOR_START, State.PLAYING, State.PAUSED,
        State.GAME_OVER, State.JOURNAL_FAILED,
    }),
    State.JOURNAL_FAILED: frozenset({
        State.WAITING_FOR_BOARD, State.WAITING_FOR_START, State.PLAYING, State.PAUSED,
        State.GAME_OVER,
    }),
}
#: Every state can be interrupted by a failed journal write.
for _state in State:
    if _state is not State.JOURNAL_FAILED:
        ALLOWED[_state] = ALLOWED[_state] | {State.JOURNAL_FAILED}

#: States that interrupt another one and return to it.
FAULTS = frozenset({State.SENSOR_LOST, State.JOURNAL_FAILED})


class StateMachine:
    """Holds the current state; every change is checked, logged and announced."""

    def __init__(self, on_change: Callable[[State, State, str], None] | None = None) -> None:
        self.state = State.STARTING
        self._before_loss = State.WAITING_FOR_BOARD
        self._on_change = on_change

    def go(self, new: State, why: str = "") -> bool:
        """Move to ``new``; return False (and change nothing) if already there."""
        old = self.state
        if new is old:
            return False
        if new not in ALLOWED[old]:
            raise ValueError(f"no transition from {old.label} to {new.label}")
        if new in FAULTS and old not in FAULTS:
            self._before_loss = old if old is not State.STARTING else State.WAITING_FOR_BOARD
        self.state = new
        log.info("state: %s -> %s%s", old.label, new.label, f" ({why})" if why else "")
        if self._on_change:
            self._on_change(old, new, why)
        return True

    def sensor_lost(self, why: str) -> None:
        self.go(State.SENSOR_LOST, why)

    def sensor_back(self, why: str = "sensor back") -> None:
        if self.state is State.SENSOR_LOST:
            self.go(self._before_loss, why)

    def journal_failed(self, why: str) -> None:
        self.go(State.JOURNAL_FAILED, why)

    def journal_back(self, why: str = "the journal is written again") -> None:
        if self.state is State.JOURNAL_FAILED:
            self.go(self._before_loss, why)

    @property
    def resumes_to(self) -> State:
        """The state a lost sensor or a failed journal will return to."""
        return self._before_loss

    def set_underlying(self, state: State) -> None:
        """While a fault lasts, note the state to return to (e.g. the game ended)."""
        if self.state in FAULTS:
            self._before_loss = state
        else:
            self.go(state)
