"""The journal side of the service: the journal it writes, and living with a write that fails.

A write that fails (a full disk, storage turned read-only) is a state, ``journal
failed``: the step is not shown, the core is rebuilt from what is on disk, play is
held, and a write is retried until one succeeds (the service's periodic tick, through
:meth:`~controller.service.lifecycle.GameLifecycle.retry_journal`). Resuming a game
from the journal is the lifecycle's (:mod:`controller.service.lifecycle`).
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from controller.events import Event
from controller.service.core import ActionRefused, GameCore, GameSettings
from controller.service.gametime import GameTime
from controller.service.journal import Entry, GameRow, Journal, JournalError
from controller.service.outputs import Outputs
from controller.service.states import State
from controller.service.table import Table

if TYPE_CHECKING:
    from pathlib import Path

log = logging.getLogger("kaeshi.service")


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


class JournalKeeper:
    """The journal and the ``journal failed`` state: why the journal cannot be written,
    since when, and what waits for it."""

    def __init__(self, table: Table, time: GameTime, outputs: Outputs) -> None:
        self.table = table
        self.time = time
        self.outputs = outputs
        self.journal: Journal | None = None
        #: Why the journal cannot be written (None while it can), and since when.
        self.problem: str | None = None
        self.failed_at = 0.0
        self.held = 0  # readings not taken while the journal failed
        self.ok: asyncio.Event | None = None  # set while writable; made on the loop

    def open(self, path: str | Path) -> Journal:
        try:
            self.journal = Journal(path, boot_clock=self.time.boot_clock)
        except OSError as exc:
            raise JournalError(f"{path}: {exc}") from None
        return self.journal

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()

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
        assert self.journal is not None
        core = GameCore(GameSettings.from_dict(game.info.get("settings", {})))
        for entry in self.journal.entries(game.id, ("input",)):
            apply_journaled(core, entry)
        return core

    def outage(self, last_wall: float) -> Outage:
        """How long the table was down, by the boot clock (None across a reboot or when
        the journal does not say) and by the wall clock (which may have been moved)."""
        assert self.journal is not None
        wall = self.time.wall_time() - last_wall
        stamp = self.journal.last_stamp()
        now = self.time.boot_clock()
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
        assert self.journal is not None and self.table.game is not None
        cursor = -1
        for entry in self.journal.entries(self.table.game.id, ("input",)):
            c = entry.data.get("cursor")
            if isinstance(c, int):
                cursor = max(cursor, c)
        return cursor + 1

    def down(self, problem: str, t: float) -> None:
        """A write failed: show nothing of it, rebuild the core from disk, hold play.

        The flag's timer may stay set: it declares nothing while play is held, and the
        step that stops the clock on recovery sets it afresh."""
        assert self.journal is not None and self.table.game is not None
        log.error("journal failed, play is held: %s", problem)
        core: GameCore | None = None
        try:
            core = self.replay_core(self.table.game)
        except (JournalError, sqlite3.Error, ValueError) as exc:
            log.error("cannot read the journal back either (%s): the last step shown may "
                      "not be recorded", exc)
        self.table.rebuilt(core)  # the next board is taken afresh
        self.hold(
            problem, t, f"JOURNAL FAILED ({problem}): play is held, nothing since "
            f"{t:.1f} s is recorded; free the storage and the service carries on")

    def hold(self, problem: str, t: float, message: str) -> None:
        """Enter ``journal failed`` from ``t``, telling the user ``message``: the
        journal is retried and replayed inputs wait for it.
        One place for every failed write, so each holds play the same way."""
        self.problem = problem
        self.failed_at = t
        if self.ok is not None:
            self.ok.clear()
        self.table.say(message)
        if self.table.states.state is not State.JOURNAL_FAILED:
            self.table.states.journal_failed(problem)
        self.table.take_pending_state()  # cannot be journaled now; the recovery note says it
        self.outputs.show()

    def written_again(self) -> bool:
        """Try a write; True once one succeeds, out of ``journal failed`` with game time
        going on from the failure (the caller stops the clock and tells)."""
        if self.problem is None or self.journal is None or self.table.game is None:
            return False
        note = {"journal": "written again", "failed": self.problem,
                "since": self.failed_at, "readings_not_taken": self.held}
        try:
            self.journal.commit_step(self.table.game.id, self.failed_at,
                                     [("note", note)], self.time.wall_time())
        except JournalError:
            return False
        log.warning("journal written again after: %s (%d readings not taken)",
                    self.problem, self.held)
        self.problem = None
        self.held = 0
        self.time.set_base(max(self.time.now(), self.failed_at))
        self.table.states.journal_back()
        return True

    def not_taken(self) -> None:
        """A reading came while play is held: counted in the recovery note."""
        self.held += 1

    def release(self) -> None:
        """Readings held for the journal may go on."""
        if self.ok is not None:
            self.ok.set()

    def note(self, data: dict[str, Any]) -> None:
        if self.journal is None or self.table.game is None:
            return
        items = [("note", data), *self.table.take_pending_state()]
        try:
            self.journal.commit_step(self.table.game.id, self.time.now(), items,
                                     self.time.wall_time())
        except JournalError as exc:
            self.down(str(exc), self.time.now())
        self.outputs.hub_changed()


def apply_journaled(core: GameCore, entry: Entry) -> list[Event]:
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
