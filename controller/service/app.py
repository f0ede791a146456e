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

The service is split along that flow: :mod:`~controller.service.intake` (sources
and their items), this module (the step and states),
:mod:`~controller.service.lifecycle` (a game's start and end),
:mod:`~controller.service.outputs` (what shows a step, and the devices that do),
:mod:`~controller.service.recovery` (resume, and a journal that fails) and
:mod:`~controller.service.timing` (the flag's timer and the periodic checks).

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
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError
from controller.events import Event, EventKind
from controller.service import bootclock
from controller.service.bootclock import BootStamp
from controller.service.config import Config
from controller.service.core import ActionRefused, GameCore
from controller.service.display import TerminalDisplay
from controller.service.facade import FacadeMixin
from controller.service.intake import IntakeMixin
from controller.service.journal import GameRow, Journal, JournalError
from controller.service.lifecycle import LifecycleMixin
from controller.service.outputs import OutputsMixin
from controller.service.recovery import RECENT_EVENTS, RecoveryMixin
from controller.service.replay_logs import ReplayLogsMixin
from controller.service.sources import Reading, Source
from controller.service.states import FAULTS, State, StateMachine
from controller.service.timing import TimingMixin
from controller.squares import Color
from controller.web.facade import ChangeNotifier

log = logging.getLogger("kaeshi.service")


class ReplayDone(KaeshiError):
    """The configured log was already replayed to its end; nothing is left to do."""


class Service(FacadeMixin, RecoveryMixin, ReplayLogsMixin, IntakeMixin, TimingMixin, OutputsMixin,
              LifecycleMixin):
    """The running service; also the web page's :class:`~controller.web.ServiceFacade`."""

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
    ) -> None:
        self.config = config
        self._wall = wall
        self._mono = monotonic
        #: The clock that measures an outage within one boot (never set, never jumps).
        self._boot_clock = boot_clock
        if time_scale is None:
            time_scale = config["source.speed"] if config["source.kind"] == "sim" else 1.0
        #: Game seconds per real second: 1 except for replays (and the demo's board).
        self._scale = time_scale
        self._base = 0.0
        self._m0 = monotonic()
        self._source = source
        self.terminal = terminal
        self.exit_when_done = (
            config["source.kind"] == "sim" if exit_when_done is None else exit_when_done
        )
        self.states = StateMachine(self._state_changed)
        self.notifier = ChangeNotifier()
        self.journal: Journal | None = None
        self.game: GameRow | None = None
        self.core: GameCore | None = None
        self.events: list[dict[str, Any]] = []
        self.events_total = 0
        self.message = ""
        self.url = ""
        self.token = config["web.token"] or secrets.token_urlsafe(12)
        self.finished_files: list[Path] = []
        self._log_count: int | None = None  # observations in the sim log (checked at open)
        self._log_counts: dict[Path, int] = {}  # every log of source.log (a folder: several)
        self._log_file: Path | None = None  # the log of the game in play
        self._next_source = False  # a replay moved on to the folder's next log
        self._log_offset: float | None = None  # service time minus log time, this run
        self._open_base = 0.0
        #: Why the journal cannot be written (None while it can), and since when.
        self.journal_problem: str | None = None
        self._failed_at = 0.0
        self._held = 0  # readings not taken while the journal failed
        self._flag_timer: asyncio.TimerHandle | None = None
        #: The source being read (its latency and, for a replay, its next reading).
        self._active_source: Source | None = source
        #: Readings stamped after a fall not yet confirmed: (input, time, arrival).
        self._held_back: list[tuple[dict[str, Any], float, float | None]] = []
        self._journal_ok: asyncio.Event | None = None
        self._finish_pending = False  # game over, but not yet marked finished in the journal
        self._recent_boards: tuple[str | None, str | None] = (None, None)
        self._board_seen = False
        self._last_reading = monotonic()
        self._stop: asyncio.Event | None = None  # created in run(), on the loop
        self._leds: Any = None
        self._led_plan: dict[str, Any] | None = None
        self._clockhw: Any = None
        self._web: Any = None
        self._pending_state: list[tuple[str, dict[str, Any]]] = []
        #: (arrival monotonic, LED shown monotonic) of recent board changes, for benchmarks.
        self.latencies: list[tuple[float, float]] = []
        self.last_arrival: float | None = None
        self.on_step: Callable[[list[Event]], None] | None = None
        #: Called once the outputs are up (the web page's address is known).
        self.on_ready: Callable[[Service], None] | None = None
        #: The hall link ([hub]; controller.hub.table.HubLink), and the settings a hub's
        #: next_game order gave the next game (applied when it starts).
        self.hub: Any = None
        self.next_game_overrides: dict[str, Any] | None = None
        #: hub.wait_for_pairing: the log held until the hub's next_game, and its signal.
        self.held_log: Path | None = None
        self._pairing: asyncio.Event | None = None
        #: The engine at a home table ([engine]; controller.engine.seat.EngineSeat).
        self.engine: Any = None

    # ----------------------------------------------------------------- time
    def now(self) -> float:
        """Game time in seconds: monotonic, scaled for replays, continued across restarts."""
        return self._base + (self._mono() - self._m0) * self._scale

    def game_time(self, mono: float) -> float:
        """The game time of an instant of the monotonic clock (a button's edge)."""
        return self._base + (mono - self._m0) * self._scale

    def _set_base(self, t: float) -> None:
        self._base = t
        self._m0 = self._mono()

    # ------------------------------------------------------------ start-up
    def open(self) -> None:
        """Open the journal and resume the unfinished game, or start a new one."""
        if (self.config["leds.driver"] == "board" and self.config["source.kind"] != "hall"
                and self._source is None):
            raise KaeshiError(f"{self.config.source}: leds.driver = \"board\" needs "
                              "source.kind = \"hall\" (the LEDs are on the sensor board)")
        if self._source is None and self.config["source.kind"] == "sim":
            self._check_logs()  # a bad log stops start-up, before anything
        try:
            self.journal = Journal(self.config["journal.path"], boot_clock=self._boot_clock)
        except OSError as exc:
            raise JournalError(f"{self.config['journal.path']}: {exc}") from None
        for line in self.journal.recovery:
            log.warning("%s", line)
        try:
            game = self.journal.unfinished_game()
            if self._log_folder():
                done = self._choose_log(game)
            else:
                done = self._replayed_already() if game is None else None
        except sqlite3.Error as exc:
            raise JournalError(f"{self.journal.path}: cannot read the journal ({exc})") from None
        if done is not None:
            self.journal.close()
            raise ReplayDone(
                f"the log {self.config['source.log']} was already replayed to its end as "
                f"game {done.id} (records in {self.config['games.folder']}); nothing to "
                "replay. Give another log, or another journal.path, to replay it again."
            )
        if game is None:
            self._new_game()
            if self.journal.recovery:
                self.message = "journal damaged, nothing left to resume: a new game begins"
        else:
            self._resume(game)
        if self.journal.recovery:
            self.message = "; ".join([*self.journal.recovery, self.message])
        self._open_base = self._base

    # --------------------------------------------------------------- steps
    def _step(
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
            prev2, prev1 = self._recent_boards
            repeat = board == prev1 and board == prev2
            self._recent_boards = (prev1, board)
            if repeat:
                return []  # a still board: a third equal frame changes nothing in the core
        elif board is not None:
            self._recent_boards = (self._recent_boards[1], board)
        items: list[tuple[str, dict[str, Any]]] = [("input", data)]
        items.extend(("event", e.to_dict()) for e in events)
        after = (core.game_over, core.paused, len(core.arbiter.moves))
        if "obs" not in data or "press" in data.get("obs", {}) or events or after != before:
            items.append(("clock", core.clocks(t)))
            # the official position after the step, beside every published entry: what
            # a hall broadcast shows (the rules cannot rebuild it past an unnoticed fault)
            items.append(("position", core.position()))
        if board is not None:
            self._board_seen = True
        self._refresh_state()  # a state change is journaled in the step that caused it
        items.extend(self._pending_state)
        self._pending_state = []
        try:
            self.journal.commit_step(self.game.id, t, items, self._wall())
        except JournalError as exc:
            self._journal_down(str(exc), t)
            return []
        for e in events:
            self._remember(e)
        self._show(arrival)
        self._schedule_flag()
        if events:
            self.journal.checkpoint()  # moves into the database file: a lost WAL costs none
        if self.hub is not None:
            self.hub.changed()
        if self.engine is not None:
            self.engine.changed()
        if self.on_step is not None:
            self.on_step(events)
        if core.game_over and not before[0]:
            self._finish_game()
        return events

    def _remember(self, e: Event) -> None:
        d = e.to_dict()
        self.events.append(d)
        self.events_total += 1
        if len(self.events) > RECENT_EVENTS:
            del self.events[: len(self.events) - RECENT_EVENTS]
        if e.event is EventKind.IRREGULARITY:
            log.warning("irregularity: %s by %s on %s", d["kind"], d["player"],
                        ", ".join(d["squares"]))
        elif e.event is EventKind.GAME_OVER:
            log.info("game over: %s-%s, winner %s", d["black"], d["white"], d["winner"])
            if d.get("reason") in ("time", "both_flags") and self._clockhw is not None:
                self._clockhw.buzz()
        else:
            log.debug("event: %s", d)

    # -------------------------------------------------------------- states
    def _refresh_state(self) -> None:
        core = self.core
        assert core is not None
        if core.game_over:
            want = State.GAME_OVER
        elif core.paused:
            want = State.PAUSED
        elif core.started:
            want = State.PLAYING
        elif self._board_seen:
            want = State.WAITING_FOR_START
        else:
            want = State.WAITING_FOR_BOARD
        current = self.states.state
        underlying = self.states.resumes_to if current in FAULTS else current
        if want is underlying:
            return
        from controller.service.states import ALLOWED

        if want not in ALLOWED[underlying] and current not in FAULTS:
            return
        self.states.set_underlying(want)

    def _state_changed(self, old: State, new: State, why: str) -> None:
        self._pending_state.append(("state", {"from": old.value, "to": new.value, "why": why}))
        self.notifier.notify()

    # ---------------------------------------------------------------- run
    async def run(self) -> int:
        """Run until the replay ends (sim) or a stop is asked for (signal)."""
        self._stop = asyncio.Event()
        self._journal_ok = asyncio.Event()
        if self.journal_problem is None:
            self._journal_ok.set()
        if self.core is None:
            self.open()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._stop.set)
        source = self._active_source = self.make_source()
        await self._start_outputs(source)
        if self.on_ready is not None:
            self.on_ready(self)
        self._refresh_state()
        self._show()
        self._schedule_flag()
        tasks = [
            asyncio.create_task(self._read(source), name="source"),
            asyncio.create_task(self._tick(source), name="tick"),
        ]
        if self.terminal is not None:
            tasks.append(asyncio.create_task(self._draw(), name="terminal"))
        if self._leds is not None and hasattr(self._leds, "run"):
            tasks.append(asyncio.create_task(self._leds.run(), name="leds"))
        try:
            await self._stop.wait()
        finally:
            self._cancel_flag()
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await self._stop_outputs(source)
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
        return 0

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    # ----------------------------------------------------------- clock buttons
    def clock_press(self, color: Color, at: float | None = None) -> None:
        """A player's clock button (called on the event loop's thread); ``at``: the
        monotonic instant of its edge (None: stamped on arrival)."""
        self._reading(Reading(press=color, at=at))

    def clock_pause_button(self) -> None:
        """The arbiter's button on the clock: stop, or start again."""
        if (self.core is None or self.core.clock is None or self.core.game_over
                or self.journal_problem is not None):
            return
        try:
            self._step({"action": "resume" if self.core.paused else "pause", "by": "button"})
        except ActionRefused as exc:
            log.warning("clock pause button: %s", exc)
            self.message = f"pause button: {exc}"
            self._show()
