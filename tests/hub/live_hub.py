"""The hall as ``kaeshi hub`` runs it, for the hub's browser tests: a private Mosquitto
with the hall's password file and ACL, the real hub ingesting into its SQLite store,
the web app on Uvicorn, and tables as MQTT clients with their own credentials."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import paho.mqtt.client as mqtt
import uvicorn
from hub_web_support import START, TOKEN

from controller.hall_protocol.mqtt import make_client
from controller.hall_protocol.protocol import (
    ONLINE,
    ClockState,
    DownlinkCommand,
    TableState,
    decode_command,
    encode_state,
)
from controller.hall_protocol.topics import Topics
from controller.hub.broker import PrivateBroker
from controller.hub.ingest import Hub
from controller.hub.results import Director
from controller.hub.store import HubStore
from controller.hub.web import HubWebSettings, build_app

EVENT = "open"
TABLES = 6
#: The page's stream is connected.
LIVE = "document.getElementById('conn').textContent === 'live'"


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


LiveHall = tuple[LiveHub, dict[int, Table]]


@contextmanager
def open_hall(folder: Path, delay: float = 900.0, director: Director | None = None,
               states: dict[int, TableState] | None = None) -> Iterator[LiveHall]:
    """A live hub in ``folder`` with a table online for each of ``states`` (by default
    every table, playing round 1), each having published its state; closed at the end."""
    live = LiveHub(folder, delay, director)
    if states is None:
        states = {n: state(n) for n in range(1, TABLES + 1)}
    tables: dict[int, Table] = {}
    try:
        for n in states:
            tables[n] = Table(live.broker, n)
        for t in tables.values():
            assert t.ready.wait(10), f"table {t.n} could not subscribe to its downlink"
            t.online()
            t.publish(states[t.n])
        yield live, tables
    finally:
        for t in tables.values():
            t.close()
        live.close()
