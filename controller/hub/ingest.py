"""The hub's MQTT side: take every table's uplink into the store, acknowledge, command.

Messages are handled on paho's network thread and stored *before* the callback
returns, so the broker's PUBACK (sent after it) never acknowledges an event the
hub could still lose; a hub killed in between gets the message again and the
store drops the duplicate. Each game's acknowledged seq is published, retained,
on the table's ``ack`` topic, at most every ``ack_interval`` seconds per game, so
the acks cost far fewer messages than the events (and one disk sync covers a
batch). An event after a gap is not stored and the ack goes out at once with
``resend`` set: the table sends again from the first missing seq.

A payload that breaks the protocol is logged and dropped; nothing a table sends
can stop the hub, nor cost the other tables their pace: each table has a message
budget checked before anything is decoded, the events of a game the table never
announced are refused beyond a few (see ``HubStore.add_event``) and never acknowledged,
a resend is asked at most once a second per table, and what a table did wrong is
counted for the arbiter and logged at most once per ten seconds per table and kind
(:mod:`controller.hub.admission`).
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Callable

import paho.mqtt.client as mqtt

from controller.hall_protocol.mqtt import BrokerSettings, make_client
from controller.hall_protocol.protocol import (
    OFFLINE,
    ONLINE,
    Ack,
    DownlinkCommand,
    GameKey,
    HubChange,
    ProtocolError,
    decode_event,
    decode_online,
    decode_state,
    encode_ack,
    encode_command,
)
from controller.hall_protocol.topics import Topics
from controller.hub.admission import Admission
from controller.hub.changes import ChangeFeed, Listener
from controller.hub.changes import HubBus as HubBus  # re-exported: the pages' word for it
from controller.hub.store import Added, HubStore, Refused, StoreError

log = logging.getLogger("kaeshi.hub")

#: Seconds a game stored before its table's state names it may stay unnamed before the
#: arbiter is told (a table's state follows its first events within a second or so).
UNNAMED_GRACE = 5.0


class Hub:
    """The running hub: an MQTT client feeding a :class:`HubStore`; a :class:`HubBus`."""

    def __init__(
        self, broker: BrokerSettings, event: str, store: HubStore, *,
        ack_interval: float = 0.25, clock: Callable[[], float] = time.time,
        client_id: str | None = None, tables: int = 0,
    ) -> None:
        self.topics = Topics(event)
        self.store = store
        self.broker = broker
        self.ack_interval = ack_interval
        self._clock = clock
        self._lock = threading.Lock()
        #: The stored changes on their way to the dashboard's listeners.
        self.changes = ChangeFeed()
        self._dirty: set[GameKey] = set()
        self._resend_asked: dict[int, float] = {}  # by table
        #: Games stored unannounced, and when: told to the arbiter if still unnamed later.
        self._unnamed: dict[GameKey, float] = {}
        #: Per-table budgets and what each table did wrong (read by the dashboard).
        self.admission = Admission()
        #: Tables 1..tables are listened to one by one (0: by wildcard), so a table that
        #: floods can be left unheard at the broker while the others are heard.
        self.tables = tables
        self._muted: dict[int, float] = {}  # table -> monotonic time it is heard again
        self._sub_pending: set[int | None] = set()  # subscriptions of this connection not acked
        self._mute_for: dict[int, tuple[float, float]] = {}  # table -> (seconds, when)
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._acker: threading.Thread | None = None
        self.connected = threading.Event()
        #: Counters for tests, logs and the benchmark.
        self.stats = {"stored": 0, "duplicate": 0, "gap": 0, "dropped": 0, "states": 0,
                      "refused": 0, "flood": 0, "backwards": 0, "foreign": 0, "games": 0}
        self.client = make_client(
            broker, client_id or f"kaeshi-hub-{event}", clean_session=False,
        )
        self.client.will_set(self.topics.hub_online, OFFLINE, qos=1, retain=True)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.client.on_subscribe = self._on_subscribe

    # --------------------------------------------------------------- lifecycle
    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Connect (in the background; retried for ever) and start acknowledging."""
        self.changes.loop = loop
        self.client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self.client.loop_start()
        self._acker = threading.Thread(target=self._ack_loop, name="hub-acks", daemon=True)
        self._acker.start()

    def stop(self) -> None:
        """Say goodbye (retained ``0``) and disconnect."""
        self._stop.set()
        self._wake.set()
        if self._acker is not None:
            self._acker.join(timeout=5)
        if self.client.is_connected():
            info = self.client.publish(self.topics.hub_online, OFFLINE, qos=1, retain=True)
            try:
                info.wait_for_publish(timeout=2)
            except (RuntimeError, ValueError):
                pass
        self.client.disconnect()
        self.client.loop_stop()

    # ---------------------------------------------------------------- HubBus
    def subscribe(self, callback: Listener) -> Callable[[], None]:
        return self.changes.subscribe(callback)

    def send(self, table: int, command: DownlinkCommand) -> None:
        payload = encode_command(command)
        self.client.publish(self.topics.down(table), payload, qos=1)
        log.info("table %d <- %s %s", table, command.command, command.args or "")

    # -------------------------------------------------------------- callbacks
    def _on_connect(self, client: mqtt.Client, userdata: object, flags: object,
                    reason: mqtt.ReasonCode, props: object = None) -> None:
        if reason.is_failure:
            log.error("broker refused the hub: %s", reason)
            return
        log.info("hub connected to %s:%d", self.broker.host, self.broker.port)
        topics = self._subscriptions()
        with self._lock:
            self._sub_pending = {
                client.subscribe([(t, 1) for t in topics[i:i + 200]])[1]
                for i in range(0, len(topics), 200)}
        client.publish(self.topics.hub_online, ONLINE, qos=1, retain=True)
        # the broker may have lost its retained acks (restarted without its file):
        # say again where every table's latest game stands
        # (of the games their tables announced: the one retained ack per table must not
        # be an invented game's)
        latest: dict[int, GameKey] = {k.table: k for k in self.store.games(announced=True)}
        self.store.sync()
        for key in latest.values():
            self._publish_ack(key)

    def _on_subscribe(self, client: mqtt.Client, userdata: object, mid: int,
                      reasons: list[mqtt.ReasonCode], props: object = None) -> None:
        if any(r.is_failure for r in reasons):
            log.error("the broker refused the hub's subscriptions: %s", reasons)
            return
        with self._lock:
            self._sub_pending.discard(mid)
            done = not self._sub_pending
        if done:
            self.connected.set()  # from here on, nothing a table sends passes the hub by

    def _on_disconnect(self, client: mqtt.Client, userdata: object, flags: object,
                       reason: mqtt.ReasonCode, props: object = None) -> None:
        self.connected.clear()
        if not self._stop.is_set():
            log.warning("hub lost the broker (%s); reconnecting", reason)

    def trouble(self, table: int) -> dict[str, object] | None:
        """What table ``table`` did wrong since the hub started (for the arbiter)."""
        return self.admission.trouble(table)

    def _on_message(self, client: mqtt.Client, userdata: object,
                    msg: mqtt.MQTTMessage) -> None:
        parsed = self.topics.parse(msg.topic)
        table = parsed[0] if parsed is not None else None
        if table is not None and not self.admission.admit(table):
            self.stats["flood"] += 1  # unread; a real table sends it again (no ack)
            self.admission.note(table, "flood", msg.topic, self._clock())
            self._mute(table)
            return
        try:
            self._handle(msg.topic, parsed, bytes(msg.payload))
        except ProtocolError as exc:
            self.stats["dropped"] += 1
            self.admission.note(table, "junk", str(exc)[:200], self._clock())
        except Refused as exc:
            self.stats[exc.kind] += 1
            self.admission.note(table, exc.kind, str(exc)[:200], self._clock())
        except StoreError as exc:
            log.error("%s", exc)  # not acknowledged: the table sends it again
        except Exception:  # a bug must not stop the hub's network thread
            self.stats["dropped"] += 1
            self.admission.logs.error((table, "bug"), "message on %s failed", msg.topic,
                                      exc_info=True)

    def _handle(self, topic: str, parsed: tuple[int, str] | None, payload: bytes) -> None:
        if parsed is None:
            raise ProtocolError(f"{topic}: not a table topic of event {self.topics.event}")
        table, kind = parsed
        now = self._clock()
        if kind == "events":
            msg = decode_event(payload, table, topic)
            key = GameKey(table, msg.game)
            new = self.store.last_seq(table, msg.game) == 0
            added = self.store.add_event(msg, now)
            self.stats[added.value] += 1
            if added is Added.STORED:
                if new and not self.store.announced(table, msg.game):
                    # said only if its state does not name it soon: an honest table's
                    # state may come just after the game's first events (a reconnect)
                    with self._lock:
                        self._unnamed[key] = now
                with self._lock:
                    self._dirty.add(key)
                self._wake.set()
                self.changes.emit(HubChange(table, "event", msg.seq, msg.game))
            elif added is Added.GAP:
                self.admission.note(table, "gap", f"game {msg.game} seq {msg.seq}", now)
                self._ask_resend(key, now)
            elif added is Added.REFUSED:
                self.admission.note(table, "refused", f"game {msg.game} seq {msg.seq}", now,
                                    msg.game)
            elif added is Added.BACKWARDS:
                self.admission.note(table, "backwards", f"game {msg.game} seq {msg.seq} at "
                                    f"t={msg.event['t']}", now, msg.game)
            elif added is Added.FOREIGN:
                self.admission.note(table, "foreign", f"game {msg.game}", now, msg.game)
        elif kind == "state":
            if not payload:
                return  # a retained state being cleared
            state = decode_state(payload, table, topic)
            before = self.store.table(table)
            left = before.state.game if before is not None and before.state else None
            if left is not None and left != state.game and self.store.unfinished(table, left):
                # a real table moves on after a game's end (or replaces one not begun);
                # one left midway is the arbiter's to look at
                self.admission.note(table, "abandoned", f"game {left} left unfinished for "
                                    f"{state.game}", now, left)
            self.store.set_state(state, payload, now)
            self.stats["states"] += 1
            self.changes.emit(HubChange(table, "state", state.seq, state.game))
        elif kind == "online":
            if not payload:
                return
            self.store.set_online(table, decode_online(payload, topic), now)
            self.changes.emit(HubChange(table, "online"))

    # ------------------------------------------------------------ listening
    def _subscriptions(self) -> list[str]:
        if not self.tables:
            return self.topics.hub_subscriptions()
        with self._lock:
            muted = set(self._muted)
        return [t for n in range(1, self.tables + 1) if n not in muted
                for t in self.topics.uplink(n)]

    def _mute(self, table: int) -> None:
        """Stop hearing a table that floods the hub, for 10 s (twice as long each time it
        floods again soon after, up to a minute): the broker then drops its messages and
        the hub's one network thread is free for the other tables. A real table loses
        nothing: what it sent meanwhile is not acknowledged, so it sends it again."""
        if not 1 <= table <= self.tables:
            return
        now = time.monotonic()
        with self._lock:
            if table in self._muted:
                return
            last, when = self._mute_for.get(table, (0.0, 0.0))
            seconds = min(60.0, last * 2) if last and now - when < 2 * last + 30 else 10.0
            self._mute_for[table] = (seconds, now)
            self._muted[table] = now + seconds
        self.client.unsubscribe(self.topics.uplink(table))
        self.admission.note(table, "muted", f"for {seconds:.0f} s", self._clock())

    def _unmute_due(self) -> None:
        now = time.monotonic()
        with self._lock:
            due = [t for t, until in self._muted.items() if until <= now]
            for t in due:
                del self._muted[t]
        for t in due:
            self.client.subscribe([(topic, 1) for topic in self.topics.uplink(t)])
            log.info("table %d is heard again", t)

    def _tell_unnamed(self, grace: float = UNNAMED_GRACE) -> None:
        """The games stored unannounced ``grace`` seconds ago and still unnamed by their
        table's state: now they are the arbiter's to look at."""
        now = self._clock()
        with self._lock:
            due = [(k, at) for k, at in self._unnamed.items() if now - at >= grace]
            for k, _ in due:
                del self._unnamed[k]
        for key, at in due:
            if not self.store.announced(key.table, key.game):
                self.admission.note(key.table, "unannounced", f"game {key.game}", at,
                                    key.game)

    # ------------------------------------------------------------------- acks
    def _ask_resend(self, key: GameKey, now: float) -> None:
        """An event after a gap: ask the table to send from the first missing one,
        at most once a second per table (its resend is on its way; a table sending
        gaps in many games at once gets no more acks for it)."""
        if now - self._resend_asked.get(key.table, 0.0) < 1.0:
            return
        self._resend_asked[key.table] = now
        self.store.sync()
        self._publish_ack(key, resend=True)

    def _publish_ack(self, key: GameKey, resend: bool = False) -> None:
        ack = Ack(key.game, self.store.last_seq(key.table, key.game), resend)
        self.client.publish(self.topics.ack(key.table), encode_ack(ack), qos=1, retain=True)

    def _ack_loop(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(1.0)
            self._wake.clear()
            if self._muted:
                self._unmute_due()
            if self._unnamed:
                self._tell_unnamed()
            with self._lock:
                dirty, self._dirty = self._dirty, set()
            if dirty:
                try:
                    self.store.sync()  # never acknowledge what a power cut could take
                except StoreError as exc:
                    log.error("%s", exc)
                    with self._lock:
                        self._dirty |= dirty
                    self._stop.wait(1.0)
                    continue
            for key in sorted(dirty):
                try:
                    self._publish_ack(key)
                except Exception:  # noqa: BLE001 - the next event publishes it again
                    log.exception("ack for %s failed", key)
            self._stop.wait(self.ack_interval)

