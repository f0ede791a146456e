"""The journal's tables and its rows as the service reads them: one definition for the
writer, the reader beside the running service and the recovery that rebuilds a file."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.service.journal_files import JournalError
from controller.service.rows import has_crc

SCHEMA_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    started REAL NOT NULL,          -- wall time (Unix seconds)
    finished REAL,                  -- wall time, NULL while the game is on
    info TEXT NOT NULL,             -- JSON: players, mode, clock settings
    crc INTEGER                     -- CRC-32 of the row (controller.service.rows)
);
CREATE TABLE IF NOT EXISTS entries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    game TEXT NOT NULL REFERENCES games(id),
    step INTEGER NOT NULL,          -- entries of one step share this number
    kind TEXT NOT NULL,             -- input | event | clock | position | state | note
    t REAL NOT NULL,                -- service time of the game (seconds)
    wall REAL NOT NULL,             -- wall time when written
    data TEXT NOT NULL,             -- JSON
    crc INTEGER                     -- CRC-32 of the row (controller.service.rows)
);
CREATE INDEX IF NOT EXISTS entries_game ON entries(game, seq);
"""


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


def connect(path: Path) -> sqlite3.Connection:
    """Open (creating if need be) a journal database in WAL mode with full syncs.

    A damaged file raises :class:`sqlite3.DatabaseError` for the caller to recover;
    anything else that stops it is a :class:`JournalError` naming the file."""
    db = sqlite3.connect(path, isolation_level=None, timeout=10)
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
        for table in ("games", "entries"):  # journals written before row checksums
            if not has_crc(db, table):
                db.execute(f"ALTER TABLE {table} ADD COLUMN crc INTEGER")
    except sqlite3.DatabaseError:
        db.close()
        raise
    except sqlite3.Error as exc:
        db.close()
        raise JournalError(f"{path}: cannot open the journal ({exc})") from None
    if str(mode).lower() != "wal":
        db.close()
        raise JournalError(f"{path}: the file system does not allow WAL mode")
    if str(row[0]) != str(SCHEMA_VERSION):
        db.close()
        raise JournalError(
            f"{path}: journal schema {row[0]} is not the supported {SCHEMA_VERSION}"
        )
    return db
