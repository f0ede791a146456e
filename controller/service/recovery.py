"""The journal side of the service: resuming a game from it, and living with a write that fails.

Resuming replays the journaled inputs through a fresh pure core, so the position,
the clocks and the events come back exactly. A write that fails (a full disk,
storage turned read-only) is a state, ``journal failed``: the step is not shown,
the core is rebuilt from what is on disk, play is held, and a write is retried
until one succeeds (the periodic tick of :class:`~controller.service.timing.FlagTimer`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from controller.events import Event, numbered
from controller.service.bootclock import BootStamp
from controller.service.core import ActionRefused, GameCore, GameSettings
from controller.service.journal import Entry, GameRow, Journal, JournalError
from controller.service.states import State, StateMachine
from controller.service.timing import FlagTimer

if TYPE_CHECKING:
    from controller.service.config import Config

log = logging.getLogger("kaeshi.service")

#: Events kept in memory for the web page and the terminal (the journal has all).
RECENT_EVENTS = 200


@dataclass(frozen=True, slots=True)
class Outage:
    """An interruption measured by each clock: ``boot`` (None: not measurable), ``wall``."""

    boot: float | None
    wall: float
    why_unmeasured: str = ""

    def describe(self) -> str:
        wall = f"{self.wall:.0f} s by the wall clock"
        if self.boot is None:
            return f"{wall} ({self.why_unmeasured})"
        text = f"{self.boot:.1f} s by the boot clock"
        if abs(self.wall - self.boot) > 2.0 + 0.01 * self.boot:
            text += f", {wall}, which was moved meanwhile: the boot clock counts"
        return text


class KeptTable(Protocol):
    """What resuming and a failed write change of the service: its game, the core's
    state, what the page says, and its step function to put a stopped clock right."""

    config: Config
    journal: Journal | None
    game: GameRow | None
    core: GameCore | None
    states: StateMachine
    message: str
    events: list[dict[str, Any]]
    events_total: int
    #: The last two boards seen (a third equal one changes nothing) and whether any was.
    recent_boards: tuple[str | None, str | None]
    board_seen: bool
    #: State changes to journal with the next step.
    pending_state: list[tuple[str, dict[str, Any]]]
    boot_clock: Callable[[], BootStamp]

    @property
    def scale(self) -> float: ...
    @property
    def finish_pending(self) -> bool: ...
    def now(self) -> float: ...
    def wall_time(self) -> float: ...
    def set_base(self, t: float) -> None: ...
    def step(self, data: dict[str, Any], *, t: float | None = None,
             arrival: float | None = None) -> list[Event]: ...
    def refresh_state(self) -> None: ...
    def show(self, arrival: float | None = None) -> None: ...
    def finish_game(self) -> None: ...
    def hub_changed(self) -> None: ...


class JournalKeeper:
    """Resuming a game from the journal, and the ``journal failed`` state: why the
    journal cannot be written, since when, and what waits for it."""

    def __init__(self, table: KeptTable, flags: FlagTimer) -> None:
        self.table = table
        self.flags = flags
        #: Why the journal cannot be written (None while it can), and since when.
        self.problem: str | None = None
        self.failed_at = 0.0
        self.held = 0  # readings not taken while the journal failed
        self.ok: asyncio.Event | None = None  # set while writable; made on the loop

    def start(self) -> None:
        """On the event loop: the flag a held replay waits on."""
        self.ok = asyncio.Event()
        if self.problem is None:
            self.ok.set()

    async def writable(self) -> None:
        if self.ok is not None:
            await self.ok.wait()

    def replay_core(self, game: GameRow) -> GameCore:
        """A fresh core fed the journaled inputs of ``game``."""
        assert self.table.journal is not None
        core = GameCore(GameSettings.from_dict(game.info.get("settings", {})))
        for entry in self.table.journal.entries(game.id, ("input",)):
            _apply_journaled(core, entry)
        return core

    def resume(self, game: GameRow) -> None:
        """Replay the journaled inputs through a fresh core: same position, same clocks."""
        assert self.table.journal is not None
        settings = GameSettings.from_dict(game.info.get("settings", {}))
        core = GameCore(settings)
        replayed: list[dict[str, Any]] = []
        journaled: list[dict[str, Any]] = []
        last_t, last_wall = 0.0, game.started
        boards: list[str | None] = [None, None]
        for entry in self.table.journal.entries(game.id):
            last_t, last_wall = max(last_t, entry.t), entry.wall
            if entry.kind == "input":
                events = _apply_journaled(core, entry)
                replayed.extend(numbered(events, len(core.arbiter.moves)))
                board = entry.data.get("obs", {}).get("board")
                if board is not None:
                    boards = [boards[1], board]
                    self.table.board_seen = True
            elif entry.kind == "event":
                journaled.append(entry.data)
        if [{k: v for k, v in d.items() if k != "n"} for d in replayed] != journaled:
            log.warning(
                "journal of game %s: replay gave %d events where %d were shown; "
                "the replay is kept", game.id, len(replayed), len(journaled)
            )
        # the game's time goes on from its last input, not from a note written after
        # it (a note's time is the wall's, and would shift a resumed replay's times)
        last_t = core.t
        self.table.game, self.table.core = game, core
        self.table.events = replayed[-RECENT_EVENTS:]
        self.table.events_total = len(replayed)
        self.table.recent_boards = (boards[0], boards[1])
        policy = self.table.config["clock.resume"]
        down = self.outage(last_wall)
        charged = down.boot if policy == "charge" and down.boot is not None else 0.0
        base = last_t + charged * self.table.scale
        self.table.set_base(base)
        log.info("resumed game %s at %.1fs after %d moves (%s; policy %s)",
                 game.id, base, len(core.arbiter.moves), down.describe(), policy)
        self.table.message = f"resumed after an interruption: {down.describe()}"
        if policy == "charge":
            self.table.message += (f"; {charged:.1f} s charged to the side on move"
                                   if down.boot is not None else "")
        if core.game_over:
            self.table.refresh_state()
            self.table.finish_game()  # the game ended just before the interruption
            return
        clock = core.clock
        unmeasured = policy == "charge" and down.boot is None
        if ((policy == "pause" or unmeasured) and clock is not None
                and clock.running is not None and not clock.paused):
            self.table.step({"action": "pause", "why": "restart"}, t=last_t)
            if unmeasured:
                # never charged silently: the arbiter sees both figures and decides
                self.table.message += ("; nothing charged (the outage cannot be measured "
                                       "on a clock that does not jump): clock paused until "
                                       "the arbiter adjusts it and resumes")
            else:
                self.table.message += "; clock paused until the arbiter resumes it"

    def outage(self, last_wall: float) -> Outage:
        """How long the table was down, by the boot clock (None across a reboot or when
        the journal does not say) and by the wall clock (which may have been moved)."""
        assert self.table.journal is not None
        wall = self.table.wall_time() - last_wall
        stamp = self.table.journal.last_stamp()
        now = self.table.boot_clock()
        if stamp is None or not now.boot or stamp[0].boot != now.boot:
            reason = ("the machine restarted" if stamp is not None and now.boot
                      and stamp[0].boot != now.boot else "the journal does not say when "
                      "the last step was on the boot clock")
            return Outage(None, wall, reason)
        boot = now.uptime - stamp[0].uptime
        if boot < 0:
            return Outage(None, wall, "the boot clock went backwards")
        return Outage(boot, wall, "")

    def resume_cursor(self) -> int:
        """Where a replayable source should continue: after the last reading journaled."""
        assert self.table.journal is not None and self.table.game is not None
        cursor = -1
        for entry in self.table.journal.entries(self.table.game.id, ("input",)):
            c = entry.data.get("cursor")
            if isinstance(c, int):
                cursor = max(cursor, c)
        return cursor + 1

    def down(self, problem: str, t: float) -> None:
        """A write failed: show nothing of it, rebuild the core from disk, hold play."""
        assert self.table.journal is not None and self.table.game is not None
        log.error("journal failed, play is held: %s", problem)
        self.flags.cancel()
        try:
            core = self.replay_core(self.table.game)
        except (JournalError, sqlite3.Error, ValueError) as exc:
            log.error("cannot read the journal back either (%s): the last step shown may "
                      "not be recorded", exc)
        else:
            self.table.core = core
        self.table.recent_boards = (None, None)  # the next board is taken afresh
        self.hold(
            problem, t, f"JOURNAL FAILED ({problem}): play is held, nothing since "
            f"{t:.1f} s is recorded; free the storage and the service carries on")

    def hold(self, problem: str, t: float, message: str) -> None:
        """Enter ``journal failed`` from ``t``, telling the user ``message``: the
        journal is retried (:meth:`retry`) and replayed inputs wait for it.
        One place for every failed write, so each holds play the same way."""
        self.problem = problem
        self.failed_at = t
        if self.ok is not None:
            self.ok.clear()
        self.table.message = message
        if self.table.states.state is not State.JOURNAL_FAILED:
            self.table.states.journal_failed(problem)
        self.table.pending_state = []  # cannot be journaled now; the recovery note says it
        self.table.show()

    def retry(self) -> None:
        """Try a write; once one succeeds, leave ``journal failed`` with the clock stopped."""
        if self.problem is None or self.table.journal is None or self.table.game is None:
            return
        note = {"journal": "written again", "failed": self.problem,
                "since": self.failed_at, "readings_not_taken": self.held}
        try:
            self.table.journal.commit_step(self.table.game.id, self.failed_at,
                                           [("note", note)], self.table.wall_time())
        except JournalError:
            return
        log.warning("journal written again after: %s (%d readings not taken)",
                    self.problem, self.held)
        self.problem = None
        self.held = 0
        self.table.set_base(max(self.table.now(), self.failed_at))
        self.table.states.journal_back()
        self.table.refresh_state()
        core = self.table.core
        self.table.message = "the journal is written again"
        if (core is not None and core.clock is not None and core.clock.running is not None
                and not core.paused and not core.game_over):
            self.table.step({"action": "pause", "why": "journal"}, t=self.failed_at)
            self.table.message += ("; the clock stands at the failure until the arbiter "
                                   "resumes it")
        elif core is not None and core.game_over and self.table.finish_pending:
            self.table.finish_game()
        else:
            self.note({"journal": "recovered"})
        if self.ok is not None:
            self.ok.set()
        self.table.show()

    def note(self, data: dict[str, Any]) -> None:
        if self.table.journal is None or self.table.game is None:
            return
        items = [("note", data), *self.table.pending_state]
        self.table.pending_state = []
        try:
            self.table.journal.commit_step(self.table.game.id, self.table.now(), items,
                                           self.table.wall_time())
        except JournalError as exc:
            self.down(str(exc), self.table.now())
        self.table.hub_changed()


def _apply_journaled(core: GameCore, entry: Entry) -> list[Event]:
    """One journaled input replayed; one the core refuses is named and passed over.

    An arbiter's action refused live is journaled too (it was asked for), and is
    refused again here. Rows are checked whole when the journal opens, so any other
    refusal is a fault in the journal, which must cost that input and nothing more.
    """
    try:
        return core.apply(entry.t, entry.data)
    except ActionRefused:
        return []
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("journal entry %d (step %d) could not be replayed: %s; passed over",
                    entry.seq, entry.step, exc)
        return []
