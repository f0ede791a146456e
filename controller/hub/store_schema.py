"""The hub store's tables, how an older store is brought up to date, and how a stored
state is read back (split from :mod:`controller.hub.store`, which owns the file)."""

from __future__ import annotations

import sqlite3
from enum import StrEnum
from typing import Any

from controller import strictjson
from controller.errors import KaeshiError
from controller.hall_protocol.checks import Reader, check_event
from controller.hall_protocol.protocol import ProtocolError, TableState, decode_state

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS tables (
    tbl INTEGER PRIMARY KEY,
    online INTEGER NOT NULL DEFAULT 0,
    state TEXT,                      -- the last state payload as received (JSON)
    last_seen REAL NOT NULL          -- hub wall time
);
CREATE TABLE IF NOT EXISTS games (
    tbl INTEGER NOT NULL,
    game TEXT NOT NULL,
    first_seen REAL NOT NULL,
    last_seq INTEGER NOT NULL,       -- every seq 1..last_seq is stored: the ack
    announced INTEGER NOT NULL DEFAULT 1, -- a state of the table named it (else: arbiter only)
    finished INTEGER NOT NULL DEFAULT 0,  -- its game_over is stored
    PRIMARY KEY (tbl, game)
);
CREATE TABLE IF NOT EXISTS announced (
    tbl INTEGER NOT NULL,
    game TEXT NOT NULL,
    PRIMARY KEY (tbl, game)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS events (
    tbl INTEGER NOT NULL,
    game TEXT NOT NULL,
    seq INTEGER NOT NULL,
    received REAL NOT NULL,
    wall REAL,
    event TEXT NOT NULL,
    board TEXT,                      -- the official position after it (NULL: not said)
    to_move TEXT,
    PRIMARY KEY (tbl, game, seq)
) WITHOUT ROWID;
DROP INDEX IF EXISTS events_by_game;
-- the first event of each game, by game id (a republished game is found by it); partial,
-- so no read of a table's events is ever planned through it
CREATE INDEX IF NOT EXISTS first_events ON events(game) WHERE seq=1;
CREATE TABLE IF NOT EXISTS game_states (
    tbl INTEGER NOT NULL,
    game TEXT NOT NULL,
    state TEXT NOT NULL,             -- the last state payload seen for this game
    PRIMARY KEY (tbl, game)
) WITHOUT ROWID;
"""
SCHEMA_VERSION = 1



class StoreError(KaeshiError):
    """A hub store that cannot be opened or written; names the file."""


class Added(StrEnum):
    STORED = "stored"
    DUPLICATE = "duplicate"
    GAP = "gap"
    #: A game the table never announced, beyond what it may open so: not stored, no ack.
    REFUSED = "refused"
    #: An event whose time is before its game's previous event: not stored, no ack.
    BACKWARDS = "backwards"
    #: Another table's game, republished: not stored, no ack.
    FOREIGN = "foreign"


class Refused(KaeshiError):
    """A state the store will not take, with the kind of trouble and why."""

    def __init__(self, kind: str, why: str) -> None:
        super().__init__(why)
        self.kind = kind


def add_columns(db: sqlite3.Connection) -> None:
    """A store made by an older hub gets the newer columns: the official position (NULL
    for the events it already holds: those are placed under the rules), and whether a
    game was announced (its games were all taken as announced) or finished."""
    have = {row[1] for row in db.execute("PRAGMA table_info(events)")}
    for column in ("board", "to_move"):
        if column not in have:
            db.execute(f"ALTER TABLE events ADD COLUMN {column} TEXT")
    have = {row[1] for row in db.execute("PRAGMA table_info(games)")}
    if "announced" not in have:
        db.execute("ALTER TABLE games ADD COLUMN announced INTEGER NOT NULL DEFAULT 1")
        db.execute("INSERT OR IGNORE INTO announced SELECT tbl, game FROM games")
    if "finished" not in have:
        db.execute("ALTER TABLE games ADD COLUMN finished INTEGER NOT NULL DEFAULT 0")
        db.execute("UPDATE games SET finished=1 WHERE EXISTS (SELECT 1 FROM events e "
                   "WHERE e.tbl=games.tbl AND e.game=games.game "
                   "AND e.event LIKE '%\"event\":\"game_over\"%')")


#: Nesting of a stored event (as the protocol's payloads).
MAX_EVENT_DEPTH = 5


def parse_state(table: int, state: str) -> tuple[TableState | None, str | None]:
    """A stored state, or None and why not: one an older hub let in is shown as
    "unreadable" until the table's next state replaces it."""
    try:
        return decode_state(state.encode("utf-8", "surrogatepass"), table,
                            f"stored state of table {table}"), None
    except ProtocolError as exc:
        return None, str(exc)[:200]


def read_event(seq: int, text: str) -> tuple[dict[str, Any] | None, str | None]:
    """A stored event as the protocol's reader takes it, or None and why not."""
    try:
        return check_event(Reader(f"stored event {seq}",
                                  strictjson.loads(text, MAX_EVENT_DEPTH))), None
    except (strictjson.StrictJSONError, ProtocolError) as exc:
        return None, f"event {seq}: {exc}"[:200]
