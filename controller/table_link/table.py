"""What the hall link needs of the table it joins (the service), kept apart from the
link itself so that a table can be typed against it without loading the MQTT client."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from controller.service.config import Config
    from controller.service.core import GameCore
    from controller.service.display import TerminalDisplay
    from controller.service.journal import GameRow
    from controller.service.states import StateMachine
    from controller.web.facade import ServiceFacade


class LinkedTable(Protocol):
    """What the link needs of the table it joins: its game, and the arbiter's actions
    (``facade``: the web page's buttons, so an order is journaled like them)."""

    config: Config
    core: GameCore | None
    game: GameRow | None
    states: StateMachine
    facade: ServiceFacade
    #: The settings a next_game order gives the next game (applied when it starts).
    next_game_overrides: dict[str, Any] | None
    #: The line the page shows (a refused pairing says why there), and the terminal
    #: view of the person who started the table, if it has one.
    message: str
    terminal: TerminalDisplay | None

    def now(self) -> float: ...
    def show(self, arrival: float | None = None) -> None: ...
    def wall_time(self) -> float: ...
    def replace_unstarted_game(self) -> bool: ...
    def play_held_log(self) -> bool: ...
