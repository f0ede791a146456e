"""The service: one asyncio program from a source to the arbiter, clock, journal and outputs.

Every input is handled the same way, on the event loop's thread:

1. stamp it with the service's own time (the wall clock is read only here);
2. apply it to the pure core (arbiter + clock);
3. write the input, its events and the clock state to the journal as one synced step;
4. only then show it: state, LEDs, web page, terminal, clock displays.

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

from controller.errors import KaeshiError
from controller.events import Event, EventKind
from controller.leds.plan import plan_overlay
from controller.observation import read_observations
from controller.service.config import Config
from controller.service.core import ActionRefused, GameCore, GameSettings, check_board
from controller.service.display import TerminalDisplay
from controller.service.facade import FacadeMixin
from controller.service.games import write_game_files
from controller.service.journal import GameRow, Journal, JournalError
from controller.service.sources import (
    CameraSource,
    HallSource,
    LinkChange,
    LogSource,
    Reading,
    Source,
    SourceEnd,
)
from controller.service.states import State, StateMachine
from controller.squares import Color
from controller.web.facade import ChangeNotifier, for_view

log = logging.getLogger("kaeshi.service")

#: Events kept in memory for the web page and the terminal (the journal has all).
RECENT_EVENTS = 200


def settings_from_config(config: Config, settled: bool = False) -> GameSettings:
    """A new game's settings; ``settled``: its source debounces every board itself."""
    return GameSettings(
        mode=config["game.mode"],
        black=config["game.black"],
        white=config["game.white"],
        event=config["game.event"],
        place=config["game.place"],
        draws_allowed=config["game.draws_allowed"],
        draw_win_right=config["game.draw_win_right"],
        clock=config["clock.enabled"],
        main=float(config["clock.main"]),
        increment=float(config["clock.increment"]),
        delay=float(config["clock.delay"]),
        settled=settled,
    )


class Service(FacadeMixin):
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
    ) -> None:
        self.config = config
        self._wall = wall
        self._mono = monotonic
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
        self._observations: list[Any] | None = None
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

    # ----------------------------------------------------------------- time
    def now(self) -> float:
        """Game time in seconds: monotonic, scaled for replays, continued across restarts."""
        return self._base + (self._mono() - self._m0) * self._scale

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
            self._observations = self._read_log()  # a bad log stops start-up, before anything
        try:
            self.journal = Journal(self.config["journal.path"])
        except OSError as exc:
            raise JournalError(f"{self.config['journal.path']}: {exc}") from None
        game = self.journal.unfinished_game()
        if game is None:
            self._new_game()
        else:
            self._resume(game)

    def _new_game(self) -> None:
        assert self.journal is not None
        settings = settings_from_config(self.config, self._source_settled())
        info = {"settings": settings.to_dict(), "source": self.config["source.kind"]}
        self.game = self.journal.new_game(info, self._wall())
        self.core = GameCore(settings)
        self.events = []
        self.events_total = 0
        self._board_seen = False
        self._recent_boards = (None, None)
        self._set_base(0.0)
        log.info("new game %s", self.game.id)

    def _resume(self, game: GameRow) -> None:
        """Replay the journaled inputs through a fresh core: same position, same clocks."""
        assert self.journal is not None
        settings = GameSettings.from_dict(game.info.get("settings", {}))
        core = GameCore(settings)
        replayed: list[dict[str, Any]] = []
        journaled: list[dict[str, Any]] = []
        last_t, last_wall = 0.0, game.started
        boards: list[str | None] = [None, None]
        for entry in self.journal.entries(game.id):
            last_t, last_wall = max(last_t, entry.t), entry.wall
            if entry.kind == "input":
                try:
                    events = core.apply(entry.t, entry.data)
                except ActionRefused:
                    events = []
                replayed.extend(e.to_dict() for e in events)
                board = entry.data.get("obs", {}).get("board")
                if board is not None:
                    boards = [boards[1], board]
                    self._board_seen = True
            elif entry.kind == "event":
                journaled.append(entry.data)
        if replayed != journaled:
            log.warning(
                "journal of game %s: replay gave %d events where %d were shown; "
                "the replay is kept", game.id, len(replayed), len(journaled)
            )
        self.game, self.core = game, core
        self.events = replayed[-RECENT_EVENTS:]
        self.events_total = len(replayed)
        self._recent_boards = (boards[0], boards[1])
        policy = self.config["clock.resume"]
        outage = max(0.0, self._wall() - last_wall)
        base = last_t + (outage * self._scale if policy == "charge" else 0.0)
        self._set_base(base)
        log.info(
            "resumed game %s at %.1fs after %d moves (outage %.1fs, policy %s)",
            game.id, base, len(core.arbiter.moves), outage, policy,
        )
        self.message = f"resumed after an interruption of {outage:.0f} s"
        if core.game_over:
            self._refresh_state()
            self._finish_game()  # the game ended just before the interruption
            return
        clock = core.clock
        if (policy == "pause" and clock is not None and clock.running is not None
                and not clock.paused and not core.game_over):
            self._step({"action": "pause", "why": "restart"}, t=last_t)
            self.message += "; clock paused until the arbiter resumes it"

    def resume_cursor(self) -> int:
        """Where a replayable source should continue: after the last reading journaled."""
        assert self.journal is not None and self.game is not None
        cursor = -1
        for entry in self.journal.entries(self.game.id, ("input",)):
            c = entry.data.get("cursor")
            if isinstance(c, int):
                cursor = max(cursor, c)
        return cursor + 1

    # --------------------------------------------------------------- steps
    def _step(
        self, data: dict[str, Any], *, t: float | None = None, arrival: float | None = None
    ) -> list[Event]:
        """Apply one input, journal it with its consequences, then show it."""
        assert self.core is not None and self.journal is not None and self.game is not None
        t = self.now() if t is None else t
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
        if board is not None:
            self._board_seen = True
        self._refresh_state()  # a state change is journaled in the step that caused it
        items.extend(self._pending_state)
        self._pending_state = []
        try:
            self.journal.commit_step(self.game.id, t, items, self._wall())
        except JournalError as exc:
            log.error("%s", exc)
            self.message = f"journal write failed: {exc}"
        for e in events:
            self._remember(e)
        self._show(arrival)
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

    def _finish_game(self) -> None:
        """Write the record files, then mark the game finished in the journal."""
        assert self.core is not None and self.journal is not None and self.game is not None
        folder = Path(self.config["games.folder"])
        try:
            self.finished_files = write_game_files(self.core.record(), self.game.id, folder)
        except OSError as exc:
            log.error("cannot write the game record into %s: %s", folder, exc)
            self.message = f"cannot write the game record: {exc}"
            return
        self.journal.finish_game(self.game.id, self._wall())
        names = ", ".join(p.name for p in self.finished_files)
        log.info("game %s written to %s: %s", self.game.id, folder, names)
        self.message = f"game record written to {folder}"

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
        underlying = self.states.resumes_to if current is State.SENSOR_LOST else current
        if want is underlying:
            return
        from controller.service.states import ALLOWED

        if want not in ALLOWED[underlying] and current is not State.SENSOR_LOST:
            return
        self.states.set_underlying(want)

    def _state_changed(self, old: State, new: State, why: str) -> None:
        self._pending_state.append(("state", {"from": old.value, "to": new.value, "why": why}))
        self.notifier.notify()

    # -------------------------------------------------------------- output
    def _show(self, arrival: float | None = None) -> None:
        self.notifier.notify()
        self._update_leds(arrival)
        self._update_clock_display()

    def _update_leds(self, arrival: float | None = None) -> None:
        if self._leds is None or self.core is None:
            return
        plan = plan_overlay(
            self.core.settings.mode, self.core.arbiter.overlay(), self.states.state.value,
            self._legal() if self.config["leds.show_legal"] else None,
        )
        if plan == self._led_plan:
            return
        self._led_plan = plan
        task = asyncio.ensure_future(self._leds.show(plan))
        if arrival is not None:
            self.latencies.append((arrival, self._mono()))
            del self.latencies[:-1000]
        task.add_done_callback(_log_task_error)

    def _update_clock_display(self) -> None:
        if self._clockhw is None or self.core is None or self.core.clock is None:
            return
        c = self.core.clocks(self.now())
        running = Color(c["running"]) if c["running"] else None
        self._clockhw.show(c["black"], c["white"], running, c["paused"])

    def _legal(self) -> list[str]:
        assert self.core is not None
        return self.core.arbiter.position.legal_squares()

    # ---------------------------------------------------------------- run
    def make_source(self) -> Source:
        if self._source is not None:
            return self._source
        kind = self.config["source.kind"]
        if kind == "sim":
            observations = self._observations or self._read_log()
            return LogSource(observations, self.config["source.speed"], self.resume_cursor())
        if kind == "hall":
            return HallSource(self.config["source.device"], self.config["source.baud"],
                              self._official_position)
        return CameraSource(self.config["source.camera"], self.config["source.fps"],
                            self.config["source.camera_setup"],
                            keepalive=self.config["source.lost_after"] / 2)

    def _source_settled(self) -> bool:
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

    def _read_log(self) -> list[Any]:
        path = self.config["source.log"]
        if not path:
            raise KaeshiError(f"{self.config.source}: source.kind = \"sim\" needs source.log "
                              "(an observation log)")
        try:
            with open(path, encoding="utf-8") as f:
                return list(read_observations(f))
        except (KaeshiError, OSError, UnicodeDecodeError) as exc:
            raise KaeshiError(f"observation log {path}: {exc}") from None

    def _official_position(self) -> Any:
        return None if self.core is None else self.core.arbiter.position

    async def run(self) -> int:
        """Run until the replay ends (sim) or a stop is asked for (signal)."""
        self._stop = asyncio.Event()
        if self.core is None:
            self.open()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            with contextlib.suppress(NotImplementedError, RuntimeError):
                loop.add_signal_handler(sig, self._stop.set)
        source = self.make_source()
        await self._start_outputs(source)
        if self.on_ready is not None:
            self.on_ready(self)
        self._refresh_state()
        self._show()
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

    async def _read(self, source: Source) -> None:
        """Take readings from the source; a failing source is a state, never a crash."""
        while True:
            try:
                async for item in source.items():
                    if isinstance(item, Reading):
                        self._reading(item)
                    elif isinstance(item, LinkChange):
                        self._link(item)
                    elif isinstance(item, SourceEnd):
                        self._source_end()
                        return
            except (KaeshiError, OSError, ValueError, ImportError) as exc:
                self._link(LinkChange(False, f"{source.name}: {exc}"))
            except Exception as exc:  # a driver bug must not end the game
                log.exception("source %s failed", source.name)
                self._link(LinkChange(False, f"{source.name} failed: {exc}"))
            await asyncio.sleep(2.0)
            log.info("retrying the %s source", source.name)

    def _reading(self, item: Reading) -> None:
        arrival = self._mono()
        self._last_reading = arrival
        if self.states.state is State.SENSOR_LOST:
            self._link(LinkChange(True, "readings arrive again"))
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
                self._new_game()
            data = {"obs": {"board": board}}
        else:
            return
        if item.cursor is not None:
            data["cursor"] = item.cursor
        try:
            self._step(data, arrival=arrival)
        except ValueError as exc:
            log.warning("reading not used: %s", exc)

    def _is_new_game(self, board: str) -> bool:
        from controller.service.core import _matches_start

        return not self.exit_when_done and "?" not in board and _matches_start(board)

    def _link(self, item: LinkChange) -> None:
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

    def _journal_note(self, data: dict[str, Any]) -> None:
        if self.journal is None or self.game is None:
            return
        items = [("note", data), *self._pending_state]
        self._pending_state = []
        try:
            self.journal.commit_step(self.game.id, self.now(), items, self._wall())
        except JournalError as exc:
            log.error("%s", exc)

    def _source_end(self) -> None:
        """A replay ended: judge what stands (a home board has no last press), then stop."""
        if self.core is not None and not self.core.game_over:
            self._step({"action": "finish"})
            if not self.core.game_over:
                log.warning("the replay ended before the game did")
                self.message = "the replay ended before the game did"
        if self.exit_when_done:
            self.stop()

    async def _tick(self, source: Source) -> None:
        """Time-driven checks: a falling flag, a reading that stood, a silent sensor, the
        clock displays."""
        period = 0.1
        while True:
            await asyncio.sleep(period)
            try:
                self._tick_once(source)
            except Exception:  # a bug here must not stop the flag checks for good
                log.exception("time check failed")

    def _tick_once(self, source: Source) -> None:
        core = self.core
        if core is None:
            return
        if core.clock is not None and not core.game_over and core.clock.flag(self.now()):
            self._step({"action": "flag"})
        due = core.arbiter.settles_at()
        if due is not None and not core.game_over and self.now() >= due:
            # a raw source may report a board once and fall silent (a camera whose board
            # changed again before a second frame agreed): it counts once it stood, not
            # only at the next input, so the LEDs and corrections follow at once
            self._step({"action": "elapse"})
        if (source.watchdog and self.states.state is not State.SENSOR_LOST
                and self._mono() - self._last_reading > self.config["source.lost_after"]):
            quiet = self.config["source.lost_after"]
            self._link(LinkChange(False, f"no reading for {quiet} s"))
        self._update_clock_display()

    async def _draw(self) -> None:
        assert self.terminal is not None
        shown = -1
        last = 0.0
        while True:
            await asyncio.sleep(0.1)
            if self.notifier.version != shown or self._mono() - last > 0.5:
                shown = self.notifier.version
                last = self._mono()
                try:
                    self.terminal.update(for_view(self.snapshot("arbiter"), "arbiter"))
                except Exception:  # the view must never take the service down
                    log.exception("terminal view failed")

    async def _start_outputs(self, source: Source) -> None:
        driver = self.config["leds.driver"]
        if driver == "web":
            from controller.leds import WebLeds

            self._leds = WebLeds(self.notifier.notify)
        elif driver == "board":
            from controller.leds import SensorBoardLeds

            if not hasattr(source, "set_leds"):
                raise KaeshiError(f"{self.config.source}: leds.driver = \"board\" needs "
                                  "source.kind = \"hall\" (the LEDs are on the sensor board)")
            self._leds = SensorBoardLeds(source)  # type: ignore[arg-type]
        elif driver == "ws2812":
            from controller.leds import Ws2812SpiLeds
            from controller.leds.spi import open_spi_writer

            self._leds = Ws2812SpiLeds(open_spi_writer())
        if self.config["clock.buttons"]:
            self._clockhw = _open_clock_hardware(self)
        if self.config["web.enabled"]:
            from controller.web import WebServer

            self._web = WebServer(self, self.config["web.host"], self.config["web.port"],
                                  self.token)
            await self._web.start()
            self.url = self._web.url
            log.info("arbiter view: %s/arbiter?token=%s", self.url, self.token)

    async def _stop_outputs(self, source: Source) -> None:
        with contextlib.suppress(Exception):
            await source.close()
        if self._web is not None:
            await self._web.stop()
        if self._clockhw is not None:
            self._clockhw.close()
        if self._leds is not None and hasattr(self._leds, "off"):
            with contextlib.suppress(Exception):
                self._leds.off()
        if self.terminal is not None:
            self.terminal.update(for_view(self.snapshot("arbiter"), "arbiter"))
        if self.journal is not None:
            self.journal.close()

    # ----------------------------------------------------------- clock buttons
    def clock_press(self, color: Color) -> None:
        """A player's clock button (called on the event loop's thread)."""
        self._reading(Reading(press=color))

    def clock_pause_button(self) -> None:
        """The arbiter's button on the clock: stop, or start again."""
        if self.core is None or self.core.clock is None or self.core.game_over:
            return
        self._step({"action": "resume" if self.core.paused else "pause", "by": "button"})


def clock_pins(cfg: Config) -> Any:
    """The clock's wiring as the configuration's [gpio] section gives it."""
    from controller.clockhw import ClockPins

    return ClockPins(
        black_button=cfg["gpio.black_button"],
        white_button=cfg["gpio.white_button"],
        pause_button=cfg["gpio.pause_button"],
        black_clk=cfg["gpio.black_clk"],
        black_dio=cfg["gpio.black_dio"],
        white_clk=cfg["gpio.white_clk"],
        white_dio=cfg["gpio.white_dio"],
        buzzer=None if cfg["gpio.buzzer"] < 0 else cfg["gpio.buzzer"],
        debounce=cfg["gpio.debounce"],
    )


def _open_clock_hardware(service: Service) -> Any:
    from controller.clockhw import ClockHardware

    loop = asyncio.get_running_loop()
    return ClockHardware(
        clock_pins(service.config),
        on_press=lambda color, t: loop.call_soon_threadsafe(service.clock_press, color),
        on_pause=lambda t: loop.call_soon_threadsafe(service.clock_pause_button),
    )


def _log_task_error(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("LED update failed: %s", task.exception())
