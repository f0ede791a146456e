"""The hall link: protocol, hub store, broker ACL, publisher <-> hub over a real Mosquitto.

Broker tests run the private broker with the hall's own config, password file and
ACL (deploy/mosquitto). Waiting is by condition (a message arriving), never by
asserting on elapsed time.
"""

from __future__ import annotations

import asyncio
import json
import queue
import threading
import time

import paho.mqtt.client as mqtt
import pytest

from controller.hall_protocol.mqtt import BrokerSettings, make_client
from controller.hall_protocol.protocol import (
    Ack,
    DownlinkCommand,
    EventMessage,
    ProtocolError,
    TableState,
    decode_ack,
    decode_command,
    decode_event,
    decode_state,
    encode_ack,
    encode_command,
    encode_event,
    encode_state,
    next_game,
)
from controller.hall_protocol.topics import Topics
from controller.hub.broker import PrivateBroker
from controller.hub.config import HubConfigError, parse_hub_config
from controller.hub.ingest import Hub
from controller.hub.store import Added, HubStore
from controller.observation import Observation
from controller.service.app import Service
from controller.service.config import ConfigError, defaults, parse_config
from controller.service.demo import load_one_game
from controller.service.journal import Journal
from controller.service.sources import LogSource
from controller.simulator import SimOptions, simulate_game
from controller.table_link.link import link_settings

T = Topics("open-2026")


def until(predicate, timeout=20.0, what="condition"):
    end = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > end:
            raise AssertionError(f"{what} not reached")
        time.sleep(0.02)


# ---------------------------------------------------------------- protocol
def test_topics_are_one_tree_and_parse_back():
    assert T.events(3) == "kaeshi/open-2026/table/3/events"
    assert T.parse("kaeshi/open-2026/table/12/state") == (12, "state")
    for bad in ("kaeshi/other/table/3/state", "kaeshi/open-2026/table/03/state",
                "kaeshi/open-2026/table/3/x", "kaeshi/open-2026/table/-1/state"):
        assert T.parse(bad) is None
    with pytest.raises(ProtocolError, match="event slug"):
        Topics("Open 2026/#")


def test_event_round_trip_and_strict_checks():
    move = {"t": 1.5, "event": "move", "player": "black", "square": "f5", "flips": ["e5"]}
    msg = EventMessage(3, "20260101-100000", 7, move, 1700000000.0)
    assert decode_event(encode_event(msg), 3) == msg
    bad = {
        b"not json": "not JSON",
        b'{"v":2}': "'v'",
        json.dumps({"v": 1, "table": 4, "game": "g", "seq": 1, "event": move}).encode():
            "'table'",
        json.dumps({"v": 1, "table": 3, "game": "g", "seq": 0, "event": move}).encode():
            "'seq'",
        json.dumps({"v": 1, "table": 3, "game": "g", "seq": 1,
                    "event": {**move, "square": "z9"}}).encode(): "'square'",
        json.dumps({"v": 1, "table": 3, "game": "g", "seq": 1,
                    "event": {"t": 1, "event": "boom"}}).encode(): "'event'",
        json.dumps({"v": 1, "table": 3, "game": "../x", "seq": 1, "event": move}).encode():
            "'game'",
        # a kind the irregularity table does not have is refused at the edge
        json.dumps({"v": 1, "table": 3, "game": "g", "seq": 1,
                    "event": {"t": 1, "event": "irregularity", "player": "black",
                              "kind": "odd_disc", "squares": ["e5"]}}).encode(): "'kind'",
    }
    for payload, field in bad.items():
        with pytest.raises(ProtocolError, match=field):
            decode_event(payload, 3, "kaeshi/e/table/3/events")


def test_commands_and_acks_are_checked_both_ways():
    cmd = next_game(4, "A. Black", "B. White", minutes=25, draw_win_right="white")
    back = decode_command(encode_command(cmd))
    assert back == cmd and back.args["round"] == 4
    assert decode_ack(encode_ack(Ack("g1", 5, True))) == Ack("g1", 5, True)
    with pytest.raises(ProtocolError, match="'color'"):
        encode_command(DownlinkCommand("adjust_time", {"color": "red", "seconds": 60}))
    with pytest.raises(ProtocolError, match="'command'"):
        decode_command(b'{"v":1,"id":"x1","command":"format_disk"}')
    with pytest.raises(ProtocolError, match="'board'"):
        decode_command(b'{"v":1,"id":"x1","command":"correct_board","board":"XO"}')
    with pytest.raises(ProtocolError, match="'board'"):
        decode_state(b'{"v":1,"table":2,"game":"g","round":null,"black":"","white":"",'
                     b'"mode":"home","service":"playing","board":"short","to_move":null,'
                     b'"clock":null,"seq":0}', 2)


# ------------------------------------------------------------------- store
def _ev(game, seq, square="f5"):
    return EventMessage(2, game, seq, {"t": seq, "event": "move", "player": "black",
                                       "square": square, "flips": []})


def test_store_takes_the_next_seq_only_and_survives_a_reopen(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite")
    assert store.add_event(_ev("g1", 1)) is Added.STORED
    assert store.add_event(_ev("g1", 1)) is Added.DUPLICATE
    assert store.add_event(_ev("g1", 3)) is Added.GAP  # 2 is missing: not stored
    assert store.last_seq(2, "g1") == 1
    assert store.add_event(_ev("g1", 2, "d3")) is Added.STORED
    store._db.close()  # no orderly close: as after a kill
    again = HubStore(tmp_path / "hub.sqlite")
    assert again.last_seq(2, "g1") == 2
    assert [e.event["square"] for e in again.events(2, "g1")] == ["f5", "d3"]
    assert again.add_event(_ev("g1", 2)) is Added.DUPLICATE
    assert again.games() == [(2, "g1")]


def test_store_keeps_each_tables_presence_and_last_state_across_a_reopen(tmp_path):
    store = HubStore(tmp_path / "hub.sqlite")
    state = TableState(2, "g1", 1, "A", "B", "tournament", "playing", "-" * 64, "black",
                       None, [], None, 3)
    store.set_state(state, encode_state(state), 10.0)
    assert store.add_event(_ev("g1", 1), 11.0) is Added.STORED  # seen again, same state
    store.set_online(5, False, 12.0)  # a table heard of only by its will
    store.set_online(2, False, 13.0)
    shown = store.tables()
    assert [(t.table, t.online, t.state, t.last_seen) for t in shown] == [
        (2, False, state, 13.0), (5, False, None, 12.0)]
    assert store.table(2) == shown[0] and store.table(7) is None
    store._db.close()
    assert HubStore(tmp_path / "hub.sqlite").tables() == shown


# ------------------------------------------------------------------ broker
@pytest.fixture(scope="module")
def broker(tmp_path_factory):
    b = PrivateBroker(tmp_path_factory.mktemp("broker"), tables=8)
    b.start()
    yield b
    b.stop()


class Listener:
    """A raw MQTT client that records what it receives."""

    def __init__(self, settings: BrokerSettings, client_id: str, topics: list[str]) -> None:
        self.got: queue.Queue = queue.Queue()
        self.subscribed = threading.Event()
        self.client = make_client(settings, client_id, clean_session=True)
        self.client.on_message = lambda c, u, m: self.got.put((m.topic, m.payload))
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_connect = (lambda c, *a: c.subscribe([(t, 1) for t in topics])
                                  if topics else self.subscribed.set())
        self.client.connect(settings.host, settings.port)
        self.client.loop_start()
        assert self.subscribed.wait(10)

    def publish(self, topic, payload):
        self.client.publish(topic, payload, qos=1).wait_for_publish(5)

    def until(self, topic):
        """Everything received up to and including the first message on ``topic``."""
        seen = []
        while True:
            t, p = self.got.get(timeout=10)
            seen.append((t, p))
            if t == topic:
                return seen

    def close(self):
        self.client.disconnect()
        self.client.loop_stop()


def test_acl_table_3_cannot_write_as_table_4_or_the_hub_nor_read_4s_downlink(broker):
    # the hub sees every table's uplink
    hub = Listener(broker.hub_settings(), "watch-hub", ["kaeshi/+/table/+/#"])
    t3 = Listener(broker.settings(3), "t3", [T.down(4), T.ack(4), T.down(3)])
    t4 = Listener(broker.settings(4), "t4", [T.down(4), T.ack(4)])
    try:
        forged = encode_event(EventMessage(4, "g", 1, {"t": 0, "event": "pass",
                                                       "player": "black"}))
        t3.publish(T.events(4), forged)  # as table 4
        t3.publish(T.ack(4), encode_ack(Ack("g", 99)))  # as the hub
        t3.publish(T.down(4), encode_command(DownlinkCommand("pause")))
        own = encode_event(EventMessage(3, "g", 1, {"t": 0, "event": "pass",
                                                    "player": "white"}))
        t3.publish(T.events(3), own)  # allowed: the marker
        seen = hub.until(T.events(3))  # in-order delivery: the forgeries came first
        assert [t for t, _ in seen] == [T.events(3)]
        # the hub's downlink to 4 reaches 4 and not 3, although 3 subscribed to it
        hub_writer = Listener(broker.hub_settings(), "hub-writer", [])
        hub_writer.publish(T.down(4), encode_command(DownlinkCommand("resume")))
        hub_writer.publish(T.down(3), encode_command(DownlinkCommand("pause")))
        assert [t for t, _ in t4.until(T.down(4))] == [T.down(4)]
        assert [t for t, _ in t3.until(T.down(3))] == [T.down(3)]
        hub_writer.close()
    finally:
        for c in (hub, t3, t4):
            c.close()
    # a wrong password is refused outright
    refused: queue.Queue = queue.Queue()
    bad = make_client(BrokerSettings("127.0.0.1", broker.port, "3", "wrong"), "intruder",
                      clean_session=True)
    bad.on_connect = lambda c, u, f, reason, p=None: refused.put(reason)
    bad.connect("127.0.0.1", broker.port)
    bad.loop_start()
    try:
        assert refused.get(timeout=10).is_failure
    finally:
        bad.disconnect()
        bad.loop_stop()


def test_the_hub_drops_bad_payloads_and_asks_for_a_resend_after_a_gap(broker, tmp_path):
    store = HubStore(tmp_path / "hub.sqlite")
    hub = Hub(broker.hub_settings(), "open-2026", store, client_id="hub-gap")
    hub.start()
    t5 = Listener(broker.settings(5), "t5", [T.ack(5)])
    try:
        assert hub.connected.wait(10)
        t5.publish(T.events(5), b"\xff garbage")
        t5.publish(T.events(5), b'{"v":1,"table":5,"game":"g","seq":1,"event":{"t":0}}')
        t5.publish(T.events(5), encode_event(EventMessage(5, "g", 1, {
            "t": 0, "event": "pass", "player": "black"})))
        t5.publish(T.events(5), encode_event(EventMessage(5, "g", 3, {
            "t": 2, "event": "pass", "player": "black"})))
        acks = []
        until(lambda: any(decode_ack(p).resend for _, p in _drain(t5.got, acks)),
              what="a resend request")
        resend = next(decode_ack(p) for _, p in acks if decode_ack(p).resend)
        assert resend == Ack("g", 1, True)  # send again from 2
        assert hub.stats["dropped"] == 2 and hub.stats["stored"] == 1
        assert [e.seq for e in store.events(5, "g")] == [1]
    finally:
        t5.close()
        hub.stop()


def _drain(q, into):
    while True:
        try:
            into.append(q.get_nowait())
        except queue.Empty:
            return into


# ----------------------------------------------------- table service <-> hub
@pytest.fixture(scope="module")
def sim_log(data_dir):
    record = load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)
    return simulate_game(record, SimOptions(seed=3)).observations


def _table_config(tmp_path, broker_settings, table, **extra):
    pw = tmp_path / "pw"
    pw.write_text(broker_settings.password + "\n")
    values = {
        "game.mode": "tournament", "source.kind": "sim", "source.speed": 200.0,
        "journal.path": str(tmp_path / "journal.sqlite"), "games.folder": str(tmp_path / "g"),
        "web.enabled": False, "hub.enabled": True, "hub.host": "127.0.0.1",
        "hub.port": broker_settings.port, "hub.table": table, "hub.event": "open-2026",
        "hub.password_file": str(pw),
    }
    values.update(extra)
    return defaults().replace(**values)


def _journal_events(path, game):
    from controller.table_link.journal_events import event_payload

    j = Journal(path, writer=False)
    out = [event_payload(e.kind, e.t, json.dumps(e.data))
           for e in j.entries(game, ("event", "clock"))]
    j.close()
    return out


def _acked(tmp_path, game: str) -> int:
    """How many of ``game``'s events the table's outbox knows the hub has stored."""
    import sqlite3

    box = sqlite3.connect(tmp_path / "journal.sqlite.hub")
    try:
        row = box.execute("SELECT acked FROM acks WHERE game=?", (game,)).fetchone()
    except sqlite3.OperationalError:  # not made yet
        row = None
    finally:
        box.close()
    return row[0] if row else 0


def test_a_table_game_reaches_the_hub_exactly_and_the_hub_can_pause_it(
        broker, tmp_path, sim_log):
    store = HubStore(tmp_path / "hub.sqlite")
    hub = Hub(broker.hub_settings(), "open-2026", store, client_id="hub-e2e")
    hub.start()
    half = sim_log[: len(sim_log) // 2]
    service = Service(_table_config(tmp_path, broker.settings(6), 6),
                      source=LogSource(half, speed=200.0), exit_when_done=False)
    service.open()

    async def play():
        task = asyncio.create_task(service.run())
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, lambda: until(
            lambda: service.table.core.arbiter.moves
            and service.table.core.clock.running is not None
            and store.table(6) is not None and store.table(6).state is not None
            and store.table(6).state.moves >= 10, what="moves at the hub"))
        hub.send(6, DownlinkCommand("pause"))
        await loop.run_in_executor(None, lambda: until(lambda: service.table.core.paused,
                                                       what="the pause"))
        # a bad order (its own clock is paused already) is refused, and the table plays on
        hub.send(6, DownlinkCommand("pause"))
        hub.send(6, DownlinkCommand("adjust_time", {"color": "white", "seconds": 30}))
        await loop.run_in_executor(None, lambda: until(
            lambda: store.table(6).state.clock.paused, what="a paused state at the hub"))
        # the hub's last acks are still on their way back: a table stopped before
        # they arrive resends those events on its next start, which is not this test
        await loop.run_in_executor(None, lambda: until(
            lambda: _acked(tmp_path, service.table.game.id)
            == len(_journal_events(tmp_path / "journal.sqlite", service.table.game.id)),
            what="the hub's acks at the table"))
        service.stop()
        await task

    try:
        asyncio.run(play())
        game = service.table.game.id
        journaled = _journal_events(tmp_path / "journal.sqlite", game)
        until(lambda: len(store.events(6, game)) == len(journaled), what="all events")
        assert [e.event for e in store.events(6, game)] == journaled
        # each event came with the table's official position after its step
        positions = [e.data for e in Journal(tmp_path / "journal.sqlite").entries(
            game, ("position",))]
        stored = store.events(6, game)
        assert all(e.board is not None for e in stored)
        assert {"board": stored[-1].board, "to_move": stored[-1].to_move} == positions[-1]
        # the hub's acks reached the table: its outbox knows everything is stored
        assert _acked(tmp_path, game) == len(journaled)
        assert any(e["event"] == "move" for e in journaled)
        inputs = [e.data for e in Journal(tmp_path / "journal.sqlite").entries(game, ("input",))]
        adjusts = [d for d in inputs if d.get("action") == "adjust"]
        assert adjusts == [{"action": "adjust", "color": "white", "seconds": 30.0}]
    finally:
        hub.stop()


def test_next_game_from_the_hub_sets_up_an_unstarted_table(broker, tmp_path, sim_log):
    store = HubStore(tmp_path / "hub.sqlite")
    hub = Hub(broker.hub_settings(), "open-2026", store, client_id="hub-next")
    hub.start()
    service = Service(_table_config(tmp_path, broker.settings(7), 7),
                      source=LogSource([Observation(0.0, board="-" * 64)], speed=200.0),
                      exit_when_done=False)
    service.open()
    first = service.table.game.id

    async def run():
        task = asyncio.create_task(service.run())
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, lambda: until(
            lambda: store.table(7) is not None and store.table(7).online, what="online"))
        hub.send(7, next_game(3, "Tanida", "Murakami", minutes=30, draw_win_right="white",
                              draws_allowed=False))
        await loop.run_in_executor(None, lambda: until(
            lambda: store.table(7).state is not None and store.table(7).state.round == 3,
            what="round 3 at the hub"))
        service.stop()
        await task

    try:
        asyncio.run(run())
        s = service.table.core.settings
        assert service.table.game.id != first
        assert (s.black, s.white, s.main, s.draw_win_right, s.draws_allowed) == (
            "Tanida", "Murakami", 1800.0, "white", False)
        state = store.table(7).state
        assert (state.black, state.white, state.game) == (
            "Tanida", "Murakami", service.table.game.id)
        assert store.game_info(7, service.table.game.id).round == 3
    finally:
        hub.stop()


def test_a_table_without_a_broker_plays_and_records_as_always(tmp_path, sim_log):
    dead = BrokerSettings("127.0.0.1", 1, "1", "x")  # nothing listens on port 1
    service = Service(_table_config(tmp_path, dead, 1), source=LogSource(sim_log, speed=400.0))
    service.open()
    assert asyncio.run(service.run()) == 0
    assert service.table.core.game_over and len(service.lifecycle.finished_files) == 3
    assert service.outputs.hub is not None and not service.outputs.hub.publisher.connected.is_set()


# ------------------------------------------------------------------ config
def test_table_hub_section_and_hub_toml_name_what_is_wrong(tmp_path):
    with pytest.raises(ConfigError, match="line 2.*hub.port"):
        parse_config('[hub]\nport = 0\n', "t.toml")
    cfg = parse_config('[hub]\nenabled = true\nhost = "hall"\ntable = 3\nevent = "Bad Slug"\n',
                       "t.toml")
    with pytest.raises(Exception, match="event slug"):
        link_settings(cfg)
    pw = tmp_path / "pw"
    pw.write_text("s3cret\n")
    ok = parse_config(f'[hub]\nenabled = true\nhost = "hall"\ntable = 3\nevent = "open"\n'
                      f'password_file = "{pw}"\n', "t.toml")
    s = link_settings(ok)
    assert (s.table, s.broker.username, s.broker.password) == (3, "3", "s3cret")
    with pytest.raises(HubConfigError, match="line 4: unknown key 'broker.hots'"):
        parse_hub_config('[event]\nslug = "open"\n[broker]\nhots = "x"\n', "hub.toml")
    with pytest.raises(HubConfigError, match="event.slug"):
        parse_hub_config('[store]\npath = "x"\n', "hub.toml")


# --------------------------------------------------------------- kaeshi hub
def test_kaeshi_hub_serves_store_and_pages_on_one_loop(broker, tmp_path, capsys, caplog):
    import httpx

    from controller.hub.serve import serve_hub

    pw = tmp_path / "hub.pass"
    pw.write_text(broker.passwords["hub"] + "\n")
    cfg = parse_hub_config(
        f'[event]\nslug = "open-2026"\n[broker]\nport = {broker.port}\n'
        f'password_file = "{pw}"\n[store]\npath = "{tmp_path / "hub.sqlite"}"\n'
        f'[web]\nhost = "127.0.0.1"\nport = 0\ntoken = "a-long-enough-arbiter-token-42"\n'
        f'delay = 0\n', "hub.toml")
    t8 = Listener(broker.settings(8), "t8", [T.ack(8)])

    async def scenario():
        stop = asyncio.Event()
        ready: asyncio.Future = asyncio.get_running_loop().create_future()
        task = asyncio.create_task(serve_hub(cfg, stop, lambda hub, url: ready.set_result(
            (hub, url))))
        hub, url = await asyncio.wait_for(ready, 20)
        assert url is not None
        await asyncio.get_running_loop().run_in_executor(None, lambda: hub.connected.wait(10))
        t8.publish(T.events(8), encode_event(EventMessage(8, "g8", 1, {
            "t": 1.0, "event": "move", "player": "black", "square": "f5", "flips": ["e5"]})))
        ack = await asyncio.get_running_loop().run_in_executor(
            None, lambda: decode_ack(t8.until(T.ack(8))[-1][1]))
        async with httpx.AsyncClient(base_url=url) as client:
            page = await client.get("/")
            dashboard = await client.get(
                "/api/dashboard",
                headers={"authorization": "Bearer a-long-enough-arbiter-token-42"})
        stop.set()
        assert await asyncio.wait_for(task, 30) == 0
        return ack, page, dashboard

    try:
        ack, page, dashboard = asyncio.run(scenario())
    finally:
        t8.close()
    assert ack == Ack("g8", 1)
    assert page.status_code == 200
    assert dashboard.status_code == 200 and '"table":8' in dashboard.text
    assert HubStore(tmp_path / "hub.sqlite").last_seq(8, "g8") == 1
    # the address is printed; the token is not, on an output that is not a terminal
    out = capsys.readouterr()
    assert f"hub web: {page.url.scheme}://" in out.out and "/arbiter" in out.out
    logged = out.out + out.err + caplog.text
    assert "a-long-enough-arbiter-token-42" not in logged


def test_acl_confines_a_table_to_the_halls_event(broker):
    """Table 3 may write its own topics of this hall's event only: under another event's
    tree the broker refuses it (MQTT 5 says so in the PUBACK)."""
    acks: queue.Queue = queue.Queue()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="t3-v5",
                         protocol=mqtt.MQTTv5)
    client.username_pw_set("3", broker.passwords["3"])
    client.on_publish = lambda c, u, mid, reason, props: acks.put((mid, reason))
    client.connect("127.0.0.1", broker.port)
    client.loop_start()
    try:
        payload = encode_event(EventMessage(3, "g", 1, {"t": 0, "event": "pass",
                                                        "player": "white"}))
        results = {}
        for topic in (T.events(3), Topics("another-event").events(3),
                      Topics("another-event").state(3)):
            info = client.publish(topic, payload, qos=1)
            mid, reason = acks.get(timeout=10)
            assert mid == info.mid
            results[topic] = reason.is_failure
        assert results == {T.events(3): False, Topics("another-event").events(3): True,
                           Topics("another-event").state(3): True}
    finally:
        client.disconnect()
        client.loop_stop()
    assert "@EVENT@" not in (broker.folder / "acl").read_text()
    assert "kaeshi/open-2026/table/%u/events" in (broker.folder / "acl").read_text()
