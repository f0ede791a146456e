"""A running table service joined to the hall: its state out, the hub's orders in.

The service calls :meth:`HubLink.changed` after every journaled step (on its event
loop); the link builds the table's state from the pure core and hands it, with a
wake-up, to the publisher's thread. Orders from the hub arrive on the MQTT thread
and are run on the service's loop through the same arbiter actions as the web
page's buttons, so they are journaled like any other input. An order that makes no
sense now (pause a paused clock) is logged and dropped; it never stops the table.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.errors import KaeshiError
from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.protocol import (
    ClockState,
    DownlinkCommand,
    GameResult,
    ProtocolError,
    TableState,
    pairing_size,
)
from controller.hall_protocol.topics import check_event_slug, check_table
from controller.round_flow import pairing_refusal
from controller.squares import Color
from controller.table_link.publisher import LinkSettings, TablePublisher
from controller.table_link.table import LinkedTable

if TYPE_CHECKING:
    from controller.service.config import Config
    from controller.service.core import GameCore

log = logging.getLogger("kaeshi.hub")


def link_settings(config: Config) -> LinkSettings:
    """The ``[hub]`` section as publisher settings; a missing piece names its key."""
    where = config.source
    try:
        table = check_table(config["hub.table"], f"{where}: hub.table")
        event = check_event_slug(config["hub.event"])
    except ProtocolError as exc:
        raise KaeshiError(f"{where}: [hub] {exc}") from None
    password = config["hub.password"]
    if config["hub.password_file"]:
        password = BrokerSettings.read_password(config["hub.password_file"],
                                                f"{where}: hub.password_file")
    if not config["hub.host"]:
        raise KaeshiError(f"{where}: hub.host is needed when hub.enabled is true")
    broker = BrokerSettings(
        host=config["hub.host"], port=config["hub.port"],
        username=config["hub.username"] or str(table), password=password,
        tls=config["hub.tls"], ca_file=config["hub.ca_file"],
    )
    return LinkSettings(broker=broker, table=table, event=event)


def table_state(
    table: int, game: str, core: GameCore, service_state: str, round: int | None,
    now: float, wall: float, refusal: str | None = None,
) -> TableState:
    """What the hub shows of one table, taken from the pure core at game time ``now``."""
    arb = core.arbiter
    c = core.clocks(now) if core.clock is not None else None
    clock = None if c is None else ClockState(
        black_ms=int(round_ms(c["black"])), white_ms=int(round_ms(c["white"])),
        running=c["running"], at=wall, paused=bool(c["paused"]), flag=c["flag"],
    )
    result = None
    over = core.over_by_time
    if over is not None:
        result = GameResult(int(over["black"]), int(over["white"]), str(over["winner"]),
                            str(over.fields.get("reason") or "time"))
    elif arb.result is not None:
        b, w = arb.result
        winner = "black" if b > w else "white" if w > b else _draw_winner(core)
        result = GameResult(b, w, winner)
    s = core.settings
    return TableState(
        table=table, game=game, round=round, black=s.black, white=s.white, mode=s.mode,
        service=service_state, board=arb.last_board or arb.position.board_string(),
        to_move=None if core.game_over else arb.position.to_move.value, clock=clock,
        irregularities=open_flags(core, now, wall), result=result, moves=len(arb.moves),
        wall=wall, signoff=core.signoff, late=core.late, size=arb.position.size,
        refusal=refusal,
    )


def open_flags(core: GameCore, now: float, wall: float) -> list[dict[str, Any]]:
    """The open flags, each with the move it happened on (``n``) and when it was flagged
    (``at``, the table's wall time): the dashboard says who, at which move, since when."""
    flags = core.arbiter.open_flags()
    entries = core.history.open()
    for f in flags:
        e = next((e for e in entries if (e.player, e.kind, e.squares)
                  == (f.get("player"), f.get("kind"), f.get("squares"))), None)
        if e is not None:
            f["n"] = e.n
            f["at"] = round(wall - max(0.0, now - e.t), 3)
    return flags


def round_ms(seconds: float) -> float:
    return round(seconds * 1000.0)


def _draw_winner(core: GameCore) -> str:
    right = core.settings.draw_win_right
    return right if not core.settings.draws_allowed and right in ("black", "white") else "draw"


def board_refusal(cmd: DownlinkCommand, table_size: int) -> str | None:
    """Why a ``next_game`` order cannot be played on a table set up for ``table_size``
    (its pairing is on the event's board, and the hub's desk refuses a result from any
    other); None when the boards agree."""
    size = pairing_size(cmd)
    if size == table_size:
        return None
    return pairing_refusal(int(cmd.args["round"]), size, table_size)  # the hub's words too


def next_game_overrides(cmd: DownlinkCommand) -> dict[str, Any]:
    """The game settings a ``next_game`` order changes."""
    a = cmd.args
    return {
        "black": a["black"], "white": a["white"], "main": float(a["minutes"]) * 60.0,
        "draw_win_right": a["draw_win_right"], "draws_allowed": a.get("draws_allowed", True),
    }


class HubLink:
    """One service's connection to the hall (see the module docstring)."""

    def __init__(self, service: LinkedTable, settings: LinkSettings) -> None:
        self.service = service
        self.settings = settings
        self.journal_path = Path(service.table.config["journal.path"])
        self.publisher = TablePublisher(settings, self.journal_path)
        self._rounds_file = self.journal_path.with_name(self.journal_path.name + ".rounds")
        self.rounds: dict[str, int] = self._load_rounds()
        #: A next_game's round, and the game that was on when it came: the round
        #: belongs to the first game after that one.
        self.next_round: tuple[int, str | None] | None = None
        #: Why the table refuses the hub's last pairing (see :func:`board_refusal`).
        self.refusal: str | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        #: Orders waiting for a fallen flag to be confirmed (kept so none is collected).
        self._held_orders: set[asyncio.Future[None]] = set()

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        loop = self._loop
        def on_command(cmd: DownlinkCommand) -> None:
            loop.call_soon_threadsafe(self.execute, cmd)

        self.publisher.on_command = on_command
        self.publisher.start()
        self.changed()

    def stop(self, drain: float = 3.0) -> None:
        """Blocking (run it off the loop): give the hub ``drain`` seconds to acknowledge
        what is journaled, then say offline."""
        self.publisher.stop(drain)

    def changed(self) -> None:
        """After a step: the new state to the publisher, which also reads the journal."""
        svc, time = self.service.table, self.service.time
        try:
            if svc.core is not None and svc.game is not None:
                if self.next_round is not None and svc.game.id != self.next_round[1]:
                    self._set_round(svc.game.id, self.next_round[0])
                    self.next_round = None
                self.publisher.set_state(table_state(
                    self.settings.table, svc.game.id, svc.core, svc.states.state.value,
                    self.rounds.get(svc.game.id), time.now(), time.wall_time(),
                    self.refusal,
                ))
            self.publisher.wake()
        except Exception:  # the hall link must never take the table down
            log.exception("hub state update failed")

    # ------------------------------------------------------------------ orders
    def execute(self, cmd: DownlinkCommand) -> None:
        """Run one order from the hub on the service's loop."""
        try:
            held = self._order(cmd)
        except Exception as exc:
            _not_carried_out(cmd.command, exc)
            held = None
        if held is None:
            self.changed()
            return
        task = asyncio.ensure_future(self._finish(cmd.command, held))
        self._held_orders.add(task)
        task.add_done_callback(self._held_orders.discard)

    def _order(self, cmd: DownlinkCommand) -> Awaitable[None] | None:
        """Carry out ``cmd``; what it returns is an action held while a fallen flag is
        confirmed (the service's actions wait for the flag's decision), to be awaited."""
        actions, a = self.service.facade, cmd.args
        if cmd.command == "pause":
            return actions.pause()
        if cmd.command == "resume":
            return actions.resume()
        if cmd.command == "adjust_time":
            return actions.adjust_time(Color(a["color"]), float(a["seconds"]))
        if cmd.command == "accept_board":
            return actions.accept_position()
        if cmd.command == "correct_board":
            return actions.correct_position(a["board"])
        if cmd.command == "toss":
            return self._toss(cmd)
        if cmd.command == "next_game":
            self._next_game(cmd)
        return None

    async def _finish(self, command: str, held: Awaitable[None]) -> None:
        try:
            await held
        except Exception as exc:
            _not_carried_out(command, exc)
        self.changed()

    def _next_game(self, cmd: DownlinkCommand) -> None:
        table = self.service.table
        self.refusal = board_refusal(cmd, int(table.config["game.size"]))
        if self.refusal is not None:  # a game the desk would refuse is never begun
            log.warning("hub pairing refused: %s", self.refusal)
            self.service.outputs.tell(f"hub pairing refused: {self.refusal}")
            return
        game = table.game
        self.next_round = (int(cmd.args["round"]), game.id if game else None)
        started = self.service.next_games.order_next_game(next_game_overrides(cmd))
        if started == "held":
            log.info("round %s: the held log's game starts", cmd.args["round"])
        elif started == "now":
            log.info("next game set up at once: round %s", cmd.args["round"])
        else:
            log.info("next game (round %s) starts when this one is over", cmd.args["round"])

    def _toss(self, cmd: DownlinkCommand) -> Awaitable[None] | None:
        """The 伏せ石 of a round's game: the game waiting to start, if the round's
        next_game is kept for it, else the game in play, if it is that round's."""
        a, svc = cmd.args, self.service.table
        wanted = {"black": a["black"], "white": a["white"], "draws_allowed": False,
                  "draw_win_right": a["draw_win_right"]}
        if (self.next_round is not None and self.next_round[0] == a["round"]
                and self.service.next_games.amend_next_game(wanted)):
            log.info("round %s: the toss is kept for the next game", a["round"])
            return None
        if svc.game is None or self.rounds.get(svc.game.id) != a["round"]:
            # not paired here yet: the round's next_game, built after the toss, carries it
            log.info("round %s: the toss came before the pairing", a["round"])
            return None
        return self.service.facade.record_toss(a["black"], a["white"], a["draw_win_right"])

    def _set_round(self, game: str, round: int) -> None:
        self.rounds[game] = round
        try:
            self._rounds_file.write_text(json.dumps(self.rounds), encoding="utf-8")
        except OSError as exc:
            log.warning("cannot keep the round number in %s: %s", self._rounds_file, exc)

    def _load_rounds(self) -> dict[str, int]:
        try:
            data = json.loads(self._rounds_file.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {str(k): v for k, v in data.items() if isinstance(v, int)}


def _not_carried_out(command: str, exc: Exception) -> None:
    """An order the table refused (its reason) or could not carry out (a traceback)."""
    from controller.web.facade import ActionError

    if isinstance(exc, ActionError | ValueError):
        log.warning("hub order %s not carried out: %s", command, exc)
    else:
        log.error("hub order %s failed", command, exc_info=exc)
