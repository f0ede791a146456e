"""The arbiter's dashboard in a real headless browser, over the real hall broker.

A private Mosquitto runs with the hall's password file and ACL; the real hub ingests
into its SQLite store and serves the dashboard with Uvicorn; six tables are MQTT
clients with their own credentials, publishing their states as the protocol says.
Chromium (driven as in ``test_web_browser``) opens the arbiter's page: an irregularity
published by table 5 must reach the top of the dashboard within a second, and the
arbiter's click on "Pause" must arrive on table 5's own downlink. In the second test
table 5 is a real ``kaeshi run`` on a simulated board: its own arbiter flags the
irregularity, and the pause stops its clock.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
import uvicorn
from devtools import DevTools
from hub_web_support import START, TOKEN

from controller.hall_protocol.mqtt import make_client
from controller.hall_protocol.protocol import (
    ONLINE,
    ClockState,
    DownlinkCommand,
    EventMessage,
    TableState,
    decode_command,
    encode_event,
    encode_state,
)
from controller.hall_protocol.topics import Topics
from controller.hub.broker import PrivateBroker
from controller.hub.ingest import Hub
from controller.hub.results import Director
from controller.hub.store import HubStore
from controller.hub.web import HubWebSettings, build_app
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color

EVENT = "open"
TABLES = 6
SHOW_DEADLINE = 1.0  # the dashboard must show an irregularity within a second


class Table:
    """One table's MQTT side: publishes its state, collects the hub's orders to it."""

    def __init__(self, broker: PrivateBroker, n: int) -> None:
        self.n = n
        self.topics = Topics(EVENT)
        self.orders: list[DownlinkCommand] = []
        self.got_order = threading.Event()
        self.ready = threading.Event()
        self.client = make_client(broker.settings(n), f"table-{n}", clean_session=True)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = lambda *a: self.ready.set()
        self.client.on_message = self._on_message
        self.client.connect(broker.settings(n).host, broker.port)
        self.client.loop_start()

    def _on_connect(self, client: mqtt.Client, *args: object) -> None:
        client.subscribe(self.topics.down(self.n), qos=1)

    def _on_message(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        self.orders.append(decode_command(msg.payload))
        self.got_order.set()

    def publish(self, state: TableState) -> None:
        info = self.client.publish(self.topics.state(self.n), encode_state(state), qos=1,
                                   retain=True)
        info.wait_for_publish(5)

    def online(self) -> None:
        self.client.publish(self.topics.online(self.n), ONLINE, qos=1, retain=True)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def state(n: int, flags: list[dict[str, object]] | None = None) -> TableState:
    clock = ClockState(900_000, 900_000, "black", time.time())
    return TableState(n, f"g{n}", 1, f"Black {n}", f"White {n}", "tournament", "playing",
                      START, "black", clock, flags or [])


class LiveHub:
    """Broker, hub and web app (Uvicorn on its own thread), as ``kaeshi hub`` runs them."""

    def __init__(self, folder: Path, delay: float = 900.0,
                 director: Director | None = None) -> None:
        self.broker = PrivateBroker(folder / "broker", tables=TABLES, event=EVENT)
        self.broker.start()
        self.store = HubStore(folder / "hub.sqlite")
        self.hub = Hub(self.broker.hub_settings(), EVENT, self.store)
        self.hub.start()
        settings = HubWebSettings(TOKEN, delay=delay, event_name="Open")
        app = self.app = build_app(self.store, self.hub, director, settings)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(
            app, log_level="warning", lifespan="off", timeout_graceful_shutdown=1))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.02)
        assert self.hub.connected.wait(15), "the hub never reached the broker"

    def close(self) -> None:
        self.app.state.close_streams()
        self.server.should_exit = True
        self.thread.join(10)
        self.hub.stop()
        self.store.close()
        self.broker.stop()


def open_hall(folder: Path, delay: float = 900.0) -> Iterator[tuple[LiveHub, dict[int, Table]]]:
    """A live hub with every table online and publishing its state."""
    live = LiveHub(folder, delay)
    tables: dict[int, Table] = {}
    try:
        for n in range(1, TABLES + 1):
            tables[n] = Table(live.broker, n)
        for t in tables.values():
            assert t.ready.wait(10), f"table {t.n} could not subscribe to its downlink"
            t.online()
            t.publish(state(t.n))
        yield live, tables
    finally:
        for t in tables.values():
            t.close()
        live.close()


@pytest.fixture
def hall(tmp_path: Path) -> Iterator[tuple[LiveHub, dict[int, Table]]]:
    yield from open_hall(tmp_path)


LIVE = "document.getElementById('conn').textContent === 'live'"
#: The first table under "Needs you now": the most urgent one.
TOP = "document.querySelector('#urgent .card')"


def test_hub_browser_irregularity_on_top_and_pause_reaches_the_table(
    hall: tuple[LiveHub, dict[int, Table]], browser: DevTools
) -> None:
    live, tables = hall
    browser.navigate(f"{live.url}/arbiter?token={TOKEN}")
    browser.wait_for(LIVE + " && document.querySelectorAll('#tables .card').length === 6",
                     timeout=15)
    assert browser.js(TOP) is None  # nothing needs the arbiter yet
    assert browser.js("document.getElementById('urgent-box').hidden") is True
    assert browser.js("location.search") == ""  # the token left the address bar

    flag = {"kind": "forgotten_flip", "player": "white", "squares": ["d4", "e4"], "n": 4,
            "at": time.time() - 75}
    made = time.monotonic()
    tables[5].publish(state(5, [flag]))
    browser.wait_for(f"{TOP}.dataset.table === '5'", timeout=5)
    shown = time.monotonic() - made
    print(f"irregularity at table 5 on top of the dashboard after {shown * 1000:.0f} ms")
    assert shown < SHOW_DEADLINE
    card = browser.js(f"{TOP}.innerText")
    assert "white: forgotten flip d4 e4 at move 4 · 1 min 15 s ago" in card
    assert ("Black may point out d4 and e4: press Black's clock to hand the turn back; then "
            "White must turn the discs on d4 and e4 to white") in card
    assert "move 0 · discs 2–2" in card
    # the hall's map keeps its order: table 5 stays fifth, and is outlined there
    assert browser.js("[...document.querySelectorAll('#tables .card')]"
                      ".map(c => c.dataset.table).join()") == "1,2,3,4,5,6"
    assert browser.js("document.querySelector('#tables .card[data-table=\"5\"]')"
                      ".dataset.rank") == "0"
    assert browser.js("document.getElementById('summary').textContent") == (
        "6 tables, 1 needs you")
    # no tournament is loaded: no pairings, no standings, no button to send them
    assert browser.js("document.getElementById('aside').hidden") is True
    flagged = browser.js(f"[...{TOP}.querySelectorAll('.cell.flag')].map(c => c.dataset.sq)")
    assert flagged == ["d4", "e4"]

    # one click to the table's full view, one to pause it
    browser.js(f"{TOP}.click()")
    browser.wait_for("document.body.dataset.view === 'table' && " + LIVE, timeout=10)
    browser.wait_for("document.querySelectorAll('#board .cell.flag').length === 2", timeout=5)
    page = browser.text()
    assert "white: forgotten flip d4 e4 at move 4" in page
    assert "Black may point out d4 and e4" in page
    # a board with its coordinates, and no raw position string to type into
    assert browser.js("[...document.querySelectorAll('#board .coord')].map(c => c.textContent)"
                      ".join('')") == "abcdefgh12345678"
    assert browser.js("document.querySelectorAll('input[maxlength=\"64\"]').length") == 0
    browser.js("document.querySelector('[data-action=\"pause\"]').click()")
    assert tables[5].got_order.wait(5), "the pause never reached table 5"
    assert [o.command for o in tables[5].orders] == ["pause"]
    browser.wait_for("document.getElementById('msg').dataset.sent === 'pause'", timeout=5)
    assert all(not tables[n].orders for n in tables if n != 5)
    assert browser.errors == []

    # the table's arbiter adopted a board reached by legal play out of turn order
    resync = {"t": 9.0, "event": "resync", "squares": ["c3", "d4", "d6"], "to_move": "white",
              "moves": ["white d6", "black c3"]}
    tables[5].client.publish(Topics(EVENT).events(5), encode_event(
        EventMessage(5, "g5", 1, resync, None, START, "white")), qos=1).wait_for_publish(5)
    browser.wait_for("document.querySelector('#events .ev-resync') !== null", timeout=10)
    assert browser.js("document.querySelector('#events .ev-resync').textContent") == (
        "board adopted after white d6, black c3, white to move (changed: c3 d4 d6)")
    # the event's sequence number, once
    assert browser.js("document.querySelector('#events .ev-resync').dataset.seq") == "1"
    # the event list names a kind in the words /api/table brings (kind_names)
    flagged_event = {"t": 10.0, "event": "irregularity", "player": "white",
                     "kind": "forgotten_flip", "squares": ["d4", "e4"]}
    tables[5].client.publish(Topics(EVENT).events(5), encode_event(
        EventMessage(5, "g5", 2, flagged_event, None, START, "white")),
        qos=1).wait_for_publish(5)
    browser.wait_for("document.querySelector('#events .ev-irregularity') !== null", timeout=10)
    assert browser.js("document.querySelector('#events .ev-irregularity').textContent") == (
        "White: forgotten flip d4 e4")
    # no event is drawn as a clock
    assert browser.js("document.querySelectorAll('#events .clock').length") == 0

    # the spectators' page: every table, none of the arbiter's channel
    browser.navigate(f"{live.url}/")
    browser.wait_for(LIVE + " && document.querySelectorAll('#tables .card').length === 6",
                     timeout=15)
    page = browser.js("document.documentElement.outerHTML")
    assert "forgotten" not in page and "irregularit" not in page
    assert browser.js("document.querySelectorAll('.cell.flag').length") == 0
    assert browser.errors == []


def flawed_game_log(path: Path) -> None:
    """A tournament game on a simulated board: black's third move (c3) leaves d4 unturned."""
    pos = Position.start()
    obs = [Observation(0.0, board=pos.board_string()), Observation(0.1, board=pos.board_string()),
           Observation(0.5, press=Color.WHITE)]
    t = 1.0
    for square in ("f5", "d6", "c3"):
        mover = pos.to_move
        pos = pos.play(square)
        board = pos.board_string()
        if square == "c3":
            board = board[:27] + "O" + board[28:]  # d4 (index 27) left white
        obs += [Observation(t, board=board), Observation(t + 0.1, board=board),
                Observation(t + 0.3, press=mover)]
        t += 0.8
    # the board stays as it is while the players wait for the arbiter (a minute at most:
    # the test ends the table long before)
    obs += [Observation(t + 0.5 * k, board=board) for k in range(120)]
    path.write_text("".join(o.to_json() + "\n" for o in obs), encoding="utf-8")


def test_hub_browser_pause_stops_a_real_tables_clock(
    hall: tuple[LiveHub, dict[int, Table]], browser: DevTools, tmp_path: Path
) -> None:
    """Table 5 is a real ``kaeshi run`` joined to the hall: its own arbiter flags the
    forgotten flip, the dashboard puts it on top, and the arbiter's pause stops its clock."""
    live, tables = hall
    tables[5].close()  # the real table 5 takes over its credentials
    log = tmp_path / "board.jsonl"
    flawed_game_log(log)
    config = tmp_path / "kaeshi.toml"
    config.write_text(
        f'[game]\nmode = "tournament"\nblack = "Black 5"\nwhite = "White 5"\n'
        f'[source]\nkind = "sim"\nlog = {json.dumps(str(log))}\n'
        f"[journal]\npath = {json.dumps(str(tmp_path / 'journal.sqlite'))}\n"
        f"[games]\nfolder = {json.dumps(str(tmp_path / 'games'))}\n"
        f"[web]\nenabled = false\n"
        f'[hub]\nenabled = true\nhost = "127.0.0.1"\nport = {live.broker.port}\n'
        f'table = 5\nevent = "{EVENT}"\npassword = "{live.broker.passwords["5"]}"\n',
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    try:
        browser.navigate(f"{live.url}/arbiter?token={TOKEN}")
        browser.wait_for(LIVE, timeout=15)
        try:
            browser.wait_for(
                f"{TOP} && {TOP}.dataset.table === '5' && "
                f"{TOP}.querySelector('.attention').textContent.includes('forgotten flip d4')"
                f" && {TOP}.innerText.includes('at move 3')",
                timeout=30)
        except AssertionError as exc:
            proc.terminate()
            raise AssertionError(f"table 5 never showed its flag: {proc.communicate(10)[1]}"
                                 ) from exc
        browser.js(f"{TOP}.click()")
        browser.wait_for("document.body.dataset.view === 'table' && " + LIVE, timeout=10)
        browser.js("document.querySelector('[data-action=\"pause\"]').click()")
        # the table obeys, journals the pause and reports its stopped clock
        stopped = "!document.getElementById('clock-{}').classList.contains('running')"
        browser.wait_for("document.getElementById('service').textContent === 'paused' && "
                         f"{stopped.format('black')} && {stopped.format('white')}", timeout=10)
        status = live.store.table(5)
        assert status is not None and status.state is not None
        assert status.state.service == "paused"
        assert status.state.clock is not None and status.state.clock.paused
        assert browser.errors == []
    finally:
        proc.terminate()
        proc.wait(10)
