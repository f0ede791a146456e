"""The journal: an SQLite file in WAL mode holding everything needed to resume a game.

What is stored are the *inputs* of the pure core — observations, clock presses,
arbiter actions — each with the service time it happened at, plus what the core
said about them (events, clock states) for display and checking. Resuming replays
the inputs through a fresh arbiter and clock: the models are pure, so the same
inputs give the same position and clocks, and no move can be lost or doubled.

One step (an input and everything it caused) is one transaction, committed with
``synchronous=FULL`` before anything is shown, so after a crash a step is either
wholly in the journal or not at all. The service follows each step that carries
events (a move, a flag) with :meth:`Journal.checkpoint`, once it is shown, so the
database file itself holds every move and a lost or damaged ``-wal`` can cost at
most the move in progress.

One journal has one writer: opening takes an exclusive lock first (see
:mod:`controller.service.journal_files`). Every row carries a CRC-32
(:mod:`controller.service.rows`), and each step records the boot clock
(:mod:`controller.service.bootclock`) so an outage can be measured on it.

Opening checks the file (see :mod:`controller.service.salvage`): a damaged
database is moved aside and what is whole is copied into a fresh one; a damaged
WAL is copied aside before SQLite drops its unreadable part. Either way
:attr:`Journal.recovery` says what was recovered and what was not, for the
service to show. Nothing is ever dropped without a word.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from controller.service import bootclock
from controller.service.bootclock import BootStamp
from controller.service.journal_files import (
    FileLock,
    JournalError,
    complete,
    hold_lock,
    inspect,
    lock_file,
    meta,
    recovering,
    refuse_foreign,
    remove_db,
    sync_dir,
)
from controller.service.journal_schema import Entry, GameRow, connect
from controller.service.rows import entry_crc, game_crc
from controller.service.salvage import aside_name, keep_damaged_wal, move_aside, salvage

log = logging.getLogger("kaeshi.service")

class Journal:
    """Append-only store of game steps; every :meth:`commit_step` is on disk when it returns."""

    def __init__(self, path: str | Path, check: bool = True, writer: bool = True,
                 boot_clock: Callable[[], BootStamp] = bootclock.now) -> None:
        """Open the journal at ``path``; ``writer=False`` opens it to read beside the
        running service: no lock, no damage check (that is the writer's to do).
        ``boot_clock`` stamps every step (see :meth:`last_stamp`)."""
        self.path = Path(path)
        self._boot_clock = boot_clock
        #: What opening found and did about damage, one sentence each ([] when clean).
        self.recovery: list[str] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
        # One journal, one writer: taken before anything reads, checks or moves the file,
        # so a second process can neither interleave its steps nor "repair" a live file.
        self._writer = writer
        self._lock = hold_lock(self.path) if writer else None
        self._file_lock: FileLock | None = None
        try:
            # the file itself too, before it is read: another name of it (a hard link)
            # has another lock file, never another inode
            self._file_lock = lock_file(self.path) if writer else None
            self._open(check and writer)
            if writer:  # created now, or swapped in by a recovery: lock the file in place
                self._file_lock = lock_file(self.path, self._file_lock)
        except BaseException:
            self._release()
            raise

    def _open(self, check: bool) -> None:
        existed = self.path.exists()
        if not existed and recovering(self.path).exists() and complete(self.path):
            self._finish_recovery()  # killed after the damaged file was moved aside
            self._step = self._last_step()
            return
        if existed:
            refuse_foreign(self.path)
        problem = ""
        if check and existed:
            note = keep_damaged_wal(self.path)
            if note:
                self.recovery.append(note)
            # Checked through a read-only connection, which can neither checkpoint nor
            # rewrite anything: if the file is damaged, the bytes kept aside as evidence
            # are the ones found, main file and write-ahead log alike.
            problem = inspect(self.path)
        if problem:
            self._recover(problem)
        else:
            try:
                self._db = connect(self.path)
            except sqlite3.DatabaseError as exc:
                raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
            self._recovery_note()
        self._step = self._last_step()

    def _recover(self, problem: str) -> None:
        """The database is damaged: copy what is whole into a fresh file, then swap.

        The fresh journal is built beside it (``<name>.recovering``) and only a
        complete one takes the journal's place, after the damaged file is renamed
        aside with its ``-wal``: a recovery killed at any moment leaves either the
        damaged journal in place (and is begun again) or the recovered one complete
        (and is finished by :meth:`_finish_recovery`), never a partial journal.
        """
        tmp = recovering(self.path)
        remove_db(tmp)  # a recovery cut short earlier is begun again
        kept = aside_name(self.path)
        try:
            fresh = connect(tmp)
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: cannot create a new journal ({exc})") from None
        report = salvage(self.path, fresh, kept_as=kept)
        note = f"the journal {self.path.name} was damaged ({problem}): {report.describe()}"
        fresh.executemany("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                          [("kept", str(kept)), ("recovered", note)])
        # out of WAL mode: the file alone is the whole journal, complete from here on
        # (while it is written, its -wal beside it marks it unfinished)
        fresh.execute("PRAGMA journal_mode=DELETE")
        fresh.close()
        move_aside(self.path, kept)
        self._finish_recovery()

    def _finish_recovery(self) -> None:
        """Put a complete recovered journal in place and say what it recovered."""
        tmp = recovering(self.path)
        kept = meta(tmp, "kept")
        for suffix in ("-wal", "-shm"):  # the damaged file's own, if a kill left them
            left = Path(f"{self.path}{suffix}")
            if left.exists():
                if kept is None:
                    raise JournalError(f"{self.path}: a recovery was cut short and left "
                                       f"{left}; move it away and start again")
                os.replace(left, Path(f"{kept}{suffix}"))
        os.replace(tmp, self.path)
        remove_db(tmp)  # a reader's empty -shm, if any
        sync_dir(self.path.parent)
        self._db = connect(self.path)
        self._recovery_note()

    def _recovery_note(self) -> None:
        """Say what a recovery recovered, once: it may have been killed before saying it."""
        if not self._writer:
            return  # the writer says it
        note = meta(self.path, "recovered", self._db)
        if note is not None:
            self.recovery.append(note)
            self._db.execute("DELETE FROM meta WHERE key IN ('recovered', 'kept')")

    def close(self) -> None:
        with _suppress_sqlite():
            self._db.close()
        self._release()

    def _release(self) -> None:
        if getattr(self, "_file_lock", None) is not None:
            assert self._file_lock is not None
            self._file_lock.close()
            self._file_lock = None
        if self._lock is not None:
            self._lock.close()  # closing the descriptor releases the lock
            self._lock = None

    def _last_step(self) -> int:
        row = self._db.execute("SELECT MAX(step) FROM entries").fetchone()
        return int(row[0] or 0)

    # -- games ---------------------------------------------------------------
    def unfinished_game(self) -> GameRow | None:
        row = self._db.execute(
            "SELECT id, started, finished, info FROM games WHERE finished IS NULL "
            "ORDER BY started DESC LIMIT 1"
        ).fetchone()
        return _game(row) if row else None

    def new_game(self, info: dict[str, Any], wall: float | None = None) -> GameRow:
        wall = time.time() if wall is None else wall
        stamp = time.strftime("%Y%m%d-%H%M%S", time.localtime(wall))
        game_id = stamp
        n = 1
        while self.game(game_id) is not None:
            n += 1
            game_id = f"{stamp}-{n}"
        text = json.dumps(info)
        self._write(
            "INSERT INTO games(id, started, finished, info, crc) VALUES (?, ?, NULL, ?, ?)",
            (game_id, wall, text, game_crc(game_id, wall, None, text)),
        )
        self.checkpoint()
        return GameRow(game_id, wall, None, info)

    def finish_game(self, game_id: str, wall: float | None = None) -> None:
        wall = time.time() if wall is None else wall
        try:
            row = self._db.execute("SELECT started, info FROM games WHERE id=?",
                                   (game_id,)).fetchone()
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot read the journal ({exc})") from None
        crc = None if row is None else game_crc(game_id, row[0], wall, row[1])
        self._write("UPDATE games SET finished=?, crc=? WHERE id=?", (wall, crc, game_id))
        self.checkpoint()

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        try:
            self._db.execute(sql, params)
        except sqlite3.Error as exc:
            raise JournalError(f"{self.path}: cannot write the journal ({exc})") from None

    def checkpoint(self) -> None:
        """Copy the WAL into the database file (passive: never waits for a reader)."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(PASSIVE)")
        except sqlite3.Error as exc:
            log.warning("%s: checkpoint failed (%s)", self.path, exc)

    def game(self, game_id: str) -> GameRow | None:
        row = self._db.execute(
            "SELECT id, started, finished, info FROM games WHERE id=?", (game_id,)
        ).fetchone()
        return _game(row) if row else None

    def games(self) -> list[GameRow]:
        rows = self._db.execute(
            "SELECT id, started, finished, info FROM games ORDER BY started"
        ).fetchall()
        return [_game(r) for r in rows]

    # -- entries -------------------------------------------------------------
    def commit_step(
        self, game_id: str, t: float, items: list[tuple[str, dict[str, Any]]],
        wall: float | None = None,
    ) -> int:
        """Write one step's entries in one synced transaction; return the step number."""
        wall = time.time() if wall is None else wall
        stamp = bootclock.stamp_text(self._boot_clock(), wall)
        self._step += 1
        rows = []
        for kind, data in items:
            text = json.dumps(data, separators=(",", ":"))
            rows.append((game_id, self._step, kind, t, wall, text,
                         entry_crc(game_id, self._step, kind, t, wall, text)))
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT INTO entries(game, step, kind, t, wall, data, crc) "
                "VALUES (?,?,?,?,?,?,?)",
                rows,
            )
            # the instant of the last step on the boot clock, in the same transaction
            self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('stamp', ?)",
                             (stamp,))
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                with _suppress_sqlite():
                    self._db.execute("ROLLBACK")
            self._step -= 1
            raise JournalError(f"{self.path}: cannot write the journal ({exc})") from None
        return self._step

    def last_stamp(self) -> tuple[BootStamp, float] | None:
        """The boot clock and wall clock of the last step written (None: not known, or
        damaged: a wrong figure must never be charged to a player)."""
        text = meta(self.path, "stamp", self._db)
        return None if text is None else bootclock.parse_stamp(text)

    def entries(self, game_id: str, kinds: tuple[str, ...] | None = None) -> Iterator[Entry]:
        query = "SELECT seq, step, kind, t, wall, data FROM entries WHERE game=?"
        params: list[Any] = [game_id]
        if kinds:
            query += f" AND kind IN ({','.join('?' * len(kinds))})"
            params.extend(kinds)
        query += " ORDER BY seq"
        for seq, step, kind, t, wall, data in self._db.execute(query, params):
            yield Entry(seq, step, kind, t, wall, json.loads(data))

    def last_entry(self, game_id: str) -> Entry | None:
        row = self._db.execute(
            "SELECT seq, step, kind, t, wall, data FROM entries WHERE game=? "
            "ORDER BY seq DESC LIMIT 1",
            (game_id,),
        ).fetchone()
        if row is None:
            return None
        seq, step, kind, t, wall, data = row
        return Entry(seq, step, kind, t, wall, json.loads(data))


def _game(row: tuple[Any, ...]) -> GameRow:
    game_id, started, finished, info = row
    return GameRow(game_id, started, finished, json.loads(info))


def _suppress_sqlite() -> Any:
    import contextlib

    return contextlib.suppress(sqlite3.Error)
