"""The journal side of the service: resuming a game from it, and living with a write that fails.

Resuming replays the journaled inputs through a fresh pure core, so the position,
the clocks and the events come back exactly. A write that fails (a full disk,
storage turned read-only) is a state, ``journal failed``: the step is not shown,
the core is rebuilt from what is on disk, play is held, and a write is retried
until one succeeds (see :class:`~controller.service.timing.TimingMixin`).
"""

from __future__ import annotations

import logging
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.events import Event
from controller.service.core import ActionRefused, GameCore, GameSettings
from controller.service.journal import Entry, GameRow, JournalError
from controller.service.states import State

if TYPE_CHECKING:
    from controller.service.app import Service

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


class RecoveryMixin:
    """Resume and journal-fault methods of :class:`~controller.service.app.Service`."""

    def _log_signature(self: Service) -> dict[str, Any] | None:
        """The sim log's identity (path and size), so a finished replay is not redone."""
        if self._source is not None or self.config["source.kind"] != "sim":
            return None
        path = self._log_file or Path(self.config["source.log"])
        try:
            size = path.stat().st_size
        except OSError:
            return None
        return {"path": str(path.resolve()), "size": size}

    def _replayed_already(self: Service) -> GameRow | None:
        """The finished game that replayed this very log to its end, if the last one did."""
        sig = self._log_signature()
        if sig is None or self.journal is None:
            return None
        games = self.journal.games()
        last = games[-1] if games else None
        if last is not None and last.finished is not None and last.info.get("log") == sig:
            return last
        return None

    def _replay_core(self: Service, game: GameRow) -> GameCore:
        """A fresh core fed the journaled inputs of ``game``."""
        assert self.journal is not None
        core = GameCore(GameSettings.from_dict(game.info.get("settings", {})))
        for entry in self.journal.entries(game.id, ("input",)):
            _apply_journaled(core, entry)
        return core

    def _resume(self: Service, game: GameRow) -> None:
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
                events = _apply_journaled(core, entry)
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
        # the game's time goes on from its last input, not from a note written after
        # it (a note's time is the wall's, and would shift a resumed replay's times)
        last_t = core.t
        self.game, self.core = game, core
        self.events = replayed[-RECENT_EVENTS:]
        self.events_total = len(replayed)
        self._recent_boards = (boards[0], boards[1])
        policy = self.config["clock.resume"]
        down = self._outage(last_wall)
        charged = down.boot if policy == "charge" and down.boot is not None else 0.0
        base = last_t + charged * self._scale
        self._set_base(base)
        log.info("resumed game %s at %.1fs after %d moves (%s; policy %s)",
                 game.id, base, len(core.arbiter.moves), down.describe(), policy)
        self.message = f"resumed after an interruption: {down.describe()}"
        if policy == "charge":
            self.message += (f"; {charged:.1f} s charged to the side on move"
                             if down.boot is not None else "")
        if core.game_over:
            self._refresh_state()
            self._finish_game()  # the game ended just before the interruption
            return
        clock = core.clock
        unmeasured = policy == "charge" and down.boot is None
        if ((policy == "pause" or unmeasured) and clock is not None
                and clock.running is not None and not clock.paused):
            self._step({"action": "pause", "why": "restart"}, t=last_t)
            if unmeasured:
                # never charged silently: the arbiter sees both figures and decides
                self.message += ("; nothing charged (the outage cannot be measured on "
                                 "a clock that does not jump): clock paused until the "
                                 "arbiter adjusts it and resumes")
            else:
                self.message += "; clock paused until the arbiter resumes it"

    def _outage(self: Service, last_wall: float) -> Outage:
        """How long the table was down, by the boot clock (None across a reboot or when
        the journal does not say) and by the wall clock (which may have been moved)."""
        assert self.journal is not None
        wall = self._wall() - last_wall
        stamp = self.journal.last_stamp()
        now = self._boot_clock()
        if stamp is None or not now.boot or stamp[0].boot != now.boot:
            reason = ("the machine restarted" if stamp is not None and now.boot
                      and stamp[0].boot != now.boot else "the journal does not say when "
                      "the last step was on the boot clock")
            return Outage(None, wall, reason)
        boot = now.uptime - stamp[0].uptime
        if boot < 0:
            return Outage(None, wall, "the boot clock went backwards")
        return Outage(boot, wall, "")

    def resume_cursor(self: Service) -> int:
        """Where a replayable source should continue: after the last reading journaled."""
        assert self.journal is not None and self.game is not None
        cursor = -1
        for entry in self.journal.entries(self.game.id, ("input",)):
            c = entry.data.get("cursor")
            if isinstance(c, int):
                cursor = max(cursor, c)
        return cursor + 1

    def _journal_down(self: Service, problem: str, t: float) -> None:
        """A write failed: show nothing of it, rebuild the core from disk, hold play."""
        assert self.journal is not None and self.game is not None
        log.error("journal failed, play is held: %s", problem)
        self._cancel_flag()
        try:
            core = self._replay_core(self.game)
        except (JournalError, sqlite3.Error, ValueError) as exc:
            log.error("cannot read the journal back either (%s): the last step shown may "
                      "not be recorded", exc)
        else:
            self.core = core
        self._recent_boards = (None, None)  # the next board is taken afresh, never skipped
        self._hold_for_journal(
            problem, t, f"JOURNAL FAILED ({problem}): play is held, nothing since "
            f"{t:.1f} s is recorded; free the storage and the service carries on")

    def _hold_for_journal(self: Service, problem: str, t: float, message: str) -> None:
        """Enter ``journal failed`` from ``t``, telling the user ``message``: the
        journal is retried (:meth:`_journal_retry`) and replayed inputs wait for it.
        One place for every failed write, so each holds play the same way."""
        self.journal_problem = problem
        self._failed_at = t
        if self._journal_ok is not None:
            self._journal_ok.clear()
        self.message = message
        if self.states.state is not State.JOURNAL_FAILED:
            self.states.journal_failed(problem)
        self._pending_state = []  # cannot be journaled now; the recovery note says it
        self._show()

    def _journal_retry(self: Service) -> None:
        """Try a write; once one succeeds, leave ``journal failed`` with the clock stopped."""
        if self.journal_problem is None or self.journal is None or self.game is None:
            return
        note = {"journal": "written again", "failed": self.journal_problem,
                "since": self._failed_at, "readings_not_taken": self._held}
        try:
            self.journal.commit_step(self.game.id, self._failed_at, [("note", note)],
                                     self._wall())
        except JournalError:
            return
        log.warning("journal written again after: %s (%d readings not taken)",
                    self.journal_problem, self._held)
        self.journal_problem = None
        self._held = 0
        self._set_base(max(self.now(), self._failed_at))
        self.states.journal_back()
        self._refresh_state()
        core = self.core
        self.message = "the journal is written again"
        if (core is not None and core.clock is not None and core.clock.running is not None
                and not core.paused and not core.game_over):
            self._step({"action": "pause", "why": "journal"}, t=self._failed_at)
            self.message += "; the clock stands at the failure until the arbiter resumes it"
        elif core is not None and core.game_over and self._finish_pending:
            self._finish_game()
        else:
            self._journal_note({"journal": "recovered"})
        if self._journal_ok is not None:
            self._journal_ok.set()
        self._show()

    def _journal_note(self: Service, data: dict[str, Any]) -> None:
        if self.journal is None or self.game is None:
            return
        items = [("note", data), *self._pending_state]
        self._pending_state = []
        try:
            self.journal.commit_step(self.game.id, self.now(), items, self._wall())
        except JournalError as exc:
            self._journal_down(str(exc), self.now())
        if self.hub is not None:
            self.hub.changed()


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
