"""The next game of a replay that plays a folder of logs, and a hub's next_game order.

Each log of the folder is one game (:mod:`controller.service.replay_logs`); with
``hub.wait_for_pairing``, a replaying table linked to a hall holds each log until the
hub's next_game order pairs it, as a real table waits for its next round.
"""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

from controller.service.gametime import GameTime
from controller.service.journal import JournalError
from controller.service.lifecycle import GameLifecycle
from controller.service.outputs import Outputs
from controller.service.recovery import JournalKeeper
from controller.service.replay_logs import ReplayClock, ReplayLogs
from controller.service.table import Table

log = logging.getLogger("kaeshi.service")


class NextGames:
    """The log held for the hub's pairing, and the move to the folder's next log."""

    def __init__(self, table: Table, time: GameTime, keeper: JournalKeeper,
                 lifecycle: GameLifecycle, outputs: Outputs, logs: ReplayLogs,
                 replay: ReplayClock) -> None:
        self.table = table
        self.time = time
        self.keeper = keeper
        self.lifecycle = lifecycle
        self.outputs = outputs
        self.logs = logs
        self.replay = replay
        #: hub.wait_for_pairing: the log held until the hub's next_game, and its signal.
        self.held_log: Path | None = None
        self._pairing: asyncio.Event | None = None
        self._moved_on = False  # a replay moved on to the folder's next log

    def moved_on(self) -> bool:
        """Whether the replay moved on to a next log (its source is opened afresh)."""
        return self._moved_on

    def take_moved_on(self) -> bool:
        moved, self._moved_on = self._moved_on, False
        return moved

    def waits_for_pairing(self, replaying: bool) -> bool:
        """hub.wait_for_pairing on a replaying table linked to a hall."""
        return (self.outputs.hub_rounds() is not None
                and bool(self.table.config["hub.wait_for_pairing"]) and replaying)

    def hold_first_log(self, replaying: bool) -> bool:
        """The game at start-up waits for its pairing too, unless it is already under
        way or the hub gave it its round before a restart: True when it is held."""
        core, game = self.table.core, self.table.game
        rounds = self.outputs.hub_rounds() or {}
        if (self.waits_for_pairing(replaying) and core is not None and game is not None
                and not core.started and not core.arbiter.moves and game.id not in rounds):
            self.held_log = self.logs.file
            return True
        return False

    async def wait_for_pairing(self) -> None:
        """Until :meth:`play_held_log` (the hub's next_game) takes the held log."""
        if self._pairing is None:
            self._pairing = asyncio.Event()
        log.info("waiting for the hub's next game before replaying %s", self.held_log)
        while self.held_log is not None:
            self._pairing.clear()
            await self._pairing.wait()

    def after_log(self, replaying: bool) -> bool:
        """A replay's log ended: the folder's next log is the next game, now or once the
        hub pairs it. False when the folder has no next log."""
        nxt = self.logs.next_log()
        if nxt is None:
            return False
        if self.waits_for_pairing(replaying) and self.lifecycle.next_game_overrides is None:
            self.held_log = nxt  # played when the hub's next_game comes
            self._moved_on = True
            self.table.say("waiting for the hub's next game")
            self.table.refresh_state()
            self.outputs.show()
            return True
        self._next_game_from(nxt)
        return True

    def order_next_game(self, overrides: dict[str, Any]) -> str:
        """A hub's next_game (see :class:`~controller.table_link.table.NextGames`)."""
        self.lifecycle.order(overrides)
        if self.play_held_log():
            return "held"
        if self.lifecycle.replace_unstarted_game():
            return "now"
        return "later"

    def amend_next_game(self, settings: dict[str, Any]) -> bool:
        return self.lifecycle.amend(settings)

    def play_held_log(self) -> bool:
        """The hub's next_game for a table waiting for it: its held log's game starts
        now, with the order's settings. False when no log was held."""
        path, self.held_log = self.held_log, None
        if path is None:
            return False
        self.table.say("")
        if path == self.logs.file and self.lifecycle.replace_unstarted_game():
            pass  # the game at start-up, never begun: replaced by the paired one
        else:
            self._next_game_from(path)
        if self._pairing is not None:
            self._pairing.set()
        return True

    def _next_game_from(self, path: Path) -> None:
        """The folder's next log is the next game: the one just played is closed (its
        record was written when it ended), and the new one begins at game time 0."""
        journal = self.keeper.journal
        assert journal is not None and self.table.game is not None
        if self.table.core is not None and not self.table.core.game_over:
            try:
                journal.finish_game(self.table.game.id, self.time.wall_time())
            except JournalError as exc:
                self.keeper.down(str(exc), self.time.now())
                return
        self.logs.use(path)
        self.replay.next_log()
        self.lifecycle.new_game()
        log.info("next game from %s", path)
        self._moved_on = True
        self.table.refresh_state()
        self.outputs.show()
        self.outputs.hub_changed()
