"""What the hall link needs of the table it joins (the service), kept apart from the
link itself so that a table can be typed against it without loading the MQTT client."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from controller.service.config import Config
    from controller.service.core import GameCore
    from controller.service.journal import GameRow
    from controller.service.states import StateMachine
    from controller.web.facade import ServiceFacade


class LinkedGame(Protocol):
    """The table's game as the link reports it."""

    config: Config
    core: GameCore | None
    game: GameRow | None
    states: StateMachine


class Clocks(Protocol):
    """The table's game time and wall clock (the state's figures carry both)."""

    def now(self) -> float: ...
    def wall_time(self) -> float: ...


class NextGames(Protocol):
    """Where a next_game order goes: the next game's settings, kept until it starts."""

    def order_next_game(self, overrides: dict[str, Any]) -> str:
        """Set up the next game; says whether it started ``"held"`` (a held log's game),
        ``"now"`` (the unstarted game replaced) or waits (``"later"``)."""
        ...
    def amend_next_game(self, settings: dict[str, Any]) -> bool:
        """Add ``settings`` to the next game's, if one is ordered (False: none is)."""
        ...


class Told(Protocol):
    """Where the link says what the table must know (a pairing it refuses)."""

    def tell(self, message: str) -> None:
        """Say ``message`` on the page and the terminal view, and show it at once."""
        ...


class LinkedTable(Protocol):
    """What the link needs of the table it joins: its game, its clocks, and the arbiter's
    actions (``facade``: the web page's buttons, so an order is journaled like them)."""

    @property
    def table(self) -> LinkedGame: ...
    @property
    def time(self) -> Clocks: ...
    @property
    def facade(self) -> ServiceFacade: ...
    @property
    def next_games(self) -> NextGames: ...
    @property
    def outputs(self) -> Told: ...
