"""The source side of the service: which source, and what each of its items does.

Readings are stamped (a replay keeps its log's own times), turned into journaled
inputs and stepped through the core; link changes become the ``sensor lost`` state;
a replay's end judges what stands. While the journal cannot be written, a replay
waits and a live sensor's readings are not taken, so nothing is fed twice and
nothing is shown that is not on disk.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.errors import KaeshiError
from controller.service.core import check_board
from controller.service.journal import JournalError
from controller.service.sources import (
    CameraSource,
    HallSource,
    LinkChange,
    LogSource,
    Reading,
    Source,
    SourceEnd,
)
from controller.service.states import State
from controller.service.timing import MAX_HELD_BACK
from controller.squares import Color

if TYPE_CHECKING:
    from controller.service.app import Service

#: How often a failed source is tried again, and how many tries make one log line.
RETRY_SECONDS = 2.0
RETRIES_PER_LOG = 30
log = logging.getLogger("kaeshi.service")


class IntakeMixin:
    """Source methods of :class:`~controller.service.app.Service`."""

    def make_source(self: Service) -> Source:
        if self._source is not None:
            return self._source
        kind = self.config["source.kind"]
        if kind == "sim":
            return LogSource.from_file(self._log_file or self.config["source.log"],
                                       self.config["source.speed"], self.resume_cursor(),
                                       count=self._log_count)
        if kind == "hall":
            return HallSource(self.config["source.device"], self.config["source.baud"],
                              self._official_position)
        return CameraSource(self.config["source.camera"], self.config["source.fps"],
                            self.config["source.camera_setup"],
                            keepalive=self.config["source.lost_after"] / 2)

    def _source_settled(self: Service) -> bool:
        """Whether the source's boards come already debounced (``Source.settled``).

        A game is started before its configured source is opened (a replay's source
        needs the journal to know where to resume), so the class is asked.
        """
        if self._source is not None:
            return self._source.settled
        kinds: dict[str, type[Source]] = {
            "sim": LogSource, "hall": HallSource, "camera": CameraSource,
        }
        return kinds[self.config["source.kind"]].settled

    def _official_position(self: Service) -> Any:
        return None if self.core is None else self.core.arbiter.position

    async def _read(self: Service, source: Source) -> None:
        """Take readings from the source; a failing source is a state, never a crash.

        While the journal cannot be written, a replay is held (its next reading waits);
        a live sensor is still read, but its readings are not taken (see :meth:`_reading`).
        """
        replay = isinstance(source, LogSource)
        if replay and self._holds_first_log():
            self.held_log = self._log_file
            await self._wait_for_pairing()
            source = self.make_source()
        failures = 0
        while True:
            try:
                async for item in source.items():
                    if replay and self._journal_ok is not None:
                        await self._journal_ok.wait()
                    failures = 0
                    if isinstance(item, Reading):
                        self._handle(self._reading, item)
                    elif isinstance(item, LinkChange):
                        self._handle(self._link, item)
                    elif isinstance(item, SourceEnd):
                        self._handle(self._source_end)
                        if not self._next_source:
                            return
                        break
                    if self._stop is not None and self._stop.is_set():
                        return  # a replay behind its pace never waits: stop here
                if self._next_source:  # a folder of logs: its next game
                    self._next_source = False
                    if self.held_log is not None:
                        await self._wait_for_pairing()
                        self._next_source = False
                    source = self.make_source()
                    continue
            except (KaeshiError, OSError, ValueError, ImportError) as exc:
                self._link(LinkChange(False, f"{source.name}: {exc}"))
            except Exception as exc:  # a driver bug must not end the game
                log.exception("source %s failed", source.name)
                self._link(LinkChange(False, f"{source.name} failed: {exc}"))
            await asyncio.sleep(RETRY_SECONDS)
            failures += 1
            # a board left unplugged must not fill the log: once, then once a minute
            if failures == 1 or failures % RETRIES_PER_LOG == 0:
                log.info("retrying the %s source (attempt %d, every %.0f s)",
                         source.name, failures, RETRY_SECONDS)
            else:
                log.debug("retrying the %s source (attempt %d)", source.name, failures)

    def _handle(self: Service, handler: Callable[..., None], *args: Any) -> None:
        """Run one item's handling; a bug there is logged, never mistaken for the sensor."""
        try:
            handler(*args)
        except Exception:
            log.exception("handling a %s failed", type(args[0]).__name__ if args else "end")

    def _reading(self: Service, item: Reading) -> None:
        arrival = self._mono()
        self._last_reading = arrival
        if self.journal_problem is not None:
            self._held += 1  # play is held: nothing is taken that could not be recorded
            return
        if self.states.state is State.SENSOR_LOST:
            self._link(LinkChange(True, "readings arrive again"))
        t = self._replay_time(item)
        if t is None and item.at is not None:
            t = self.game_time(item.at)  # a press is judged by its edge, not its arrival
        data: dict[str, Any]
        if item.press is not None:
            data = {"obs": {"press": Color(item.press).value}}
        elif item.board is not None:
            try:
                board = check_board(item.board)
            except ValueError as exc:
                log.warning("ignored a bad reading: %s", exc)
                return
            if self.core is not None and self.core.game_over and self._is_new_game(board):
                try:
                    self._new_game()
                except JournalError as exc:
                    self._journal_down(str(exc), self.now())
                    return
            data = {"obs": {"board": board}}
        else:
            return
        if item.cursor is not None:
            data["cursor"] = item.cursor
        t = self.now() if t is None else t
        if self._in_flag_window(t) and len(self._held_back) < MAX_HELD_BACK:
            # after a fall not yet confirmed: a press stamped before it may still come
            self._held_back.append((data, t, arrival))
            return
        try:
            self._settle_before(t)
            self._step(data, t=t, arrival=arrival)
        except ValueError as exc:
            log.warning("reading not used: %s", exc)
        self._flush_held_back()

    def _replay_time(self: Service, item: Reading) -> float | None:
        """A replayed reading keeps the log's own time (shifted once per run to continue
        the game's time), so a replay, killed and resumed or not, is the same game."""
        if item.t is None:
            return None
        if self._log_offset is None:
            self._log_offset = max(0.0, self._open_base - item.t)
        t = item.t + self._log_offset
        if self.core is not None:
            t = max(t, self.core.t)
        self._set_base(t)
        return t

    def _is_new_game(self: Service, board: str) -> bool:
        from controller.service.core import _matches_start

        start = self.core.settings.start() if self.core is not None else None
        return not self.exit_when_done and "?" not in board and _matches_start(board, start)

    def _link(self: Service, item: LinkChange) -> None:
        if self.journal_problem is not None:
            log.warning("sensor %s while the journal fails: %s",
                        "up" if item.up else "down", item.detail)
            return
        if item.up:
            if self.states.state is State.SENSOR_LOST:
                self.message = item.detail or "sensor back"
                self.states.sensor_back(item.detail)
            elif self.states.state is State.STARTING:
                self.states.go(State.WAITING_FOR_BOARD, item.detail)
        else:
            if self.states.state is State.SENSOR_LOST and self.message == item.detail:
                log.debug("still lost: %s", item.detail)  # a retry that failed the same way
                return
            self.message = item.detail or "sensor lost"
            log.warning("sensor lost: %s", item.detail)
            if self.states.state is not State.SENSOR_LOST:
                self.states.sensor_lost(item.detail)
        self._journal_note({"link": "up" if item.up else "down", "detail": item.detail})
        self._refresh_state()
        self._show()

    def _source_end(self: Service) -> None:
        """A replay ended: judge what stands (a home board has no last press), then stop."""
        if self.core is not None and not self.core.game_over:
            # a replay ends at its last reading; a video played to its end, now
            replay = isinstance(self._active_source, LogSource)
            self._step({"action": "finish"}, t=self.core.t if replay else None)
            if not self.core.game_over:
                log.warning("the replay ended before the game did")
                self.message = "the replay ended before the game did"
        nxt = self._next_log()
        if nxt is not None:
            if self._waits_for_pairing() and self.next_game_overrides is None:
                self.held_log = nxt  # played when the hub's next_game comes
                self._next_source = True
                self.message = "waiting for the hub's next game"
                self._refresh_state()
                self._show()
                return
            self._next_game_from(nxt)
            return
        if self.exit_when_done:
            self.stop()

    def _waits_for_pairing(self: Service) -> bool:
        """hub.wait_for_pairing on a replaying table linked to a hall."""
        return (self.hub is not None and bool(self.config["hub.wait_for_pairing"])
                and isinstance(self._active_source, LogSource))

    def _holds_first_log(self: Service) -> bool:
        """The game at start-up waits for its pairing too, unless it is already under
        way or the hub gave it its round before a restart."""
        core, game = self.core, self.game
        return (self._waits_for_pairing() and core is not None and game is not None
                and not core.started and not core.arbiter.moves
                and game.id not in self.hub.rounds)

    async def _wait_for_pairing(self: Service) -> None:
        """Until :meth:`play_held_log` (the hub's next_game) takes the held log."""
        if self._pairing is None:
            self._pairing = asyncio.Event()
        log.info("waiting for the hub's next game before replaying %s", self.held_log)
        while self.held_log is not None:
            self._pairing.clear()
            await self._pairing.wait()

    def play_held_log(self: Service) -> bool:
        """The hub's next_game for a table waiting for it: its held log's game starts
        now, with the order's settings. False when no log was held."""
        path, self.held_log = self.held_log, None
        if path is None:
            return False
        self.message = ""
        if path == self._log_file and self.replace_unstarted_game():
            pass  # the game at start-up, never begun: replaced by the paired one
        else:
            self._next_game_from(path)
        if self._pairing is not None:
            self._pairing.set()
        return True

    def _next_game_from(self: Service, path: Path) -> None:
        """The folder's next log is the next game: the one just played is closed (its
        record was written when it ended), and the new one begins at game time 0."""
        assert self.journal is not None and self.game is not None
        if self.core is not None and not self.core.game_over:
            try:
                self.journal.finish_game(self.game.id, self._wall())
            except JournalError as exc:
                self._journal_down(str(exc), self.now())
                return
        self._use_log(path)
        self._log_offset = None
        self._open_base = 0.0
        self._new_game()
        log.info("next game from %s", path)
        self._next_source = True
        self._refresh_state()
        self._show()
        if self.hub is not None:
            self.hub.changed()
