"""The engine at a live home table: asks for its move when it is on turn, and for hints
when the player asks; shows both on the LEDs and the page.

The service calls :meth:`EngineSeat.changed` after every journaled step, as it does
for the hub link. Requests run in a worker thread, so the event loop — readings,
presses, the clock, the journal — never waits on the engine; an engine that hangs
or dies costs its own answers only (see :class:`~controller.engine.client.EngineClient`),
and the page says it is gone. Nothing here is journaled: the engine's advice is
derived from the position, so a resumed game simply asks again.

A seat exists only in ``home`` mode (rule 21): the service never makes one for a
tournament or record game, so no engine process is started there at all.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Protocol

from controller.engine.client import EngineClient, EngineSpec
from controller.engine.home import (
    EngineRefused,
    Hints,
    Instruction,
    engine_game,
    require_home,
)
from controller.engine.process import own_engine_argv, split_command
from controller.engine.timing import Clock
from controller.leds.plan import Plan
from controller.squares import Color

if TYPE_CHECKING:
    from controller.service.config import Config
    from controller.service.core import GameCore
    from controller.web.facade import ChangeNotifier

log = logging.getLogger("kaeshi.engine")


def game_clock(core: GameCore) -> Clock | None:
    """The clocks as the engine is asked, at the time of the step that made it its turn
    (the game's own time, not the moment the worker thread gets to it)."""
    clock = core.clock
    if clock is None:
        return None
    control = clock.control
    return Clock(min(360_000.0, control.main), min(360_000.0, control.increment),
                 *(min(360_000.0, max(0.0, clock.remaining(c, core.t)))
                   for c in (Color.BLACK, Color.WHITE)))


def spec_from_config(config: Config) -> EngineSpec:
    """The configured engine; an empty command is Kaeshi's own engine."""
    protocol, level = config["engine.protocol"], config["engine.level"]
    command = config["engine.command"].strip()
    seconds = float(config["engine.time"])
    argv = split_command(command) if command else own_engine_argv(protocol, level, seconds)
    return EngineSpec(tuple(argv), protocol, level, seconds)


class SeatedTable(Protocol):
    """What the seat needs of the home table it sits at: its game, and what the page
    says (``message``, changed by ``say``)."""

    core: GameCore | None
    notifier: ChangeNotifier
    message: str

    def say(self, message: str) -> None: ...


def _game_of(table: SeatedTable) -> GameCore:
    """The table's game; a seat is only ever asked while one is on."""
    if table.core is None:
        raise EngineRefused("no game at this table")
    return table.core


class EngineSeat:
    """The engine's side of a home game (and the hint desk for the player)."""

    def __init__(self, service: SeatedTable, show: Callable[[], None], spec: EngineSpec,
                 plays: Color | None, client: EngineClient | None = None) -> None:
        require_home(_game_of(service).settings.mode)
        self.service = service
        #: Shows the table's change (the page, the LEDs: the service's outputs).
        self.show = show
        self.plays = plays
        self.client = client or EngineClient(spec)
        self.instruction: Instruction | None = None
        self.done: Instruction | None = None  # the engine's last move, carried out
        self.hints: Hints | None = None
        self.heat = False
        self._key: tuple[str, str, int] | None = None  # the position the advice is for
        self._task: asyncio.Task[Any] | None = None
        self.asked = 0  # move requests made, for tests and the page

    # ------------------------------------------------------------ state
    def _position_key(self) -> tuple[str, str, int] | None:
        core = self.service.core
        if core is None or core.game_over:
            return None
        arb = core.arbiter
        return arb.position.board_string(), arb.position.to_move.value, len(arb.moves)

    def _being_put_right(self) -> str:
        """The arbiter's instruction while the engine's move, carried out with a fault, may
        still be or is being put right ("" otherwise): the move stands as asked, and the
        engine is not asked again for the position the point-out hands back."""
        core = self.service.core
        if self.instruction is None or core is None:
            return ""
        flow = core.arbiter.flow()
        if flow.stage.final or flow.offender != self.instruction.player.value:
            return ""
        return str(flow.step().to_json()["todo"])

    def changed(self) -> None:
        """After each step: drop stale advice; ask for a move when the engine is on turn."""
        key = self._position_key()
        if self._being_put_right():
            self._key = key
            return
        if key != self._key:
            if self.instruction is not None:
                self.done = self.instruction
            self._key = key
            self.instruction = None
            self.hints = None
        if key is None or self.plays is None or key[1] != self.plays.value:
            return
        if self.instruction is not None or self._busy() or self.client.gone:
            return
        self._task = asyncio.ensure_future(self._ask_move(key))

    def _busy(self) -> bool:
        return self._task is not None and not self._task.done()

    def _game(self) -> Any:
        core = _game_of(self.service)
        arb = core.arbiter
        game = engine_game(arb.config.start, arb.moves, arb.position)
        return replace(game, clock=game_clock(core)), arb.position

    async def _ask_move(self, key: tuple[str, str, int]) -> None:
        game, position = self._game()
        self.asked += 1
        self.service.notifier.notify()  # the page shows "thinking"
        move = await asyncio.to_thread(self.client.choose, game)
        if move is not None and self.service.message.startswith("engine: "):
            self.service.say("")  # started again and answering
        if move is not None and self._position_key() == key:
            self.instruction = Instruction.of(position, move)
            log.info("engine plays %s (%s)", move.square or "pass",
                     "no score" if move.score is None else f"{move.score:+g}")
        elif move is None:
            self.service.say(f"engine: {self.client.problem}")
        self.show()
        if move is None and not self.client.gone and self._position_key() == key:
            self._task = asyncio.ensure_future(self._ask_move(key))  # one restart

    async def ask_hints(self, heat: bool) -> Hints | None:
        """The player's request: the best move (or every move's score) for the side to move."""
        require_home(_game_of(self.service).settings.mode)
        key = self._position_key()
        if key is None:
            raise EngineRefused("the game is over: review it instead")
        game, position = self._game()
        scores = await asyncio.to_thread(self.client.hints, game, None if heat else 1)
        if scores is None:
            self.service.say(f"engine: {self.client.problem}")
            self.show()
            return None
        if self._position_key() == key:
            self.hints = Hints(position.to_move, {sq: s for sq, s in scores.items()
                                                  if sq is not None})
            self.heat = heat
            self.show()
        return self.hints

    # ---------------------------------------------------------- outputs
    def plan(self, board: str) -> Plan:
        """The engine's LEDs: its move to carry out, else the hints asked for."""
        if self.instruction is not None:
            return self.instruction.plan(board)
        if self.hints is not None:
            return self.hints.plan(self.heat)
        return {}

    def snapshot(self, board: str) -> dict[str, Any]:
        status = self.client.describe()
        if self.client.gone:
            status["status"] = "gone"
        elif self._busy():
            status["status"] = "thinking"
        return {
            **status,
            "plays": self.plays.value if self.plays else None,
            "move": None if self.instruction is None else self.instruction.to_json(
                board, self._being_put_right()),
            "done": None if self.done is None or self.instruction is not None else {
                **self.done.to_json(), "text": self.done.text("done", [], [])},
            "hints": None if self.hints is None else {**self.hints.to_json(),
                                                       "heat": self.heat},
        }

    async def choose(self, plays: Color | None, level: int | None) -> None:
        """The player picks the engine's colour (None: no opponent) and level; a new level
        starts the engine afresh. Kept until the service restarts (the configuration's
        ``engine.plays``/``engine.level`` are what a restart uses)."""
        require_home(_game_of(self.service).settings.mode)
        if level is not None and level != self.client.spec.level:
            if not 1 <= level <= 60:
                raise EngineRefused(f"level must be 1 to 60, not {level}")
            spec = self.client.spec
            if spec.argv[1:3] == ("-m", "controller.engine.own"):  # its level is an argument
                spec = replace(spec, argv=tuple(own_engine_argv(spec.protocol, level,
                                                                spec.seconds)))
            old = self.client
            self.client = EngineClient(replace(spec, level=level))
            await asyncio.to_thread(old.close)
        self.plays = plays
        self.instruction = None
        self._key = None
        self.changed()
        self.show()

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
        await asyncio.to_thread(self.client.close)
