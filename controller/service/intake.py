"""The source side of the service: its items, and what each of them does.

Readings are stamped (a replay keeps its log's own times), turned into journaled
inputs and stepped through the core; link changes become the ``sensor lost`` state;
a replay's end judges what stands. While the journal cannot be written, a replay
waits and a live sensor's readings are not taken, so nothing is fed twice and
nothing is shown that is not on disk. Which source is read is
:mod:`controller.service.choice`'s; a folder's next log, :mod:`controller.service.nextgame`'s.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

from controller.errors import KaeshiError
from controller.service.choice import SourceChoice
from controller.service.core import ActionRefused, check_board
from controller.service.gametime import GameTime
from controller.service.held_presses import HeldPresses
from controller.service.journal import JournalError
from controller.service.lifecycle import GameLifecycle
from controller.service.nextgame import NextGames
from controller.service.outputs import Outputs
from controller.service.recovery import JournalKeeper
from controller.service.replay_logs import ReplayClock
from controller.service.sources import (
    LinkChange,
    LogSource,
    Notice,
    Reading,
    Source,
    SourceEnd,
)
from controller.service.states import State
from controller.service.table import Stepper, Table
from controller.service.timing import BUTTON_LATENCY, MAX_HELD_BACK, FlagTimer
from controller.squares import Color

#: How often a failed source is tried again, and how many tries make one log line.
RETRY_SECONDS = 2.0
RETRIES_PER_LOG = 30
log = logging.getLogger("kaeshi.service")


class Run(Stepper, Protocol):
    """What the intake asks of the running service: its one step, and its end."""

    #: A replay's end ends the service (``kaeshi run`` on a log, the demo).
    exit_when_done: bool

    def stopping(self) -> bool: ...
    def replay_done(self) -> None: ...


class Intake:
    """The source side of a service: the source being read, its readings and link
    changes, and the inputs it holds (see the module docstring)."""

    def __init__(self, table: Table, time: GameTime, keeper: JournalKeeper,
                 flags: FlagTimer, lifecycle: GameLifecycle, next_games: NextGames,
                 outputs: Outputs, choice: SourceChoice, replay: ReplayClock,
                 run: Run) -> None:
        self.table = table
        self.time = time
        self.keeper = keeper
        self.flags = flags
        self.lifecycle = lifecycle
        self.next_games = next_games
        self.outputs = outputs
        self.choice = choice
        self.replay = replay
        self.run = run
        #: The source being read (its latency and, for a replay, its next reading).
        self.active: Source | None = choice.given
        self.last_reading = time.monotonic()
        #: Why the board's link is down, as the source said (kept while presses are held).
        self.lost_detail = ""
        self.held_presses = HeldPresses()
        #: Readings stamped after a fall not yet confirmed: (input, time, arrival).
        self.held_back: list[tuple[dict[str, Any], float, float | None]] = []

    def open(self) -> Source:
        """The source to read from now on."""
        self.active = self.choice.make()
        return self.active

    def latency(self) -> float:
        """Real seconds the slowest live input may take from its stamp to the service."""
        real = float(getattr(self.active, "latency", 0.0))
        if self.outputs.clockhw is not None:
            real = max(real, BUTTON_LATENCY)
        return real

    def pending_before(self, fall: float) -> bool:
        """A replay still holds a reading stamped before ``fall`` (it is on its way)."""
        pending_at = getattr(self.active, "pending_at", None)
        if pending_at is not None:  # a live source that orders its inputs by their time
            return self.time.game_time(pending_at()) < fall
        pending = getattr(self.active, "pending", None)
        if pending is None:
            return False
        return self.replay.pending_time(pending) < fall

    def watch(self, source: Source) -> None:
        """A live source silent for ``source.lost_after`` seconds is a lost sensor."""
        quiet = self.table.config["source.lost_after"]
        if (source.watchdog and self.table.states.state is not State.SENSOR_LOST
                and self.time.monotonic() - self.last_reading > quiet):
            self.link(LinkChange(False, f"no reading for {quiet} s"))

    async def read(self, source: Source) -> None:
        """Take readings from the source; a failing source is a state, never a crash.

        While the journal cannot be written, a replay is held (its next reading waits);
        a live sensor is still read, but its readings are not taken (see :meth:`reading`).
        """
        replay = isinstance(source, LogSource)
        if replay and self.next_games.hold_first_log(replay):
            await self.next_games.wait_for_pairing()
            source = self.choice.make()
        failures = 0
        while True:
            try:
                async for item in source.items():
                    if replay:
                        await self.keeper.writable()
                    failures = 0
                    if isinstance(item, Reading):
                        self._handle(self.reading, item)
                    elif isinstance(item, LinkChange):
                        self._handle(self.link, item)
                    elif isinstance(item, Notice):
                        self._handle(self.notice, item)
                    elif isinstance(item, SourceEnd):
                        self._handle(self.source_end)
                        if not self.next_games.moved_on():
                            return
                        break
                    if self.run.stopping():
                        return  # a replay behind its pace never waits: stop here
                if self.next_games.take_moved_on():  # a folder of logs: its next game
                    if self.next_games.held_log is not None:
                        await self.next_games.wait_for_pairing()
                        self.next_games.take_moved_on()
                    source = self.choice.make()
                    continue
            except (KaeshiError, OSError, ValueError, ImportError) as exc:
                self.link(LinkChange(False, f"{source.name}: {exc}"))
            except Exception as exc:  # a driver bug must not end the game
                log.exception("source %s failed", source.name)
                self.link(LinkChange(False, f"{source.name} failed: {exc}"))
            await asyncio.sleep(RETRY_SECONDS)
            failures += 1
            # a board left unplugged must not fill the log: once, then once a minute
            if failures == 1 or failures % RETRIES_PER_LOG == 0:
                log.info("retrying the %s source (attempt %d, every %.0f s)",
                         source.name, failures, RETRY_SECONDS)
            else:
                log.debug("retrying the %s source (attempt %d)", source.name, failures)

    def _handle(self, handler: Callable[..., None], *args: Any) -> None:
        """Run one item's handling; a bug there is logged, never mistaken for the sensor."""
        try:
            handler(*args)
        except Exception:
            log.exception("handling a %s failed", type(args[0]).__name__ if args else "end")

    def reading(self, item: Reading) -> None:
        arrival = self.time.monotonic()
        if self.keeper.problem is not None:
            self.last_reading = arrival
            self.keeper.not_taken()  # play is held: nothing taken that cannot be recorded
            return
        lost = self.table.states.state is State.SENSOR_LOST
        if item.press is not None:
            if lost:  # the board it ends cannot be seen: held, never judged blind
                self._hold_press(item, arrival)
                return
            for held in self.held_presses.take_all():  # they came before this one
                self._take(held, self.time.monotonic())
            self._take(item, arrival)
            return
        self.last_reading = arrival
        if lost:
            self.link(LinkChange(True, "readings arrive again"))
        self._take(item, arrival)
        waiting = self.held_presses.take_one() if item.board is not None else None
        if waiting is not None:
            log.info("judging a clock press held while the board could not be seen "
                     "(%d more held)", len(self.held_presses))
            self._take(waiting, self.time.monotonic())

    def _hold_press(self, item: Reading, arrival: float) -> None:
        if not self.held_presses.hold(item, arrival):
            log.debug("clock press dropped: %d already held", len(self.held_presses))
            return
        count = len(self.held_presses)
        if count == 1:
            log.warning("clock press held: the board cannot be seen (%s)", self.lost_detail)
        self.table.say(f"{self.lost_detail}; {count} clock press"
                       f"{'es' if count > 1 else ''} held until the board is seen again")
        if item.press is not None:
            self.keeper.note({"held_press": item.press.value})
        self.outputs.show()

    def _take(self, item: Reading, arrival: float) -> None:
        """Judge one reading or press: stamped, journaled and stepped through the core."""
        t = self._replay_time(item)
        if t is None and item.at is not None:
            t = self.time.game_time(item.at)  # a press is judged by its edge, not its arrival
        data: dict[str, Any]
        if item.press is not None:
            data = {"obs": {"press": Color(item.press).value}}
        elif item.board is not None:
            try:
                board = check_board(item.board, self.table.config["game.size"])
            except ValueError as exc:
                log.warning("ignored a bad reading: %s", exc)
                return
            core = self.table.core
            if core is not None and core.game_over and self._is_new_game(board):
                try:
                    self.lifecycle.new_game()
                except JournalError as exc:
                    self.keeper.down(str(exc), self.time.now())
                    return
            data = {"obs": {"board": board}}
        else:
            return
        if item.cursor is not None:
            data["cursor"] = item.cursor
        t = self.time.now() if t is None else t
        if self.flags.in_window(t) and len(self.held_back) < MAX_HELD_BACK:
            # after a fall not yet confirmed: a press stamped before it may still come
            self.held_back.append((data, t, arrival))
            return
        try:
            self.flags.settle_before(t)
            self.run.step(data, t=t, arrival=arrival)
        except ValueError as exc:
            log.warning("reading not used: %s", exc)
        self.flush_held_back()

    def flush_held_back(self) -> None:
        """Take the readings held back while a fall was confirmed, in order."""
        while self.held_back and self.keeper.problem is None:
            data, t, arrival = self.held_back[0]
            if self.flags.in_window(t):
                return
            self.held_back.pop(0)
            try:
                self.run.step(data, t=t, arrival=arrival)
            except ValueError as exc:
                log.warning("reading not used: %s", exc)

    def _replay_time(self, item: Reading) -> float | None:
        """A replayed reading keeps the log's own time (shifted once per run to continue
        the game's time), so a replay, killed and resumed or not, is the same game."""
        if item.t is None:
            return None
        t = self.replay.time_of(item.t)
        if self.table.core is not None:
            t = max(t, self.table.core.t)
        self.time.set_base(t)
        return t

    def press(self, color: Color, at: float | None = None) -> None:
        """A clock button's press: through the source when it orders its inputs by
        time (the browser's), so a GPIO press and a page's tap are judged by one rule."""
        take = getattr(self.active, "press", None)
        if take is not None:
            take(color, self.time.monotonic() if at is None else at)
        else:
            self.reading(Reading(press=color, at=at))

    def pause_button(self) -> None:
        """The arbiter's button on the clock: stop, or start again."""
        core = self.table.core
        if (core is None or core.clock is None or core.game_over
                or self.keeper.problem is not None):
            return
        try:
            self.run.step({"action": "resume" if core.paused else "pause", "by": "button"})
        except ActionRefused as exc:
            log.warning("clock pause button: %s", exc)
            self.table.say(f"pause button: {exc}")
            self.outputs.show()

    def _is_new_game(self, board: str) -> bool:
        from controller.service.core import _matches_start

        start = self.table.core.settings.start() if self.table.core is not None else None
        return not self.run.exit_when_done and "?" not in board and _matches_start(board, start)

    def link(self, item: LinkChange) -> None:
        if self.keeper.problem is not None:
            log.warning("sensor %s while the journal fails: %s",
                        "up" if item.up else "down", item.detail)
            return
        if item.up:
            self.last_reading = self.time.monotonic()  # the watchdog counts from here
            if self.table.states.state is State.SENSOR_LOST:
                held = len(self.held_presses)
                self.table.say((item.detail or "sensor back") + (
                    f"; {held} held clock press{'es' if held > 1 else ''} judged with the "
                    "boards that follow" if held else ""))
                self.table.states.sensor_back(item.detail)
            elif self.table.states.state is State.STARTING:
                self.table.states.go(State.WAITING_FOR_BOARD, item.detail)
        else:
            if self.table.states.state is State.SENSOR_LOST and self.lost_detail == item.detail:
                log.debug("still lost: %s", item.detail)  # a retry that failed the same way
                return
            self.lost_detail = item.detail or "sensor lost"
            self.table.say(self.lost_detail)
            log.warning("sensor lost: %s", item.detail)
            if self.table.states.state is not State.SENSOR_LOST:
                self.table.states.sensor_lost(item.detail)
        self.keeper.note({"link": "up" if item.up else "down", "detail": item.detail})
        self.table.refresh_state()
        self.outputs.show()

    def notice(self, item: Notice) -> None:
        """The source has news for the arbiter (the camera may have moved): said on the
        page and in the log, kept in the journal; the game goes on as read."""
        log.warning("%s", item.detail)
        self.table.say(item.detail)
        self.keeper.note({"notice": item.detail})
        self.outputs.show()

    def source_end(self) -> None:
        """A replay ended: judge what stands (a home board has no last press), then stop."""
        replay = isinstance(self.active, LogSource)
        core = self.table.core
        if core is not None and not core.game_over:
            # a replay ends at its last reading; a video played to its end, now
            self.run.step({"action": "finish"}, t=core.t if replay else None)
            if self.table.core is not None and not self.table.core.game_over:
                log.warning("the replay ended before the game did")
                self.table.say("the replay ended before the game did")
        if self.next_games.after_log(replay):
            return
        if self.run.exit_when_done:
            self.run.replay_done()
