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
from typing import TYPE_CHECKING, Any, Protocol

from controller.arbiter.presswait import press_wait
from controller.errors import KaeshiError
from controller.service.core import check_board
from controller.service.held_presses import HeldPresses
from controller.service.journal import JournalError
from controller.service.lifecycle import GameLifecycle
from controller.service.recovery import JournalKeeper
from controller.service.replay_logs import ReplayLogs
from controller.service.sources import (
    CameraSource,
    HallSource,
    LinkChange,
    LogSource,
    Notice,
    Reading,
    Source,
    SourceEnd,
    camera_stable,
)
from controller.service.states import State, StateMachine
from controller.service.timing import MAX_HELD_BACK, FlagTimer
from controller.squares import Color

if TYPE_CHECKING:
    from controller.events import Event
    from controller.service.config import Config
    from controller.service.core import GameCore
    from controller.service.journal import GameRow, Journal

#: How often a failed source is tried again, and how many tries make one log line.
RETRY_SECONDS = 2.0
RETRIES_PER_LOG = 30
log = logging.getLogger("kaeshi.service")


class FedTable(Protocol):
    """What the intake needs of the service: the game it feeds, its clock and its one
    step function."""

    config: Config
    core: GameCore | None
    game: GameRow | None
    journal: Journal | None
    states: StateMachine
    message: str
    exit_when_done: bool
    #: The settings a hub's next_game order gave the next game (applied when it starts).
    next_game_overrides: dict[str, Any] | None

    def now(self) -> float: ...
    def game_time(self, mono: float) -> float: ...
    def set_base(self, t: float) -> None: ...
    def monotonic(self) -> float: ...
    def wall_time(self) -> float: ...
    def step(self, data: dict[str, Any], *, t: float | None = None,
             arrival: float | None = None) -> list[Event]: ...
    def refresh_state(self) -> None: ...
    def show(self, arrival: float | None = None) -> None: ...
    def stop(self) -> None: ...
    def replay_done(self) -> None: ...
    def stopping(self) -> bool: ...
    def hub_changed(self) -> None: ...
    def hub_rounds(self) -> dict[str, int] | None: ...
    def replace_unstarted_game(self) -> bool: ...


class Intake:
    """The source side of a service: which source, its readings and link changes, and
    where a replay stands in its log (see the module docstring)."""

    def __init__(self, table: FedTable, logs: ReplayLogs, flags: FlagTimer,
                 keeper: JournalKeeper, lifecycle: GameLifecycle,
                 source: Source | None = None) -> None:
        self.table = table
        self.logs = logs
        self.flags = flags
        self.keeper = keeper
        self.lifecycle = lifecycle
        #: The source handed over by the caller (a test's, the demo's board), if any.
        self.given = source
        #: The source being read (its latency and, for a replay, its next reading).
        self.active: Source | None = source
        self.next_source = False  # a replay moved on to the folder's next log
        #: hub.wait_for_pairing: the log held until the hub's next_game, and its signal.
        self.held_log: Path | None = None
        self._pairing: asyncio.Event | None = None
        self.log_offset: float | None = None  # service time minus log time, this run
        #: The game time the service opened at (a replay's first reading continues it).
        self.open_base = 0.0
        self.last_reading = table.monotonic()
        #: Why the board's link is down, as the source said (kept while presses are held).
        self.lost_detail = ""
        self.held_presses = HeldPresses()

    def make_source(self) -> Source:
        if self.given is not None:
            return self.given
        kind = self.table.config["source.kind"]
        if kind == "sim":
            return LogSource.from_file(self.logs.file or self.table.config["source.log"],
                                       self.table.config["source.speed"],
                                       self.keeper.resume_cursor(), count=self.logs.count,
                                       size=self.table.config["game.size"])
        if kind == "hall":
            return HallSource(self.table.config["source.device"], self.table.config["source.baud"],
                              self._official_position, size=self.table.config["game.size"])
        if kind == "browser":
            return self._browser_source()
        return CameraSource(self.table.config["source.camera"], self.table.config["source.fps"],
                            self.table.config["source.camera_setup"],
                            keepalive=self.table.config["source.lost_after"] / 2,
                            size=self.table.config["game.size"])

    def _browser_source(self) -> Source:
        from controller.browser.source import BrowserSource

        c = self.table.config
        size = (c["source.width"], c["source.height"])
        if c["source.camera_setup"]:
            size = _setup_size(c["source.camera_setup"], size)
        return BrowserSource(c["source.fps"], c["source.camera_setup"],
                             keepalive=c["source.lost_after"] / 2, network=c["source.network"],
                             sync_allowance=c["source.sync_allowance"],
                             hold_max=c["source.hold_max"], size=size,
                             game_size=c["game.size"],
                             monotonic=self.table.monotonic,
                             device_key=device_key(str(getattr(self.table, "token", ""))))

    def source_settled(self) -> bool:
        """Whether the source's boards come already debounced (``Source.settled``).

        A game is started before its configured source is opened (a replay's source
        needs the journal to know where to resume), so the class is asked.
        """
        if self.given is not None:
            return self.given.settled
        kinds: dict[str, type[Source]] = {
            "sim": LogSource, "hall": HallSource, "camera": CameraSource,
        }
        kind = self.table.config["source.kind"]
        return False if kind == "browser" else kinds[kind].settled

    def source_press_wait(self) -> float:
        """Seconds a press waits for the camera's frames after it (the one rule of
        :mod:`controller.arbiter.presswait`); a replayed camera log waits as its header
        says it was watched (as ``kaeshi arbitrate`` judges it); other sources are
        judged at each press."""
        config = self.table.config
        if config["source.kind"] == "sim":
            header = self.logs.header()
            if header is None or header.fps is None:
                return 0.0
            return press_wait(header.fps, header.stable, config["source.press_wait_max"])
        if config["source.kind"] not in ("camera", "browser"):
            return 0.0
        fps = config["source.fps"]
        wait = press_wait(fps, camera_stable(fps), config["source.press_wait_max"])
        if config["source.kind"] == "browser":
            # a press and the frames are stamped by two devices, each synced to within
            # the allowance: the frames that show the board at the press come that much
            # later at worst
            wait += 2 * config["source.sync_allowance"]
        return wait

    def pending_before(self, fall: float) -> bool:
        """A replay still holds a reading stamped before ``fall`` (it is on its way)."""
        pending_at = getattr(self.active, "pending_at", None)
        if pending_at is not None:  # a live source that orders its inputs by their time
            return self.table.game_time(pending_at()) < fall
        pending = getattr(self.active, "pending", None)
        if pending is None:
            return False
        offset = (self.log_offset if self.log_offset is not None
                  else max(0.0, self.open_base - pending))
        return pending + offset < fall

    def watch(self, source: Source) -> None:
        """A live source silent for ``source.lost_after`` seconds is a lost sensor."""
        quiet = self.table.config["source.lost_after"]
        if (source.watchdog and self.table.states.state is not State.SENSOR_LOST
                and self.table.monotonic() - self.last_reading > quiet):
            self.link(LinkChange(False, f"no reading for {quiet} s"))

    def _official_position(self) -> Any:
        return None if self.table.core is None else self.table.core.arbiter.position

    async def read(self, source: Source) -> None:
        """Take readings from the source; a failing source is a state, never a crash.

        While the journal cannot be written, a replay is held (its next reading waits);
        a live sensor is still read, but its readings are not taken (see :meth:`reading`).
        """
        replay = isinstance(source, LogSource)
        if replay and self._holds_first_log():
            self.held_log = self.logs.file
            await self._wait_for_pairing()
            source = self.make_source()
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
                        if not self.next_source:
                            return
                        break
                    if self.table.stopping():
                        return  # a replay behind its pace never waits: stop here
                if self.next_source:  # a folder of logs: its next game
                    self.next_source = False
                    if self.held_log is not None:
                        await self._wait_for_pairing()
                        self.next_source = False
                    source = self.make_source()
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
        arrival = self.table.monotonic()
        if self.keeper.problem is not None:
            self.last_reading = arrival
            self.keeper.held += 1  # play is held: nothing taken that cannot be recorded
            return
        lost = self.table.states.state is State.SENSOR_LOST
        if item.press is not None:
            if lost:  # the board it ends cannot be seen: held, never judged blind
                self._hold_press(item, arrival)
                return
            for held in self.held_presses.take_all():  # they came before this one
                self._take(held, self.table.monotonic())
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
            self._take(waiting, self.table.monotonic())

    def _hold_press(self, item: Reading, arrival: float) -> None:
        if not self.held_presses.hold(item, arrival):
            log.debug("clock press dropped: %d already held", len(self.held_presses))
            return
        count = len(self.held_presses)
        if count == 1:
            log.warning("clock press held: the board cannot be seen (%s)", self.lost_detail)
        self.table.message = (f"{self.lost_detail}; {count} clock press"
                              f"{'es' if count > 1 else ''} held until the board is seen again")
        if item.press is not None:
            self.keeper.note({"held_press": item.press.value})
        self.table.show()

    def _take(self, item: Reading, arrival: float) -> None:
        """Judge one reading or press: stamped, journaled and stepped through the core."""
        t = self._replay_time(item)
        if t is None and item.at is not None:
            t = self.table.game_time(item.at)  # a press is judged by its edge, not its arrival
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
                    self.keeper.down(str(exc), self.table.now())
                    return
            data = {"obs": {"board": board}}
        else:
            return
        if item.cursor is not None:
            data["cursor"] = item.cursor
        t = self.table.now() if t is None else t
        if self.flags.in_window(t) and len(self.flags.held_back) < MAX_HELD_BACK:
            # after a fall not yet confirmed: a press stamped before it may still come
            self.flags.held_back.append((data, t, arrival))
            return
        try:
            self.flags.settle_before(t)
            self.table.step(data, t=t, arrival=arrival)
        except ValueError as exc:
            log.warning("reading not used: %s", exc)
        self.flags.flush_held_back()

    def _replay_time(self, item: Reading) -> float | None:
        """A replayed reading keeps the log's own time (shifted once per run to continue
        the game's time), so a replay, killed and resumed or not, is the same game."""
        if item.t is None:
            return None
        if self.log_offset is None:
            self.log_offset = max(0.0, self.open_base - item.t)
        t = item.t + self.log_offset
        if self.table.core is not None:
            t = max(t, self.table.core.t)
        self.table.set_base(t)
        return t

    def press(self, color: Color, at: float | None) -> None:
        """A clock button's press: through the source when it orders its inputs by
        time (the browser's), so a GPIO press and a page's tap are judged by one rule."""
        take = getattr(self.active, "press", None)
        if take is not None:
            take(color, self.table.monotonic() if at is None else at)
        else:
            self.reading(Reading(press=color, at=at))

    def _is_new_game(self, board: str) -> bool:
        from controller.service.core import _matches_start

        start = self.table.core.settings.start() if self.table.core is not None else None
        return not self.table.exit_when_done and "?" not in board and _matches_start(board, start)

    def link(self, item: LinkChange) -> None:
        if self.keeper.problem is not None:
            log.warning("sensor %s while the journal fails: %s",
                        "up" if item.up else "down", item.detail)
            return
        if item.up:
            self.last_reading = self.table.monotonic()  # the watchdog counts from here
            if self.table.states.state is State.SENSOR_LOST:
                held = len(self.held_presses)
                self.table.message = (item.detail or "sensor back") + (
                    f"; {held} held clock press{'es' if held > 1 else ''} judged with the "
                    "boards that follow" if held else "")
                self.table.states.sensor_back(item.detail)
            elif self.table.states.state is State.STARTING:
                self.table.states.go(State.WAITING_FOR_BOARD, item.detail)
        else:
            if self.table.states.state is State.SENSOR_LOST and self.lost_detail == item.detail:
                log.debug("still lost: %s", item.detail)  # a retry that failed the same way
                return
            self.lost_detail = item.detail or "sensor lost"
            self.table.message = self.lost_detail
            log.warning("sensor lost: %s", item.detail)
            if self.table.states.state is not State.SENSOR_LOST:
                self.table.states.sensor_lost(item.detail)
        self.keeper.note({"link": "up" if item.up else "down", "detail": item.detail})
        self.table.refresh_state()
        self.table.show()

    def notice(self, item: Notice) -> None:
        """The source has news for the arbiter (the camera may have moved): said on the
        page and in the log, kept in the journal; the game goes on as read."""
        log.warning("%s", item.detail)
        self.table.message = item.detail
        self.keeper.note({"notice": item.detail})
        self.table.show()

    def source_end(self) -> None:
        """A replay ended: judge what stands (a home board has no last press), then stop."""
        if self.table.core is not None and not self.table.core.game_over:
            # a replay ends at its last reading; a video played to its end, now
            replay = isinstance(self.active, LogSource)
            self.table.step({"action": "finish"}, t=self.table.core.t if replay else None)
            if not self.table.core.game_over:
                log.warning("the replay ended before the game did")
                self.table.message = "the replay ended before the game did"
        nxt = self.logs.next_log()
        if nxt is not None:
            if self._waits_for_pairing() and self.table.next_game_overrides is None:
                self.held_log = nxt  # played when the hub's next_game comes
                self.next_source = True
                self.table.message = "waiting for the hub's next game"
                self.table.refresh_state()
                self.table.show()
                return
            self._next_game_from(nxt)
            return
        if self.table.exit_when_done:
            self.table.replay_done()

    def _waits_for_pairing(self) -> bool:
        """hub.wait_for_pairing on a replaying table linked to a hall."""
        return (self.table.hub_rounds() is not None
                and bool(self.table.config["hub.wait_for_pairing"])
                and isinstance(self.active, LogSource))

    def _holds_first_log(self) -> bool:
        """The game at start-up waits for its pairing too, unless it is already under
        way or the hub gave it its round before a restart."""
        core, game = self.table.core, self.table.game
        rounds = self.table.hub_rounds() or {}
        return (self._waits_for_pairing() and core is not None and game is not None
                and not core.started and not core.arbiter.moves and game.id not in rounds)

    async def _wait_for_pairing(self) -> None:
        """Until :meth:`play_held_log` (the hub's next_game) takes the held log."""
        if self._pairing is None:
            self._pairing = asyncio.Event()
        log.info("waiting for the hub's next game before replaying %s", self.held_log)
        while self.held_log is not None:
            self._pairing.clear()
            await self._pairing.wait()

    def play_held_log(self) -> bool:
        """The hub's next_game for a table waiting for it: its held log's game starts
        now, with the order's settings. False when no log was held."""
        path, self.held_log = self.held_log, None
        if path is None:
            return False
        self.table.message = ""
        if path == self.logs.file and self.table.replace_unstarted_game():
            pass  # the game at start-up, never begun: replaced by the paired one
        else:
            self._next_game_from(path)
        if self._pairing is not None:
            self._pairing.set()
        return True

    def _next_game_from(self, path: Path) -> None:
        """The folder's next log is the next game: the one just played is closed (its
        record was written when it ended), and the new one begins at game time 0."""
        assert self.table.journal is not None and self.table.game is not None
        if self.table.core is not None and not self.table.core.game_over:
            try:
                self.table.journal.finish_game(self.table.game.id, self.table.wall_time())
            except JournalError as exc:
                self.keeper.down(str(exc), self.table.now())
                return
        self.logs.use(path)
        self.log_offset = None
        self.open_base = 0.0
        self.lifecycle.new_game()
        log.info("next game from %s", path)
        self.next_source = True
        self.table.refresh_state()
        self.table.show()
        self.table.hub_changed()


def _setup_size(path: str, default: tuple[int, int]) -> tuple[int, int]:
    """The frame size a camera set-up file was made for (the phone is asked for it)."""
    try:
        from controller.vision.calibration_file import load_calibration

        w, h = load_calibration(path, bare=True).setup.image_size
        return int(w), int(h)
    except Exception as exc:  # the source names a broken file when it reads it
        log.debug("camera set-up size not read: %s", exc)
        return default


def device_key(token: str) -> str:
    """The key in the camera and clock pages' addresses: derived from the arbiter's token,
    so it outlives a restart when the token is configured, and tells nothing of it."""
    import hashlib
    import hmac

    return hmac.new(token.encode("utf-8"), b"kaeshi phone pages", hashlib.sha256).hexdigest()[:16]
