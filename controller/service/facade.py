"""What the web page sees of the service: snapshots for each view, and the arbiter's actions.

The web server defines the interface (``controller.web.facade.ServiceFacade``);
:class:`TableFacade` implements it over the service's state, and the hall link runs
the hub's orders through it too. Actions are ordinary journaled inputs: they go
through the service's one step function, so they are on disk before anyone sees
their effect.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal

from controller.boardsize import board_size
from controller.irregularities import KIND_NAMES
from controller.leds.plan import plan_overlay, with_engine
from controller.service.core import ActionRefused
from controller.service.outputs import Outputs
from controller.service.table import Stepper, Table
from controller.service.timing import FlagTimer
from controller.squares import Color
from controller.web.facade import ActionError, View, disc_graph, result_of
from controller.web.heading import heading

if TYPE_CHECKING:
    from controller.records.model import GameRecord

log = logging.getLogger("kaeshi.service")

#: Real seconds between looks while an action waits for a fall to be confirmed.
FALL_POLL = 0.005


class TableFacade:
    """The web page's :class:`~controller.web.ServiceFacade` over one table."""

    def __init__(self, table: Table, outputs: Outputs, flags: FlagTimer,
                 play: Stepper) -> None:
        self.table = table
        self.outputs = outputs
        self.flags = flags
        self.play = play

    def snapshot(self, view: View = "player") -> dict[str, Any]:
        core = self.table.core
        if core is None:
            size = self.table.config["game.size"]
            return {"version": self.table.notifier.version, "state": self.table.states.state.value,
                    "mode": self.table.config["game.mode"], "size": size,
                    "board": "-" * board_size(size).squares, "events": [],
                    "heading": self._heading(view)}
        arb = core.arbiter
        now = self.flags.shown_time()
        position = arb.position
        board = arb.last_board or position.board_string()
        b, w = position.counts()
        mode = core.settings.mode
        advisory = view == "arbiter" or mode == "home"  # rule 21: no advice to players
        moves = [
            {"n": i, "player": m.player.value, "square": m.square, "t": m.time,
             **({"comment": m.comment} if advisory and m.comment else {})}
            for i, m in enumerate(arb.moves, 1)
        ]
        overlay = arb.overlay()
        audience: Literal["players", "arbiter"] = "arbiter" if view == "arbiter" else "players"
        # Legal moves light the LEDs only when configured; the web page's home view
        # always gets them, because its "show legal moves" box is the players' request.
        on_leds = view == "arbiter" or self.table.config["leds.show_legal"]
        legal = self.outputs.legal() if (on_leds or mode == "home") else None
        plan = plan_overlay(mode, overlay, self.table.states.state.value,
                            legal if on_leds else None, audience)
        snap: dict[str, Any] = {
            "version": self.table.notifier.version,
            "game": self.table.game.id if self.table.game else None,
            "mode": mode,
            "state": self.table.states.state.value,
            "size": position.size,
            "board": board,
            "position": position.board_string(),
            "to_move": None if core.game_over else position.to_move.value,
            "counts": {"black": b, "white": w},
            "players": {"black": core.settings.black, "white": core.settings.white},
            "black": core.settings.black,
            "white": core.settings.white,
            "clocks": core.clocks(now),
            "moves": moves,
            "last_move": overlay.last_move,
            "events": list(self.table.events[-50:]),
            "events_total": self.table.events_total,
            "overlay": {sq: cell.to_json() for sq, cell in plan.items()},
            "message": self.table.message,
            "irregularities": self._open_flags(),
            "history": core.history.to_json(),
            "graph": disc_graph(core.after, len(arb.moves)),
            "result": result_of(self.table.events, core.over_by_time) if core.game_over else None,
            "now": round(now, 3),
            "kind_names": KIND_NAMES,
            "legal": legal or [],
            "url": self.outputs.url,
            "late": None if core.late is None else {
                "late": core.late.late, "present": core.late.present,
                "state": core.late.state, "remaining": core.late.remaining(now)},
            "signoff": None if core.signoff is None else {
                "black": core.signoff.black, "white": core.signoff.white,
                "winner": core.signoff.winner, "black_says": core.signoff.black_says,
                "white_says": core.signoff.white_says, "status": core.signoff.status},
        }
        snap["heading"] = self._heading(view)
        snap["flags"] = snap["irregularities"] if advisory else []
        devices = getattr(self.outputs.source, "devices", None)
        if devices is not None:  # the phone and the tablet: connected, synced, charged
            snap["devices"] = devices()
            # the key of the pages' addresses: the arbiter's view only (not a player key)
            snap["device_key"] = getattr(self.outputs.source, "device_key", "")
        # what happens next to the last move's irregularity, in the one text of its state
        snap["flow"] = arb.flow().step().to_json()
        if mode == "home" and core.game_over:  # a finished home game: its review's address
            snap["review_url"] = self._review_url()
        if self.outputs.engine is not None and mode == "home":  # rule 21: home tables only
            snap["engine"] = self.outputs.engine.snapshot(board)
            if audience == "players":  # as on the LEDs (Outputs.update_leds)
                snap["overlay"] = {sq: c.to_json() for sq, c in
                                   with_engine(plan, self.outputs.engine.plan(board)).items()}
        return snap

    async def ask_hints(self, heat: bool) -> dict[str, Any]:
        """The player's request for the best move (or, ``heat``, every move's score)."""
        from controller.engine.home import EngineRefused

        if self.outputs.engine is None:
            mode = self._mode()
            raise ActionError("no engine at this table" if mode == "home" else
                              f"no hints in {mode} mode (rule 21: no advice during a game)")
        try:
            hints = await self.outputs.engine.ask_hints(heat)
        except EngineRefused as exc:
            raise ActionError(str(exc)) from None
        if hints is None:
            raise ActionError(f"the engine is gone: {self.outputs.engine.client.problem}")
        return hints.to_json()

    async def choose_engine(self, plays: str | None, level: int | None) -> None:
        """The home player's choice of the engine's colour (``none``: no opponent) and level."""
        from controller.engine.home import EngineRefused

        if self.outputs.engine is None:
            raise ActionError("no engine at this table (home mode only, rule 21)")
        try:
            color = None if plays in (None, "none") else Color(plays)
        except ValueError:
            raise ActionError(f"plays must be black, white or none, not {plays!r}") from None
        try:
            await self.outputs.engine.choose(color, level)
        except EngineRefused as exc:
            raise ActionError(str(exc)) from None

    async def review_document(self, name: str) -> tuple[str, str]:
        """A finished game's review for the page (made on first request), home only."""
        import asyncio
        from pathlib import Path

        from controller.engine.report import review_document
        from controller.engine.seat import spec_from_config

        mode = self._mode()
        if mode != "home":
            raise ActionError(f"no reviews on a {mode} table's page: use `kaeshi games "
                              "review` away from the games (rule 21)")
        folder = Path(self.table.config["games.folder"])
        return await asyncio.to_thread(review_document, folder, name,
                                       spec_from_config(self.table.config))

    def _review_url(self) -> str | None:
        """Where the finished game's review is, once its record is in the games folder."""
        from pathlib import Path

        game = self.table.game
        if game is None or not (Path(self.table.config["games.folder"]) /
                                f"{game.id}.json").is_file():
            return None
        return f"/review/{game.id}"

    def _heading(self, view: View) -> dict[str, str]:
        """The page's header and tab: the event, the hall's table and round, the players."""
        config, core, game = self.table.config, self.table.core, self.table.game
        hub = self.outputs.hub
        settings = core.settings if core is not None else None
        return heading(
            settings.mode if settings else config["game.mode"],
            settings.black if settings else config["game.black"],
            settings.white if settings else config["game.white"],
            view=view,
            event=(settings.event if settings else config["game.event"]) or config["hub.event"],
            table=config["hub.table"] or None,  # the hall's number for it, if it has one
            round=hub.rounds.get(game.id) if hub is not None and game is not None else None)

    def _mode(self) -> str:
        core = self.table.core
        return core.settings.mode if core is not None else self.table.config["game.mode"]

    def _open_flags(self) -> list[dict[str, Any]]:
        assert self.table.core is not None
        return self.table.core.arbiter.open_flags()

    async def wait_change(self, version: int) -> int:
        return await self.table.notifier.wait_change(version)

    def game_record(self) -> GameRecord:
        # everything, comments included: the web server filters it per view
        assert self.table.core is not None
        rec = self.table.core.record()
        if self.table.game is not None and not rec.date:
            rec.date = dt.datetime.fromtimestamp(self.table.game.started).date().isoformat()
        return rec

    def _action(self, data: dict[str, Any]) -> Awaitable[None] | None:
        """Step an arbiter's action now, or, while a fallen flag is being confirmed,
        once that is settled: stepped at once it would declare the flag before a press
        stamped in time could still count. The caller awaits what is returned."""
        if self.table.core is None:
            raise ActionError("the service is still starting")
        if self.flags.fall_unconfirmed():
            return self._after_fall(data)
        self._step(data)
        return None

    async def _after_fall(self, data: dict[str, Any]) -> None:
        while self.flags.fall_unconfirmed():
            await asyncio.sleep(FALL_POLL)
        self._step(data)

    def _step(self, data: dict[str, Any]) -> None:
        try:
            self.play.step(data)
        except ActionRefused as exc:
            raise ActionError(str(exc)) from None
        log.info("arbiter action: %s", data)

    def pause(self) -> Awaitable[None] | None:
        if self.table.core is not None and self.table.core.paused:
            raise ActionError("the clock is already paused")
        return self._action({"action": "pause"})

    def resume(self) -> Awaitable[None] | None:
        if self.table.core is not None and not self.table.core.paused:
            raise ActionError("the clock is not paused")
        return self._action({"action": "resume"})

    def adjust_time(self, color: Color, seconds: float) -> Awaitable[None] | None:
        return self._action({"action": "adjust", "color": Color(color).value,
                             "seconds": seconds})

    def accept_position(self) -> Awaitable[None] | None:
        return self._action({"action": "accept"})

    def correct_position(self, board: str) -> Awaitable[None] | None:
        return self._action({"action": "correct", "board": board})

    def late_step(self, action: str, color: Color | None = None) -> Awaitable[None] | None:
        data: dict[str, Any] = {"action": action}
        if color is not None:
            data["color"] = Color(color).value
        return self._action(data)

    def dispute_result(self, color: Color) -> Awaitable[None] | None:
        """A player says the result the table shows is wrong: the arbiter decides."""
        return self._action({"action": "dispute", "color": Color(color).value})

    def record_toss(self, black: str, white: str,
                    draw_win_right: str) -> Awaitable[None] | None:
        """The hall's 伏せ石 for this game: the colours (before the first move) and who
        wins a 32–32 board."""
        return self._action({"action": "toss", "black": black, "white": white,
                             "draw_win_right": draw_win_right})
