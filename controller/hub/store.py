"""The hub's own SQLite store: every table's events, last state and presence.

It is the hub's half of "nothing lost, nothing doubled": an event is stored under
its key (table, game, seq) only if it is the next one of its game, in the same
transaction that advances the game's acknowledged seq. A duplicate (a resend, or a
broker redelivering after a restart) changes nothing; an event after a gap is not
stored, so the acknowledged seq stays before the gap and the table sends again from
there. The file is in WAL mode: a committed event survives a SIGKILL of the hub at
once, and :meth:`HubStore.sync` puts it on the disk itself (surviving a power cut);
the hub calls it before it publishes acks, so it never acknowledges what a power cut
could take. One sync per batch of acks, not one per event, is what lets one hub take
a whole hall.

One store is shared by the MQTT thread (writes) and the web server (reads); a lock
keeps the connection to one user at a time, and every call is short. Every table's
presence and last state are also kept in memory, already parsed, as they are written:
the dashboard reads all of them several times a second, and re-reading and re-parsing
200 states from SQLite each time was most of its cost (and held the lock the MQTT
thread needs to store the next move).

What the store takes has passed the protocol's readers; the store adds what only it
can judge, against what it holds: a game's time never runs backwards, a game's first
event copied from another table's (same instant) is not this table's game, and a table
names at most ``max_games`` games. What an older hub let in and no reader takes now is
found when the store opens and kept apart (``unreadable``): the pages say so on that
table alone and serve everything else.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller import strictjson
from controller.hall_protocol.protocol import (
    EventMessage,
    GameKey,
    StoredEvent,
    TableState,
    TableStatus,
)
from controller.hub.store_games import MAX_GAMES, GameIndex
from controller.hub.store_games import UNANNOUNCED_MAX as UNANNOUNCED_MAX  # re-exported
from controller.hub.store_games import UNANNOUNCED_OPEN as UNANNOUNCED_OPEN
from controller.hub.store_schema import (
    SCHEMA,
    SCHEMA_VERSION,
    add_columns,
    parse_state,
    read_event,
)
from controller.hub.store_schema import Added as Added  # re-exported: the store's words
from controller.hub.store_schema import Refused as Refused
from controller.hub.store_schema import StoreError as StoreError


class HubStore:
    """The hub's SQLite store (see the module docstring for its guarantees)."""

    def __init__(self, path: str | Path, clock: Callable[[], float] = time.time,
                 max_games: int = MAX_GAMES) -> None:
        self.path = Path(path)
        self._clock = clock
        #: Stored values an older hub let in that no reader takes now, by (table, game)
        #: (game "" for the table's state): shown as "unreadable", never served.
        self.unreadable: dict[GameKey, str] = {}
        self._lock = threading.RLock()
        self._sync_lock = threading.Lock()
        self._sync_db: sqlite3.Connection | None = None
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(path), isolation_level=None, timeout=10,
                                       check_same_thread=False)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.executescript(SCHEMA)
            add_columns(self._db)
            self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)",
                             (str(SCHEMA_VERSION),))
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"{self.path}: cannot open the hub store ({exc})") from None
        if int(row[0]) != SCHEMA_VERSION:
            raise StoreError(f"{self.path}: hub store schema {row[0]} is not "
                             f"the supported {SCHEMA_VERSION}")
        self._games = GameIndex(
            self._db.execute("SELECT tbl, game, last_seq, announced, finished FROM games"),
            self._db.execute("SELECT tbl, game FROM announced"), max_games)
        # what an older hub let in is found once, when the store opens: every event
        # stored since passed the protocol's reader, so no read checks again
        self._bad_events: set[tuple[int, str, int]] = set()
        for t, g, seq, text in self._db.execute("SELECT tbl, game, seq, event FROM events"):
            if self._read_event(t, g, seq, text) is None:
                self._bad_events.add((t, g, seq))
        #: Every table's status as stored (the ``tables`` rows, parsed once).
        self._status: dict[int, TableStatus] = {
            r[0]: self._read_status(*r) for r in self._db.execute(
                "SELECT tbl, online, state, last_seen FROM tables")
        }

    def close(self) -> None:
        with self._lock:
            self._db.close()
        with self._sync_lock:
            if self._sync_db is not None:
                self._sync_db.close()

    # ------------------------------------------------------------------ writes
    def add_event(self, msg: EventMessage, received: float | None = None) -> Added:
        """Store ``msg`` if it is its game's next event; say what happened."""
        key = GameKey(msg.table, msg.game)
        received = self._clock() if received is None else received
        with self._lock:
            last = self._games.last.get(key)
            have = 0 if last is None else last
            if msg.seq <= have:
                return Added.DUPLICATE
            announced = key in self._games.announced
            if last is None and not announced and not self._games.may_open(msg.table):
                return Added.REFUSED
            if msg.seq != have + 1:
                return Added.GAP
            t = float(msg.event["t"])
            if last is not None and t < self._last_t(key, have):
                return Added.BACKWARDS  # a game's time never runs backwards
            if last is None and self._foreign(msg):
                return Added.FOREIGN
            over = msg.event.get("event") == "game_over"
            try:
                self._db.execute("BEGIN IMMEDIATE")
                if last is None:
                    self._db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?)",
                                     (msg.table, msg.game, received, msg.seq,
                                      int(announced), int(over)))
                else:
                    self._db.execute("UPDATE games SET last_seq=?, finished=finished OR ? "
                                     "WHERE tbl=? AND game=?",
                                     (msg.seq, int(over), msg.table, msg.game))
                self._db.execute(
                    "INSERT INTO events VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (msg.table, msg.game, msg.seq, received, msg.wall,
                     json.dumps(msg.event, separators=(",", ":")), msg.board, msg.to_move),
                )
                self._touch(msg.table, received)
                self._db.execute("COMMIT")
                old = self._status.get(msg.table)
                self._status[msg.table] = (
                    TableStatus(msg.table, True, None, received) if old is None
                    else dataclasses.replace(old, last_seen=received))
            except sqlite3.Error as exc:
                if self._db.in_transaction:
                    self._db.execute("ROLLBACK")
                raise StoreError(f"{self.path}: cannot store an event ({exc})") from None
            self._games.stored(key, msg.seq, over, t)
            return Added.STORED

    def _last_t(self, key: GameKey, seq: int) -> float:
        """The game time of the game's event ``seq`` (its last stored one)."""
        meta = self._games.meta.get(key)
        if meta is not None and meta.t is not None:
            return meta.t
        row = self._db.execute("SELECT event FROM events WHERE tbl=? AND game=? AND seq=?",
                               (key.table, key.game, seq)).fetchone()
        try:
            t = float(strictjson.loads(row[0])["t"]) if row is not None else 0.0
        except (strictjson.StrictJSONError, KeyError, TypeError, ValueError):
            t = 0.0  # unreadable: shown so elsewhere; it holds nothing back
        if meta is not None:
            meta.t = t
        return t

    def _foreign(self, msg: EventMessage) -> bool:
        """Whether ``msg``, the first event of a game at its table, is another table's
        first event of a game of that id, word for word and from the same instant: a
        game id belongs to the table that plays it (two tables may start games in the
        same second, and so share an id, but never with one same journaled instant)."""
        if msg.wall is None:
            return False  # no instant to tell two tables apart by: never taken for a copy
        text = json.dumps(msg.event, separators=(",", ":"))
        for (wall,) in self._db.execute(
                "SELECT wall FROM events WHERE game=? AND seq=1 AND tbl<>? AND event=?",
                (msg.game, msg.table, text)):
            if wall == msg.wall:
                return True
        return False

    @property
    def max_games(self) -> int:
        return self._games.max_games

    def may_announce(self, table: int, game: str) -> str | None:
        """Why table ``table`` may not name ``game`` in its state, or None (see
        :meth:`GameIndex.why_not_announce`)."""
        with self._lock:
            return self._games.why_not_announce(table, game)

    def announce(self, table: int, game: str) -> None:
        """Table ``table`` named ``game`` in its state: the game is its own, and public."""
        key = GameKey(table, game)
        with self._lock:
            if key in self._games.announced:
                return
            why = self.may_announce(table, game)
            if why is not None:
                raise Refused("games", why)
            self._write_many([
                ("INSERT OR IGNORE INTO announced VALUES (?, ?)", (table, game)),
                ("UPDATE games SET announced=1 WHERE tbl=? AND game=?", (table, game)),
            ])
            self._games.mark_announced(key)

    def unfinished(self, table: int, game: str) -> bool:
        """Whether events of ``game`` are stored and its game_over is not."""
        with self._lock:
            return self._games.unfinished(GameKey(table, game))

    def announced(self, table: int, game: str) -> bool:
        """Whether a state of the table named ``game`` (only such games are broadcast)."""
        with self._lock:
            return GameKey(table, game) in self._games.announced

    def set_state(self, state: TableState, payload: bytes, received: float | None = None
                  ) -> None:
        """Keep ``payload`` (already checked as ``state``) as the table's last state."""
        received = self._clock() if received is None else received
        with self._lock:
            why = self.may_announce(state.table, state.game)
            if why is not None:
                raise Refused("games", why)
            self._write_many([
                ("INSERT INTO tables(tbl, online, state, last_seen) VALUES (?, 1, ?, ?) "
                 "ON CONFLICT(tbl) DO UPDATE SET state=excluded.state, "
                 "last_seen=excluded.last_seen",
                 (state.table, payload.decode(), received)),
                ("INSERT OR REPLACE INTO game_states VALUES (?, ?, ?)",
                 (state.table, state.game, payload.decode())),
            ])
            self.announce(state.table, state.game)
            self.unreadable.pop(GameKey(state.table, ""), None)
            old = self._status.get(state.table)
            self._status[state.table] = TableStatus(
                state.table, True if old is None else old.online, state, received)

    def set_online(self, table: int, online: bool, received: float | None = None) -> None:
        received = self._clock() if received is None else received
        with self._lock:
            self._write(
                "INSERT INTO tables(tbl, online, state, last_seen) VALUES (?, ?, NULL, ?) "
                "ON CONFLICT(tbl) DO UPDATE SET online=excluded.online, "
                "last_seen=excluded.last_seen",
                (table, int(online), received),
            )
            old = self._status.get(table)
            self._status[table] = (TableStatus(table, online, None, received) if old is None
                                   else dataclasses.replace(old, online=online,
                                                            last_seen=received))

    def _touch(self, table: int, received: float) -> None:
        self._db.execute(
            "INSERT INTO tables(tbl, online, state, last_seen) VALUES (?, 1, NULL, ?) "
            "ON CONFLICT(tbl) DO UPDATE SET last_seen=excluded.last_seen",
            (table, received),
        )

    def _write(self, sql: str, params: tuple[Any, ...]) -> None:
        self._write_many([(sql, params)])

    def _write_many(self, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
            for sql, params in statements:
                self._db.execute(sql, params)
            self._db.execute("COMMIT")
        except sqlite3.Error as exc:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise StoreError(f"{self.path}: cannot write ({exc})") from None

    def sync(self) -> None:
        """Put every committed write on the disk (a WAL checkpoint syncs the log first).

        It runs on a connection of its own, so storing goes on while the disk works.
        """
        with self._sync_lock:
            try:
                if self._sync_db is None:
                    self._sync_db = sqlite3.connect(str(self.path), isolation_level=None,
                                                    timeout=10, check_same_thread=False)
                self._sync_db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.path}: cannot sync ({exc})") from None

    # ------------------------------------------------------------------- reads
    def last_seq(self, table: int, game: str) -> int:
        """The acknowledged seq: every event 1..this of the game is stored."""
        with self._lock:
            return self._games.last.get(GameKey(table, game), 0)

    def acks(self) -> dict[GameKey, int]:
        with self._lock:
            return dict(self._games.last)

    def tables(self) -> list[TableStatus]:
        """Every table ever heard of, by number."""
        with self._lock:
            return [self._status[t] for t in sorted(self._status)]

    def table(self, table: int) -> TableStatus | None:
        with self._lock:
            return self._status.get(table)

    def game_info(self, table: int, game: str) -> TableState | None:
        """The last state seen of one game (its players and round stay known after the
        table has moved on to its next game)."""
        with self._lock:
            row = self._db.execute(
                "SELECT state FROM game_states WHERE tbl=? AND game=?", (table, game)
            ).fetchone()
        if row is None:
            return None
        state, why = parse_state(table, row[0])
        if why is not None:
            self.unreadable.setdefault(GameKey(table, game), why)
        return state

    def events(self, table: int, game: str | None = None, after: int = 0
               ) -> list[StoredEvent]:
        """The stored events of one game in seq order; ``game=None``: all the table's
        games, oldest game first. ``after``: only seqs above it (with a game)."""
        with self._lock:
            if game is None:
                rows = self._db.execute(
                    "SELECT e.tbl, e.game, e.seq, e.received, e.event, e.wall, e.board, "
                    "e.to_move "
                    "FROM events e JOIN games g ON g.tbl=e.tbl AND g.game=e.game "
                    "WHERE e.tbl=? ORDER BY g.first_seen, e.game, e.seq", (table,)
                ).fetchall()
            else:
                rows = self._db.execute(
                    "SELECT tbl, game, seq, received, event, wall, board, to_move FROM events "
                    "WHERE tbl=? AND game=? AND seq>? ORDER BY seq", (table, game, after)
                ).fetchall()
        bad = self._bad_events
        return [StoredEvent(t, g, s, r, json.loads(e), w, b, m)
                for t, g, s, r, e, w, b, m in rows if not bad or (t, g, s) not in bad]

    def _read_event(self, table: int, game: str, seq: int, text: str
                    ) -> dict[str, Any] | None:
        """A stored event as the protocol's reader takes it; one an older hub let in
        that the reader refuses now is left out and its game marked unreadable."""
        event, why = read_event(seq, text)
        if why is not None:
            self.unreadable.setdefault(GameKey(table, game), why)
        return event

    def _read_status(self, table: int, online: int, state: str | None, last_seen: float
                     ) -> TableStatus:
        parsed, why = (None, None) if state is None else parse_state(table, state)
        if why is not None:
            self.unreadable[GameKey(table, "")] = why
        return TableStatus(table=table, online=bool(online), state=parsed,
                           last_seen=last_seen)

    def games(self, announced: bool | None = None) -> list[GameKey]:
        """Every (table, game) seen, in the order their first event arrived; ``announced``
        True: only games their table named in a state (False: only the others)."""
        where = "" if announced is None else f" WHERE announced={int(announced)}"
        with self._lock:
            rows = self._db.execute(
                f"SELECT tbl, game FROM games{where} ORDER BY first_seen, tbl, game"
            ).fetchall()
        return [GameKey(t, g) for t, g in rows]

    def count_events(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM events").fetchone()[0])
