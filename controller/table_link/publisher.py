"""The table's side of the hall link: the journal is the outbox.

Every ``event`` and ``clock`` entry of a game's journal is one event message,
numbered 1, 2, ... in journal order; the number is fixed by the journal, so a
table that reboots numbers its events exactly as before. The publisher sends them
at QoS 1 and remembers, in a small file beside the journal, the seq the hub last
acknowledged for each game. Whenever the link comes back (a reconnect, the hub's
``online`` flag turning to 1, an ack asking for a resend, or no ack progress for
``resend_after`` seconds, doubling up to a minute while the hub stays behind) it
sends again everything after that seq; the hub drops what it already has.

All of it runs on its own thread with its own connection to the journal file: a
missing broker, a slow network or a bug here never touches play.
"""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller.hall_protocol.mqtt import BrokerSettings, make_client
from controller.hall_protocol.protocol import (
    OFFLINE,
    ONLINE,
    DownlinkCommand,
    ProtocolError,
    TableState,
    decode_ack,
    decode_command,
    decode_online,
    encode_event,
    encode_state,
)
from controller.hall_protocol.topics import Topics
from controller.table_link.journal_events import PUBLISHED_KINDS, journal_messages

log = logging.getLogger("kaeshi.hub")

_OUTBOX_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS acks (
    game TEXT PRIMARY KEY,
    acked INTEGER NOT NULL,         -- the hub has stored 1..acked
    done INTEGER NOT NULL DEFAULT 0 -- finished and all acknowledged: never looked at again
);
"""


@dataclass(frozen=True, slots=True)
class LinkSettings:
    broker: BrokerSettings
    table: int
    event: str
    #: Events sent ahead of the hub's ack; bounds what a dead link queues in memory.
    window: int = 256
    #: Seconds without ack progress before the unacknowledged events are sent again.
    resend_after: float = 3.0
    #: Seconds between looks at the journal when nobody said it changed.
    poll: float = 0.25
    #: A state that differs only in the board under a hand or the clock's reading is
    #: published at most this often; a new event, service state or pause goes at once.
    state_interval: float = 1.0


def outbox_path(journal: str | Path) -> Path:
    journal = Path(journal)
    return journal.with_name(journal.name + ".hub")


@dataclass
class _Game:
    id: str
    acked: int = 0
    next: int = 1  # the next seq to send
    progress: float = 0.0  # monotonic time the ack last moved (or we last rewound)
    backoff: float = 0.0  # seconds without progress before the next resend (0: initial)
    #: Journal row ids of the game's published entries: rows[i] is event seq i + 1.
    rows: list[int] = dataclasses.field(default_factory=list)


class TablePublisher:
    """Publishes one table's journal, state and presence; receives its downlink."""

    def __init__(
        self, settings: LinkSettings, journal: str | Path, *,
        on_command: Callable[[DownlinkCommand], None] | None = None,
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings = settings
        self.topics = Topics(settings.event)
        self.journal_path = Path(journal)
        self.on_command = on_command
        self._mono = monotonic
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._games: dict[str, _Game] = {}
        self._done: set[str] = set()  # games finished and wholly acknowledged
        self._since = 0.0  # games started before this (wall time) are not the hall's
        self._acks: list[tuple[str, int, bool]] = []  # from the MQTT thread
        self._rewind = False
        self._state: TableState | None = None
        self._state_sent: TableState | None = None
        self._state_key: tuple[Any, ...] | None = None
        self._state_at = 0.0
        self._seen_commands: deque[str] = deque(maxlen=512)
        self.connected = threading.Event()
        #: Journaled events the hub has not acknowledged (-1: not known yet).
        self.outstanding = -1
        self.stats = {"published": 0, "resends": 0, "commands": 0, "dropped": 0}
        n = settings.table
        self.client = make_client(settings.broker, f"kaeshi-{settings.event}-table-{n}",
                                  clean_session=False)
        self.client.will_set(self.topics.online(n), OFFLINE, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message

    # --------------------------------------------------------------- lifecycle
    def start(self) -> None:
        self.client.connect_async(self.settings.broker.host, self.settings.broker.port,
                                  keepalive=10)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name="hub-outbox", daemon=True)
        self._thread.start()

    def stop(self, drain: float = 3.0) -> None:
        """Wait up to ``drain`` seconds for the hub to acknowledge everything journaled
        (while connected), then say offline and disconnect."""
        deadline = self._mono() + drain
        while (self.connected.is_set() and self.outstanding != 0
               and self._mono() < deadline):
            self._wake.set()
            time.sleep(0.05)
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self.client.is_connected():
            info = self.client.publish(self.topics.online(self.settings.table), OFFLINE,
                                       qos=1, retain=True)
            try:
                info.wait_for_publish(timeout=1)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    def wake(self) -> None:
        """The journal has new entries (called after each step; cheap, any thread)."""
        self._wake.set()

    def set_state(self, state: TableState) -> None:
        """The table's latest state; published (retained) by the outbox thread."""
        with self._lock:
            self._state = state
        self._wake.set()

    def acked(self, game: str) -> int:
        g = self._games.get(game)
        return 0 if g is None else g.acked

    # --------------------------------------------------------------- callbacks
    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object,
                    reason: mqtt.ReasonCode, props: object = None) -> None:
        if reason.is_failure:
            log.error("broker refused table %d: %s", self.settings.table, reason)
            return
        n = self.settings.table
        client.subscribe([(t, 1) for t in self.topics.table_subscriptions(n)])
        client.publish(self.topics.online(n), ONLINE, qos=1, retain=True)
        with self._lock:
            self._rewind = True
            self._state_sent = self._state_key = None  # the broker may have lost it
        self.connected.set()
        self._wake.set()
        log.info("table %d connected to the hall broker", n)

    def _on_disconnect(self, client: mqtt.Client, userdata: object, flags: object,
                       reason: mqtt.ReasonCode, props: object = None) -> None:
        self.connected.clear()
        if not self._stop.is_set():
            log.warning("table %d lost the hall broker (%s)", self.settings.table, reason)

    def _on_message(self, client: mqtt.Client, userdata: object,
                    msg: mqtt.MQTTMessage) -> None:
        n = self.settings.table
        try:
            if msg.topic == self.topics.ack(n):
                if msg.payload:
                    ack = decode_ack(bytes(msg.payload), msg.topic)
                    with self._lock:
                        self._acks.append((ack.game, ack.seq, ack.resend))
                    self._wake.set()
            elif msg.topic == self.topics.hub_online:
                if msg.payload and decode_online(bytes(msg.payload), msg.topic):
                    with self._lock:
                        self._rewind = True  # a hub back from a restart: send again
                    self._wake.set()
            elif msg.topic == self.topics.down(n):
                self._command(decode_command(bytes(msg.payload), msg.topic))
            else:
                raise ProtocolError(f"{msg.topic}: not a topic of table {n}")
        except ProtocolError as exc:
            self.stats["dropped"] += 1
            log.warning("table %d dropped a message: %s", n, exc)
        except Exception:  # never let a downlink bug stop the link
            self.stats["dropped"] += 1
            log.exception("table %d: message on %s failed", n, msg.topic)

    def _command(self, cmd: DownlinkCommand) -> None:
        if cmd.id in self._seen_commands:
            return  # a QoS 1 redelivery
        self._seen_commands.append(cmd.id)
        self.stats["commands"] += 1
        log.info("table %d: hub says %s %s", self.settings.table, cmd.command, cmd.args)
        if self.on_command is not None:
            self.on_command(cmd)

    # ---------------------------------------------------------------- outbox
    def _run(self) -> None:
        db: sqlite3.Connection | None = None
        box: sqlite3.Connection | None = None
        while not self._stop.is_set():
            self._wake.wait(self.settings.poll)
            self._wake.clear()
            try:
                if db is None:
                    db, box = self._open()
                    if db is None:
                        continue
                assert box is not None
                self._pump(db, box)
            except sqlite3.Error as exc:
                log.warning("table %d outbox: %s", self.settings.table, exc)
                for c in (db, box):
                    if c is not None:
                        c.close()
                db = box = None
                self._stop.wait(1.0)
            except Exception:
                log.exception("table %d outbox failed", self.settings.table)
                self._stop.wait(1.0)
        for c in (db, box):
            if c is not None:
                c.close()

    def _open(self) -> tuple[sqlite3.Connection | None, sqlite3.Connection | None]:
        if not self.journal_path.exists():
            return None, None
        db = sqlite3.connect(self.journal_path, timeout=5)  # only ever read
        box = sqlite3.connect(outbox_path(self.journal_path), isolation_level=None, timeout=5)
        box.execute("PRAGMA journal_mode=WAL")
        # a lost ack costs a resend, never an event: no sync per ack
        box.execute("PRAGMA synchronous=NORMAL")
        box.executescript(_OUTBOX_SCHEMA)
        if box.execute("SELECT value FROM meta WHERE key='since'").fetchone() is None:
            # games from the moment the table joined the hall; older home games stay home
            row = db.execute("SELECT MIN(started) FROM games WHERE finished IS NULL").fetchone()
            since = row[0] if row and row[0] is not None else time.time()
            box.execute("INSERT INTO meta VALUES ('since', ?)", (repr(since),))
        for game, acked, done in box.execute("SELECT game, acked, done FROM acks"):
            self._games[game] = _Game(game, acked, acked + 1, self._mono())
            if done:
                self._done.add(game)
        self._since = float(box.execute("SELECT value FROM meta WHERE key='since'").fetchone()[0])
        return db, box

    def _pump(self, db: sqlite3.Connection, box: sqlite3.Connection) -> None:
        now = self._mono()
        with self._lock:
            acks, self._acks = self._acks, []
            rewind, self._rewind = self._rewind, False
            state = self._state
        for game_id, seq, resend in acks:
            g = self._game(game_id, box, now)
            if resend or seq > g.acked:
                g.acked = seq if resend else max(g.acked, seq)
                g.progress, g.backoff = now, 0.0
                box.execute("UPDATE acks SET acked=? WHERE game=?", (g.acked, game_id))
            g.next = g.acked + 1 if resend else max(g.next, g.acked + 1)
            if resend:
                self.stats["resends"] += 1
        if not self.connected.is_set():
            return
        if state is not None and (self._state_sent is None
                                  or self._state_sent.game != state.game):
            # a game the hub has not heard named on this connection (a new game, or
            # the broker lost the retained state): its state goes before its events,
            # so the hub never takes an honest table's game for one it invented
            self.client.publish(self.topics.state(self.settings.table), encode_state(state),
                                qos=1, retain=True)
        done = self._done
        games = db.execute(
            "SELECT id, finished FROM games WHERE started>=? ORDER BY started", (self._since,)
        ).fetchall()
        totals: dict[str, int] = {}
        outstanding = 0
        # the latest game is never put aside: after its end the players still press
        # (their signatures of the result, rule 15), and each press is journaled
        latest = games[-1][0] if games else None
        for game_id, finished in games:
            if game_id in done and game_id != latest:
                continue
            g = self._game(game_id, box, now)
            wait = g.backoff or self.settings.resend_after
            if rewind or (g.next - 1 > g.acked and now - g.progress > wait):
                if g.next - 1 > g.acked:
                    self.stats["resends"] += 1
                    if not rewind:  # a slow hub is not helped by a flood: back off
                        g.backoff = min(wait * 2, 60.0)
                g.next, g.progress = g.acked + 1, now
            total = self._send(db, g)
            totals[game_id] = total
            outstanding += max(0, total - g.acked)
            if finished is not None and g.acked >= total and game_id != latest:
                box.execute("UPDATE acks SET done=1 WHERE game=?", (game_id,))
                done.add(game_id)
        self.outstanding = outstanding
        if state is not None and state != self._state_sent:
            seq = totals.get(state.game, state.seq)
            key = (state.game, seq, state.service, state.clock and state.clock.paused,
                   state.to_move, state.result, len(state.irregularities))
            if key != self._state_key or now - self._state_at >= self.settings.state_interval:
                self.client.publish(self.topics.state(self.settings.table),
                                    encode_state(dataclasses.replace(state, seq=seq)),
                                    qos=1, retain=True)
                self._state_sent, self._state_key, self._state_at = state, key, now

    def _game(self, game_id: str, box: sqlite3.Connection, now: float) -> _Game:
        g = self._games.get(game_id)
        if g is None:
            g = self._games[game_id] = _Game(game_id, 0, 1, now)
            box.execute("INSERT OR IGNORE INTO acks(game, acked) VALUES (?, 0)", (game_id,))
        return g

    def _send(self, db: sqlite3.Connection, g: _Game) -> int:
        """Send the game's next events within the window; return its journaled total.

        Only journal rows not seen before are read (the journal is append-only), so a
        look costs the same at move 60 as at move 1.
        """
        kinds = ",".join(f"'{k}'" for k in PUBLISHED_KINDS)
        after = g.rows[-1] if g.rows else 0
        g.rows.extend(r[0] for r in db.execute(
            f"SELECT seq FROM entries WHERE game=? AND seq>? AND kind IN ({kinds}) "
            "ORDER BY seq", (g.id, after)))
        total = len(g.rows)
        budget = min(total - (g.next - 1), g.acked + self.settings.window - (g.next - 1))
        if budget <= 0:
            return total
        msgs = journal_messages(db, self.settings.table, g.id, g.rows[g.next - 1], g.next,
                                budget)
        if g.next - 1 == g.acked:
            g.progress = self._mono()  # nothing was outstanding: the resend timer starts now
        topic = self.topics.events(self.settings.table)
        for msg in msgs:
            self.client.publish(topic, encode_event(msg), qos=1)
            g.next += 1
            self.stats["published"] += 1
        return total
