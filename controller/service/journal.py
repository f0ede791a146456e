"""The journal: an SQLite file in WAL mode holding everything needed to resume a game.

What is stored are the *inputs* of the pure core — observations, clock presses,
arbiter actions — each with the service time it happened at, plus what the core
said about them (events, clock states) for display and checking. Resuming replays
the inputs through a fresh arbiter and clock: the models are pure, so the same
inputs give the same position and clocks, and no move can be lost or doubled.

One step (an input and everything it caused) is one transaction, committed with
``synchronous=FULL`` before anything is shown, so after a crash a step is either
wholly in the journal or not at all.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError

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
    kind TEXT NOT NULL,             -- input | event | clock | state | note
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

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, isolation_level=None, timeout=10)
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            # OR IGNORE: another process (a second reader) may be creating it just now
            self._db.execute(
                "INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', ?)",
                (str(SCHEMA_VERSION),),
            )
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except sqlite3.DatabaseError as exc:
            raise JournalError(f"{self.path}: cannot open the journal ({exc})") from None
        if str(mode).lower() != "wal":
            raise JournalError(f"{self.path}: the file system does not allow WAL mode")
        if int(row[0]) != SCHEMA_VERSION:
            raise JournalError(
                f"{self.path}: journal schema {row[0]} is not the supported {SCHEMA_VERSION}"
            )
        self._step = self._last_step()

    def close(self) -> None:
        self._db.close()

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
        self._db.execute(
            "INSERT INTO games(id, started, finished, info) VALUES (?, ?, NULL, ?)",
            (game_id, wall, json.dumps(info)),
        )
        return GameRow(game_id, wall, None, info)

    def finish_game(self, game_id: str, wall: float | None = None) -> None:
        self._db.execute(
            "UPDATE games SET finished=? WHERE id=?",
            (time.time() if wall is None else wall, game_id),
        )

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
