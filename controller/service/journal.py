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

Opening checks the file (see :mod:`controller.service.salvage`): a damaged
database is moved aside and what can be read is copied into a fresh one; a
damaged WAL is copied aside before SQLite drops its unreadable part. Either way
:attr:`Journal.recovery` says what was recovered and what was not, for the
service to show. Nothing is ever dropped without a word.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError
from controller.service.salvage import inspect_wal, move_aside, salvage

log = logging.getLogger("kaeshi.service")

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    started REAL NOT NULL,          -- wall time (Unix seconds)
    finished REAL,                  -- wall time, NULL while the game is on
    info TEXT NOT NULL              -- JSON: players, mode, clock settings
);
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL REFERENCES games(id),
    step INTEGER NOT NULL,          -- entries of one step share this number
    kind TEXT NOT NULL,             -- input | event | clock | position | state | note
    t REAL NOT NULL,                -- service time of the game (seconds)
    wall REAL NOT NULL,             -- wall time when written
    data TEXT NOT NULL              -- JSON
);
CREATE INDEX IF NOT EXISTS entries_game ON entries(game, seq);
"""


class JournalError(KaeshiError):
    """A journal that cannot be opened or read; names the file."""


@dataclass(frozen=True, slots=True)
class Entry:
    seq: int
    step: int
    kind: str
    t: float
    wall: float
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class GameRow:
    id: str
    started: float
    finished: float | None
    info: dict[str, Any]


class Journal:
    """Append-only store of game steps; every :meth:`commit_step` is on disk when it returns."""

    def __init__(self, path: str | Path, check: bool = True, writer: bool = True) -> None:
        """Open the journal at ``path``; ``writer=False`` opens it to read beside the
        running service: no lock, no damage check (that is the writer's to do)."""
        self.path = Path(path)
        #: What opening found and did about damage, one sentence each ([] when clean).
        self.recovery: list[str] = []
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
        # One journal, one writer: taken before anything reads, checks or moves the file,
        # so a second process can neither interleave its steps nor "repair" a live file.
        self._lock = hold_lock(self.path) if writer else None
        try:
            self._open(check and writer)
        except BaseException:
            self._release()
            raise

    def _open(self, check: bool) -> None:
        existed = self.path.exists()
        if existed:
            _refuse_foreign(self.path)
            if check:
                self._check_wal()
        try:
            self._db = self._connect()
            problem = self._quick_check() if check and existed else ""
            if problem:
                self._db.close()
        except sqlite3.DatabaseError as exc:
            if not (check and existed and _is_damage(exc)):
                # locked, no permission, read-only storage: the file may be fine, so it
                # is never moved aside for that
                raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
            problem = str(exc)
        if problem:
            self._recover(problem)
        self._step = self._last_step()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
        try:
            mode = db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            db.execute("PRAGMA synchronous=FULL")
            db.executescript(_SCHEMA)
            # OR IGNORE: another process (a second reader) may be creating it just now
            db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)",
                (str(SCHEMA_VERSION),),
            )
            row = db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        except sqlite3.Error as exc:
            db.close()
            raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
        if str(mode).lower() != "wal":
            db.close()
            raise JournalError(f"{self.path}: the file system does not allow WAL mode")
        if str(row[0]) != str(SCHEMA_VERSION):
            db.close()
            raise JournalError(
                f"{self.path}: journal schema {row[0]} is not the supported {SCHEMA_VERSION}"
            )
        return db

    def _quick_check(self) -> str:
        rows = self._db.execute("PRAGMA quick_check").fetchall()
        found = [" ".join(str(r[0]).split()) for r in rows if str(r[0]) != "ok"]
        return "; ".join(found[:3]) + (" ..." if len(found) > 3 else "")

    def _check_wal(self) -> None:
        """Copy a WAL aside when SQLite would drop part of it; say what is dropped."""
        wal = Path(f"{self.path}-wal")
        report = inspect_wal(wal)
        if report is None or not report.dropped_bytes:
            return
        if not report.damaged:
            # Frames past the last commit: a step cut short by a crash (never confirmed,
            # so never shown), or a file cut at its end. The content cannot tell them
            # apart; moves are checkpointed, so either way at most the readings since
            # the last move are dropped, and the next reading shows the board again.
            log.warning("%s: %d bytes after the last whole step are dropped (a step cut "
                        "short by a crash, or a file cut short)", wal, report.dropped_bytes)
            return
        kept = wal.with_name(f"{wal.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
        shutil.copyfile(wal, kept)
        self.recovery.append(
            f"the write-ahead log {wal.name} is damaged ({report.detail}): "
            f"{report.committed} frames of whole steps recovered, {report.dropped_frames} "
            f"frames ({report.dropped_bytes} bytes) could not be used; a copy is kept as "
            f"{kept}"
        )

    def _recover(self, problem: str) -> None:
        """The database is damaged: move it aside, start a fresh file, copy back what reads."""
        kept = move_aside(self.path)
        try:
            self._db = self._connect()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: cannot create a new journal ({exc})") from None
        report = salvage(kept, self._db)
        self.recovery.append(f"the journal {self.path.name} was damaged ({problem}): "
                             f"{report.describe()}")

    def close(self) -> None:
        with _suppress_sqlite():
            self._db.close()
        self._release()

    def _release(self) -> None:
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
        self._write(
            "INSERT INTO games(id, started, finished, info) VALUES (?, ?, NULL, ?)",
            (game_id, wall, json.dumps(info)),
        )
        self.checkpoint()
        return GameRow(game_id, wall, None, info)

    def finish_game(self, game_id: str, wall: float | None = None) -> None:
        self._write("UPDATE games SET finished=? WHERE id=?",
                    (time.time() if wall is None else wall, game_id))
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
        self._step += 1
        rows = [
            (game_id, self._step, kind, t, wall, json.dumps(data, separators=(",", ":")))
            for kind, data in items
        ]
        try:
            self._db.execute("BEGIN IMMEDIATE")
            self._db.executemany(
                "INSERT INTO entries(game, step, kind, t, wall, data) VALUES (?,?,?,?,?,?)",
                rows,
            )
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                with _suppress_sqlite():
                    self._db.execute("ROLLBACK")
            self._step -= 1
            raise JournalError(f"{self.path}: cannot write the journal ({exc})") from None
        return self._step

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


def _is_damage(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file's contents are damaged (not merely unreachable)."""
    text = str(exc).lower()
    if not isinstance(exc, sqlite3.OperationalError):
        return True
    return any(w in text for w in ("malformed", "not a database", "corrupt"))


def lock_path(path: Path) -> Path:
    """The lock file beside a journal (``<name>.lock``)."""
    return path.with_name(f"{path.name}.lock")


def hold_lock(path: Path) -> Any:
    """Take the journal's exclusive lock (``flock`` on its lock file) and write our PID in it.

    The kernel drops the lock with the process, so a killed service never leaves a
    stale lock behind; the PID in the file is only there to name the holder.
    """
    where = lock_path(path)
    try:
        f = open(where, "a+", encoding="ascii")
    except OSError as exc:
        raise JournalError(f"{path}: cannot open the journal's lock file {where} ({exc})") from None
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.seek(0)
        holder = f.read(32).strip()
        f.close()
        who = f"process {holder}" if holder.isdigit() else "another process"
        raise JournalError(
            f"{path}: the journal is in use by {who} (lock {where}); one journal has one "
            "writer: stop that process, or give this one another journal.path") from None
    f.seek(0)
    f.truncate()
    f.write(f"{os.getpid()}\n")
    f.flush()
    return f


def _refuse_foreign(path: Path) -> None:
    """A file that is no SQLite database at all is somebody else's: never move it aside."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as exc:
        raise JournalError(f"{path}: cannot open the journal ({exc})") from None
    if head and not b"SQLite format 3\x00".startswith(head[:16]):
        raise JournalError(f"{path}: cannot open the journal (the file is not an SQLite "
                           "database; is journal.path pointing at another file?)")


def _suppress_sqlite() -> Any:
    import contextlib

    return contextlib.suppress(sqlite3.Error)
