"""The table's game state: the game in play, what the arbiter and the clock made of it,
the recent events, the table's state machine and what the page says.

One object owns it, and every change to it is one of its methods, so a part that
starts, resumes or rebuilds a game asks this object to do it instead of setting its
fields. The one step that advances it (:meth:`controller.service.app.Service.step`)
and the parts that show it read it here.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from controller.service.states import ALLOWED, FAULTS, State, StateMachine
from controller.web.facade import ChangeNotifier

if TYPE_CHECKING:
    from controller.events import Event
    from controller.position import Position
    from controller.service.config import Config
    from controller.service.core import GameCore
    from controller.service.journal import GameRow

log = logging.getLogger("kaeshi.service")

#: Events kept in memory for the web page and the terminal (the journal has all).
RECENT_EVENTS = 200


class Stepper(Protocol):
    """The one step of the service, as a part asks for it (an input, journaled and shown)."""

    def step(self, data: dict[str, Any], *, t: float | None = None,
             arrival: float | None = None) -> list[Event]: ...


class Table:
    """One table's game state (see the module docstring)."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.states = StateMachine(self._state_changed)
        self.notifier = ChangeNotifier()
        self.game: GameRow | None = None
        self.core: GameCore | None = None
        #: The recent events, numbered (the journal has all), and how many there were.
        self.events: list[dict[str, Any]] = []
        self.events_total = 0
        #: What the page, the terminal and the hub say of the table just now.
        self.message = ""
        #: The last two boards seen (a third equal one changes nothing) and whether any was.
        self.recent_boards: tuple[str | None, str | None] = (None, None)
        self.board_seen = False
        #: State changes to journal with the next step.
        self.pending_state: list[tuple[str, dict[str, Any]]] = []

    # ------------------------------------------------------------ the game
    def begin(self, game: GameRow, core: GameCore) -> None:
        """A new game: nothing seen of it yet."""
        self.game, self.core = game, core
        self.events = []
        self.events_total = 0
        self.board_seen = False
        self.recent_boards = (None, None)

    def resumed(self, game: GameRow, core: GameCore, events: list[dict[str, Any]],
                boards: tuple[str | None, str | None], board_seen: bool) -> None:
        """A game replayed from the journal: its events and the last boards it saw."""
        self.game, self.core = game, core
        self.events = events[-RECENT_EVENTS:]
        self.events_total = len(events)
        self.recent_boards = boards
        if board_seen:
            self.board_seen = True

    def rebuilt(self, core: GameCore | None) -> None:
        """After a failed write: the core as the journal has it (None: kept as it is),
        and the next board taken afresh."""
        if core is not None:
            self.core = core
        self.recent_boards = (None, None)

    def still(self, board: str, changed: bool) -> bool:
        """Note a board read; True when it is a third equal frame that changed nothing."""
        prev2, prev1 = self.recent_boards
        self.recent_boards = (prev1, board)
        return not changed and board == prev1 and board == prev2

    def saw_board(self) -> None:
        self.board_seen = True

    def remember(self, numbered: dict[str, Any]) -> None:
        """One event of a journaled step, for the page and the terminal."""
        self.events.append(numbered)
        self.events_total += 1
        if len(self.events) > RECENT_EVENTS:
            del self.events[: len(self.events) - RECENT_EVENTS]

    def official_position(self) -> Position | None:
        return None if self.core is None else self.core.arbiter.position

    # ------------------------------------------------------- what it says
    def say(self, message: str) -> None:
        self.message = message

    def add(self, text: str) -> None:
        """More of what the page says (after :meth:`say`)."""
        self.message += text

    # -------------------------------------------------------------- states
    def refresh_state(self) -> None:
        core = self.core
        assert core is not None
        if core.game_over:
            want = State.GAME_OVER
        elif core.paused:
            want = State.PAUSED
        elif core.started:
            want = State.PLAYING
        elif self.board_seen:
            want = State.WAITING_FOR_START
        else:
            want = State.WAITING_FOR_BOARD
        current = self.states.state
        underlying = self.states.resumes_to if current in FAULTS else current
        if want is underlying:
            return
        if want not in ALLOWED[underlying] and current not in FAULTS:
            return
        self.states.set_underlying(want)

    def take_pending_state(self) -> list[tuple[str, dict[str, Any]]]:
        """The state changes to journal now (with the step or note being written)."""
        pending, self.pending_state = self.pending_state, []
        return pending

    def _state_changed(self, old: State, new: State, why: str) -> None:
        self.pending_state.append(("state", {"from": old.value, "to": new.value, "why": why}))
        self.notifier.notify()
