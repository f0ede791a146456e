"""The service: one asyncio program from a source to the arbiter, clock, journal and outputs.

Every input is handled the same way, on the event loop's thread:

1. stamp it with the service's own time (the wall clock is read only here);
2. apply it to the pure core (arbiter + clock);
3. write the input, its events and the clock state to the journal as one synced step;
4. only then show it: state, LEDs, web page, terminal, clock displays.

If step 3 fails (a full disk, storage gone read-only) nothing of the step is shown:
the core is rebuilt from the journal, the service enters ``journal failed`` (on the
page, the LEDs where the mode allows, the log) and holds play — a replay waits, a
live sensor's readings are not taken — until a write succeeds again; then the
clock stands at the instant of the failure until the arbiter resumes it.

The service owns one object per part of that flow, each typed against a small
protocol of what it needs of the service: :class:`~controller.service.intake.Intake`
(sources and their items), :class:`~controller.service.lifecycle.GameLifecycle` (a
game's start and end), :class:`~controller.service.outputs.Outputs` (what shows a
step, and the devices, web page, engine and hall link that do),
:class:`~controller.service.recovery.JournalKeeper` (resume, and a journal that
fails), :class:`~controller.service.timing.FlagTimer` (the flag's timer and the
periodic checks), :class:`~controller.service.replay_logs.ReplayLogs` (which log a
replay plays) and :class:`~controller.service.facade.TableFacade` (what the web page
sees and may do). This module holds the game's state, its time and the one step.

The service's time is a game time that never goes backwards, even across restarts:
on resume it continues from the last journaled instant (plus the outage, if the
``clock.resume = "charge"`` policy says so).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.events import Event, EventKind, numbered
from controller.service import bootclock
from controller.service.bootclock import BootStamp
from controller.service.config import Config
from controller.service.core import ActionRefused, GameCore
from controller.service.display import TerminalDisplay
from controller.service.facade import TableFacade
from controller.service.intake import Intake
from controller.service.journal import GameRow, Journal, JournalError
from controller.service.lifecycle import GameLifecycle
from controller.service.outputs import Outputs
from controller.service.recovery import RECENT_EVENTS, JournalKeeper
from controller.service.replay_logs import ReplayLogs
from controller.service.sources import Source
from controller.service.states import ALLOWED, FAULTS, State, StateMachine
from controller.service.timing import BUTTON_LATENCY, FlagTimer
from controller.squares import Color
from controller.web.facade import ChangeNotifier

log = logging.getLogger("kaeshi.service")


class Service:
    """The running service: the game's state and its one step, and the parts it owns."""

    def __init__(
        self,
        config: Config,
        *,
        source: Source | None = None,
        terminal: TerminalDisplay | None = None,
        wall: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        exit_when_done: bool | None = None,
        time_scale: float | None = None,
        boot_clock: Callable[[], BootStamp] = bootclock.now,
        linger: float | None = 0.0,
    ) -> None:
        self.config = config
        self._wall = wall
        self._mono = monotonic
        #: The clock that measures an outage within one boot (never set, never jumps).
        self.boot_clock = boot_clock
        if time_scale is None:
            time_scale = config["source.speed"] if config["source.kind"] == "sim" else 1.0
        #: Game seconds per real second: 1 except for replays (and the demo's board).
        self._scale = time_scale
        self._base = 0.0
        self._m0 = monotonic()
        self.terminal = terminal
        self.exit_when_done = (
            config["source.kind"] == "sim" if exit_when_done is None else exit_when_done
        )
        if linger is not None and not 0 <= linger <= 86400:
            raise ValueError(f"linger must be from 0 to 86400 seconds, not {linger}")
        #: With ``exit_when_done``: seconds the game-over page stays up once the replay
        #: has ended (0: stop at once; None: until a signal, for someone at a terminal).
        self.linger = linger
        self.states = StateMachine(self._state_changed)
        self.notifier = ChangeNotifier()
        self.journal: Journal | None = None
        self.game: GameRow | None = None
        self.core: GameCore | None = None
        self.events: list[dict[str, Any]] = []
        self.events_total = 0
        self.message = ""
        self.token = config["web.token"] or secrets.token_urlsafe(12)
        self.finished_files: list[Path] = []
        self.recent_boards: tuple[str | None, str | None] = (None, None)
        self.board_seen = False
        self.pending_state: list[tuple[str, dict[str, Any]]] = []
        self._stop: asyncio.Event | None = None  # created in run(), on the loop
        self.last_arrival: float | None = None
        self.on_step: Callable[[list[Event]], None] | None = None
        #: Called once the outputs are up (the web page's address is known).
        self.on_ready: Callable[[Service], None] | None = None
        #: The settings a hub's next_game order gave the next game (applied when it starts).
        self.next_game_overrides: dict[str, Any] | None = None
        self.logs = ReplayLogs(config, injected=source is not None)
        self.outputs = Outputs(self)
        #: The web page's (and the hall link's) view of this table, and its actions.
        self.facade = TableFacade(self, self.outputs)
        self.flags = FlagTimer(self)
        self.keeper = JournalKeeper(self, self.flags)
        self.lifecycle = GameLifecycle(self, self.logs, self.keeper)
        self.intake = Intake(self, self.logs, self.flags, self.keeper, self.lifecycle, source)

    # ------------------------------------------------------- the parts' state
    @property
    def url(self) -> str:
        """The web page's address (empty until it is up, or without one)."""
        return self.outputs.url

    @property
    def journal_problem(self) -> str | None:
        """Why the journal cannot be written; None while it can."""
        return self.keeper.problem

    @property
    def finish_pending(self) -> bool:
        return self.lifecycle.finish_pending

    @property
    def scale(self) -> float:
        return self._scale

    # ----------------------------------------------------------------- time
    def wall_time(self) -> float:
        """The wall clock (journal rows and the hall's figures carry it; play never does)."""
        return self._wall()

    def now(self) -> float:
        """Game time in seconds: monotonic, scaled for replays, continued across restarts."""
        return self._base + (self._mono() - self._m0) * self._scale

    def game_time(self, mono: float) -> float:
        """The game time of an instant of the monotonic clock (a button's edge)."""
        return self._base + (mono - self._m0) * self._scale

    def set_base(self, t: float) -> None:
        """Game time is ``t`` now (a resumed game, a replayed reading's own time)."""
        self._base = t
        self._m0 = self._mono()

    def monotonic(self) -> float:
        return self._mono()

    # ------------------------------------------------------------ start-up
    def open(self) -> None:
        """Open the journal and resume the unfinished game, or start a new one."""
        self.lifecycle.open()
        self.intake.open_base = self._base

    # --------------------------------------------------------------- steps
    def step(
        self, data: dict[str, Any], *, t: float | None = None, arrival: float | None = None
    ) -> list[Event]:
        """Apply one input, journal it with its consequences, then show it."""
        assert self.core is not None and self.journal is not None and self.game is not None
        if self.journal_problem is not None:
            raise ActionRefused(f"play is held: the journal cannot be written "
                                f"({self.journal_problem})")
        t = self.now() if t is None else t
        t = max(t, self.core.t)  # journaled time never goes backwards
        self.last_arrival = arrival
        core = self.core
        before = (core.game_over, core.paused, len(core.arbiter.moves))
        events = core.apply(t, data)
        board = data.get("obs", {}).get("board")
        if board is not None and not events:
            prev2, prev1 = self.recent_boards
            repeat = board == prev1 and board == prev2
            self.recent_boards = (prev1, board)
            if repeat:
                return []  # a still board: a third equal frame changes nothing in the core
        elif board is not None:
            self.recent_boards = (self.recent_boards[1], board)
        items: list[tuple[str, dict[str, Any]]] = [("input", data)]
        items.extend(("event", e.to_dict()) for e in events)
        after = (core.game_over, core.paused, len(core.arbiter.moves))
        if "obs" not in data or "press" in data.get("obs", {}) or events or after != before:
            items.append(("clock", core.clocks(t)))
            # the official position after the step, beside every published entry: what
            # a hall broadcast shows (the rules cannot rebuild it past an unnoticed fault)
            items.append(("position", core.position()))
        if board is not None:
            self.board_seen = True
        self.refresh_state()  # a state change is journaled in the step that caused it
        items.extend(self.pending_state)
        self.pending_state = []
        try:
            self.journal.commit_step(self.game.id, t, items, self._wall())
        except JournalError as exc:
            self.keeper.down(str(exc), t)
            return []
        for e, d in zip(events, numbered(events, len(core.arbiter.moves)), strict=True):
            self._remember(e, d)
        self.outputs.show(arrival)
        self.flags.schedule()
        if events:
            self.journal.checkpoint()  # moves into the database file: a lost WAL costs none
        self.outputs.changed()
        if self.on_step is not None:
            self.on_step(events)
        if core.game_over and not before[0]:
            self.lifecycle.finish_game()
        return events

    def _remember(self, e: Event, d: dict[str, Any]) -> None:
        self.events.append(d)
        self.events_total += 1
        if len(self.events) > RECENT_EVENTS:
            del self.events[: len(self.events) - RECENT_EVENTS]
        if e.event is EventKind.IRREGULARITY:
            log.warning("irregularity: %s by %s on %s", d["kind"], d["player"],
                        ", ".join(d["squares"]))
        elif e.event is EventKind.GAME_OVER:
            log.info("game over: %s-%s, winner %s", d["black"], d["white"], d["winner"])
            if d.get("reason") in ("time", "both_flags"):
                self.outputs.buzz()
        else:
            log.debug("event: %s", d)

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

    def _state_changed(self, old: State, new: State, why: str) -> None:
        self.pending_state.append(("state", {"from": old.value, "to": new.value, "why": why}))
        self.notifier.notify()

    # ------------------------------------------------- what the parts share
    def show(self, arrival: float | None = None) -> None:
        self.outputs.show(arrival)

    def update_clock_display(self) -> None:
        self.outputs.update_clock_display()

    def shown_time(self) -> float:
        return self.flags.shown_time()

    def fall_unconfirmed(self) -> bool:
        return self.flags.in_window(self.now())

    def hub_changed(self) -> None:
        if self.outputs.hub is not None:
            self.outputs.hub.changed()

    def input_latency(self) -> float:
        real = float(getattr(self.intake.active, "latency", 0.0))
        if self.outputs.clockhw is not None:
            real = max(real, BUTTON_LATENCY)
        return real

    def pending_before(self, fall: float) -> bool:
        return self.intake.pending_before(fall)

    def watch_sensor(self, source: Source) -> None:
        self.intake.watch(source)

    def retry_journal(self) -> None:
        self.keeper.retry()

    def source_settled(self) -> bool:
        return self.intake.source_settled()

    def source_press_wait(self) -> float:
        return self.intake.source_press_wait()

    def finish_game(self) -> None:
        self.lifecycle.finish_game()

    def replace_unstarted_game(self) -> bool:
        """A hub's next_game order (see :meth:`GameLifecycle.replace_unstarted_game`)."""
        return self.lifecycle.replace_unstarted_game()

    def play_held_log(self) -> bool:
        """A hub's next_game order for a replaying table that waits for its pairing
        (see :meth:`Intake.play_held_log`)."""
        return self.intake.play_held_log()

    def hub_rounds(self) -> dict[str, int] | None:
        """The round of each game the hub paired (None: no hall link)."""
        hub = self.outputs.hub
        return None if hub is None else hub.rounds

    # ---------------------------------------------------------------- run
    async def run(self) -> int:
        """Run until the replay ends (sim) or a stop is asked for (signal)."""
        self._stop = asyncio.Event()
        self.keeper.start()
        if self.core is None:
            self.open()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._stop.set)
        source = self.intake.active = self.intake.make_source()
        if hasattr(source, "pause_button"):  # a clock page's pause is the clock's button
            source.pause_button = self.clock_pause_button
        await self.outputs.start(source)
        if self.on_ready is not None:
            self.on_ready(self)
        self.refresh_state()
        self.outputs.show()
        self.flags.schedule()
        tasks = [
            asyncio.create_task(self.intake.read(source), name="source"),
            asyncio.create_task(self.flags.tick(source), name="tick"),
        ]
        if self.terminal is not None:
            tasks.append(asyncio.create_task(self.outputs.draw(), name="terminal"))
        leds = self.outputs.leds
        if leds is not None and hasattr(leds, "run"):
            tasks.append(asyncio.create_task(leds.run(), name="leds"))
        try:
            await self._stop.wait()
        finally:
            self.flags.cancel()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self.outputs.stop(source)
            if self.journal is not None:
                self.journal.close()
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
        return 0

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def replay_done(self) -> None:
        """The replay has ended (``exit_when_done``): stop, or keep the game-over page up
        ``linger`` seconds, or until Ctrl-C (a person at a terminal is reading it)."""
        if self.linger == 0 or self._stop is None:
            self.stop()
            return
        where = f" at {self.url}" if self.url else ""
        if self.linger is None:
            text = f"the replay has ended; the page stays up{where}: press Ctrl-C to stop"
        else:
            text = f"the replay has ended; the page stays up{where} for {self.linger:g} s"
            asyncio.get_running_loop().call_later(self.linger, self.stop)
        if self.terminal is not None:
            self.terminal.message(text)
        else:
            log.warning("%s", text)

    def stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    # ----------------------------------------------------------- clock buttons
    def clock_press(self, color: Color, at: float | None = None) -> None:
        """A player's clock button (called on the event loop's thread); ``at``: the
        monotonic instant of its edge (None: stamped on arrival)."""
        self.intake.press(color, at)

    def clock_pause_button(self) -> None:
        """The arbiter's button on the clock: stop, or start again."""
        if (self.core is None or self.core.clock is None or self.core.game_over
                or self.journal_problem is not None):
            return
        try:
            self.step({"action": "resume" if self.core.paused else "pause", "by": "button"})
        except ActionRefused as exc:
            log.warning("clock pause button: %s", exc)
            self.message = f"pause button: {exc}"
            self.outputs.show()
