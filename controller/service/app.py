"""The service: one asyncio program from a source to the arbiter, clock, journal and outputs.

Every input is handled the same way, on the event loop's thread:

1. stamp it with the service's own time (the wall clock is read only there);
2. apply it to the pure core (arbiter + clock);
3. write the input, its events and the clock state to the journal as one synced step;
4. only then show it: state, LEDs, web page, terminal, clock displays.

If step 3 fails (a full disk, storage gone read-only) nothing of the step is shown:
the core is rebuilt from the journal, the service enters ``journal failed`` (on the
page, the LEDs where the mode allows, the log) and holds play — a replay waits, a
live sensor's readings are not taken — until a write succeeds again; then the
clock stands at the instant of the failure until the arbiter resumes it.

The service holds that one step, its run and its end, and one object per part, each
owning its data: :class:`~controller.service.gametime.GameTime` (the service's time),
:class:`~controller.service.table.Table` (the game's state), :class:`~controller.service.
intake.Intake` (the source's items and the inputs it holds), :class:`~controller.service.
choice.SourceChoice` (which source), :class:`~controller.service.recovery.JournalKeeper`
(the journal, and a journal that fails), :class:`~controller.service.lifecycle.
GameLifecycle` (a game's start, resume and end), :class:`~controller.service.nextgame.
NextGames` (a folder's next log, a hub's next game), :class:`~controller.service.timing.
FlagTimer` (the flag's timer), :class:`~controller.service.outputs.Outputs` (what shows a
step), :class:`~controller.service.replay_logs.ReplayLogs` (which log a replay plays) and
:class:`~controller.service.facade.TableFacade` (what the web page sees and may do).
A part is handed the parts below it, and asks for the step through
:class:`~controller.service.table.Stepper`; none sets another's fields.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import signal
import time
from collections.abc import Callable
from typing import Any

from controller.events import Event, EventKind, numbered
from controller.service import bootclock
from controller.service.bootclock import BootStamp
from controller.service.choice import SourceChoice
from controller.service.config import Config
from controller.service.core import ActionRefused
from controller.service.display import TerminalDisplay
from controller.service.facade import TableFacade
from controller.service.gametime import GameTime
from controller.service.intake import Intake
from controller.service.journal import JournalError
from controller.service.lifecycle import GameLifecycle
from controller.service.nextgame import NextGames
from controller.service.outputs import Outputs
from controller.service.recovery import JournalKeeper
from controller.service.replay_logs import ReplayClock, ReplayLogs
from controller.service.sources import Source
from controller.service.table import Table
from controller.service.timing import JOURNAL_RETRY, TICK, FlagTimer

log = logging.getLogger("kaeshi.service")


class Service:
    """The running service: the one step, its run, and the parts it owns."""

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
        if time_scale is None:
            time_scale = config["source.speed"] if config["source.kind"] == "sim" else 1.0
        self.time = GameTime(wall, monotonic, boot_clock, time_scale)
        self.terminal = terminal
        self.exit_when_done = (
            config["source.kind"] == "sim" if exit_when_done is None else exit_when_done
        )
        if linger is not None and not 0 <= linger <= 86400:
            raise ValueError(f"linger must be from 0 to 86400 seconds, not {linger}")
        #: With ``exit_when_done``: seconds the game-over page stays up once the replay
        #: has ended (0: stop at once; None: until a signal, for someone at a terminal).
        self.linger = linger
        self.token = config["web.token"] or secrets.token_urlsafe(12)
        self._stop: asyncio.Event | None = None  # created in run(), on the loop
        self.last_arrival: float | None = None
        self.on_step: Callable[[list[Event]], None] | None = None
        #: Called once the outputs are up (the web page's address is known).
        self.on_ready: Callable[[Service], None] | None = None
        self.table = Table(config)
        self.logs = ReplayLogs(config, injected=source is not None)
        self.replay = ReplayClock()
        self.outputs = Outputs(self.table, self.time, terminal, self.token)
        self.keeper = JournalKeeper(self.table, self.time, self.outputs)
        self.flags = FlagTimer(self.table, self.time, self.keeper, self)
        self.choice = SourceChoice(config, self.logs, self.table, self.time, self.keeper,
                                   self.token, source)
        self.lifecycle = GameLifecycle(self.table, self.time, self.keeper, self.outputs,
                                       self.logs, self.choice, self)
        self.next_games = NextGames(self.table, self.time, self.keeper, self.lifecycle,
                                    self.outputs, self.logs, self.replay)
        self.intake = Intake(self.table, self.time, self.keeper, self.flags, self.lifecycle,
                             self.next_games, self.outputs, self.choice, self.replay, self)
        self.flags.follow(self.intake)
        #: The web page's (and the hall link's) view of this table, and its actions.
        self.facade = TableFacade(self.table, self.outputs, self.flags, self)

    # ------------------------------------------------------------ start-up
    def open(self) -> None:
        """Open the journal and resume the unfinished game, or start a new one."""
        self.lifecycle.open()
        self.replay.opened(self.time.base)

    # --------------------------------------------------------------- steps
    def step(
        self, data: dict[str, Any], *, t: float | None = None, arrival: float | None = None
    ) -> list[Event]:
        """Apply one input, journal it with its consequences, then show it."""
        table, journal = self.table, self.keeper.journal
        assert table.core is not None and journal is not None and table.game is not None
        if self.keeper.problem is not None:
            raise ActionRefused(f"play is held: the journal cannot be written "
                                f"({self.keeper.problem})")
        t = self.time.now() if t is None else t
        t = max(t, table.core.t)  # journaled time never goes backwards
        self.last_arrival = arrival
        core = table.core
        before = (core.game_over, core.paused, len(core.arbiter.moves))
        events = core.apply(t, data)
        board = data.get("obs", {}).get("board")
        if board is not None and table.still(board, changed=bool(events)):
            return []  # a still board: a third equal frame changes nothing in the core
        items: list[tuple[str, dict[str, Any]]] = [("input", data)]
        items.extend(("event", e.to_dict()) for e in events)
        after = (core.game_over, core.paused, len(core.arbiter.moves))
        if "obs" not in data or "press" in data.get("obs", {}) or events or after != before:
            items.append(("clock", core.clocks(t)))
            # the official position after the step, beside every published entry: what
            # a hall broadcast shows (the rules cannot rebuild it past an unnoticed fault)
            items.append(("position", core.position()))
        if board is not None:
            table.saw_board()
        table.refresh_state()  # a state change is journaled in the step that caused it
        items.extend(table.take_pending_state())
        try:
            journal.commit_step(table.game.id, t, items, self.time.wall_time())
        except JournalError as exc:
            self.keeper.down(str(exc), t)
            return []
        for e, d in zip(events, numbered(events, len(core.arbiter.moves)), strict=True):
            table.remember(d)
            self._tell(e, d)
        self.outputs.show(arrival)
        self.flags.schedule()
        if events:
            journal.checkpoint()  # moves into the database file: a lost WAL costs none
        self.outputs.changed()
        if self.on_step is not None:
            self.on_step(events)
        if core.game_over and not before[0]:
            self.lifecycle.finish_game()
        return events

    def _tell(self, e: Event, d: dict[str, Any]) -> None:
        """An event in the log (and a flag's fall on the clock's buzzer)."""
        if e.event is EventKind.IRREGULARITY:
            log.warning("irregularity: %s by %s on %s", d["kind"], d["player"],
                        ", ".join(d["squares"]))
        elif e.event is EventKind.GAME_OVER:
            log.info("game over: %s-%s, winner %s", d["black"], d["white"], d["winner"])
            if d.get("reason") in ("time", "both_flags"):
                self.outputs.buzz()
        else:
            log.debug("event: %s", d)

    # ---------------------------------------------------------------- run
    async def run(self) -> int:
        """Run until the replay ends (sim) or a stop is asked for (signal)."""
        self._stop = asyncio.Event()
        self.keeper.start()
        if self.table.core is None:
            self.open()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._stop.set)
        source = self.intake.open()
        if hasattr(source, "pause_button"):  # a clock page's pause is the clock's button
            source.pause_button = self.intake.pause_button
        await self.outputs.start(source, self.facade, self.flags, self.intake, self)
        if self.on_ready is not None:
            self.on_ready(self)
        self.table.refresh_state()
        self.outputs.show()
        self.flags.schedule()
        tasks = [
            asyncio.create_task(self.intake.read(source), name="source"),
            asyncio.create_task(self._tick(source), name="tick"),
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
            self.keeper.close()
            for sig in (signal.SIGTERM, signal.SIGINT):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
        return 0

    async def _tick(self, source: Source) -> None:
        """Time-driven checks (:mod:`controller.service.timing`): a journal to retry, a
        fallen flag as a backstop to its timer, a reading that stood, a silent sensor,
        and the clock displays."""
        since_retry = 0.0
        while True:
            await asyncio.sleep(TICK)
            try:
                if self.keeper.problem is not None:
                    since_retry += TICK
                    if since_retry >= JOURNAL_RETRY:
                        since_retry = 0.0
                        self.lifecycle.retry_journal()
                    self.outputs.update_clock_display()
                    continue
                if self.table.core is None:
                    continue
                self.flags.check()
                self.intake.watch(source)
                self.outputs.update_clock_display()
            except Exception:  # a bug here must not stop the time checks for good
                log.exception("time check failed")

    def stop(self) -> None:
        if self._stop is not None:
            self._stop.set()

    def replay_done(self) -> None:
        """The replay has ended (``exit_when_done``): stop, or keep the game-over page up
        ``linger`` seconds, or until Ctrl-C (a person at a terminal is reading it)."""
        if self.linger == 0 or self._stop is None:
            self.stop()
            return
        url = self.outputs.url
        where = f" at {url}" if url else ""
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
