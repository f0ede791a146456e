"""A club on one laptop: two phone tables gathered by the hub over a real broker.

Everything runs as a club runs it (docs/phone.md, "A club on one laptop"): a private
Mosquitto with the hall's own config and ACL, ``kaeshi hub --config hub.toml``, and one
``kaeshi run --config tableN.toml`` per table, each with ``source.kind = "browser"``.
Each table's phone and tablet are played from Python over the pages' WebSocket protocol
(the wire's own encoders, seconds of clock offset, 50-300 ms of jitter);
``test_phone_routes_pages.py`` proves the Chromium pages speak that protocol. What must reach
the hub's dashboard for each table is what the arbiter says of the game's log judged
directly.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
from club_support import HubAccess, announced, start_table
from fake_devices import jpegs, play_game
from hub_web_support import board_after
from phone_support import MOVES, content, game_log, scene, setup_file, truth

from controller.hub.broker import PrivateBroker, free_port
from controller.synth.gamevideo import GameVideo

EVENT = "club"
HUB_TOKEN = "club-hub-arbiter-token-1234"
FPS = 10


def _hub(folder: Path, broker: PrivateBroker) -> tuple[subprocess.Popen[str], str]:
    pw = folder / "hub.pass"
    pw.write_text(broker.passwords["hub"] + "\n", encoding="utf-8")
    config = folder / "hub.toml"
    config.write_text(
        f'[event]\nslug = "{EVENT}"\ntables = 2\n'
        f'[broker]\nport = {broker.port}\npassword_file = {json.dumps(str(pw))}\n'
        f'[store]\npath = {json.dumps(str(folder / "hub.sqlite"))}\n'
        f'[web]\nhost = "127.0.0.1"\nport = {free_port()}\ntoken = "{HUB_TOKEN}"\n'
        f'delay = 0\n', encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "hub", "--config",
                             str(config)], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, announced(proc, proc.stdout, "hub web: ", "kaeshi hub")


def _hub_json(client: httpx.Client, path: str) -> Any:
    got = client.get(path, headers={"authorization": f"Bearer {HUB_TOKEN}"})
    return got.json() if got.status_code == 200 else None


def _at_the_hub(client: httpx.Client, n: int) -> list[dict[str, Any]]:
    """Table ``n``'s events as the hub stored them, without the hub's own fields."""
    data = _hub_json(client, f"/api/table/{n}")
    if data is None:
        return []
    return content([{k: v for k, v in e.items() if k not in ("seq", "received")}
                    for e in data["events"]])


def test_the_hub_gathers_two_phone_tables_run_on_one_machine(tmp_path):
    broker = PrivateBroker(tmp_path / "broker", tables=2, event=EVENT)
    broker.start()
    hub: subprocess.Popen[str] | None = None
    tables = []
    try:
        hub, hub_url = _hub(tmp_path, broker)
        setup = setup_file(tmp_path, scene())
        for n in (1, 2):
            access = HubAccess(broker.port, EVENT, broker.passwords[str(n)])
            tables.append(start_table(tmp_path / f"table{n}", n, FPS, setup, access))
        log = game_log()
        frames = jpegs(GameVideo(log, scene(), FPS, seed=7, tail=1.5,
                                 moving_hands=True).frames())
        presses = [o for o in log if o.press is not None]
        players = [threading.Thread(target=play_game, args=(
            t.url.replace("http", "ws"), frames, presses, (2.0 + n, -3.0 - n), (0.05, 0.3)),
            kwargs={"key": t.key}) for n, t in enumerate(tables)]
        for p in players:
            p.start()
        for p in players:
            p.join(120)
        want = truth(log)
        got: dict[int, list[dict[str, Any]]] = {}
        with httpx.Client(base_url=hub_url, timeout=5) as client:
            deadline = time.monotonic() + 20  # the last press waits for its frames, then MQTT
            while time.monotonic() < deadline:
                got = {n: _at_the_hub(client, n) for n in (1, 2)}
                if got == {1: want, 2: want}:
                    break
                time.sleep(0.2)
            cards = {c["table"]: c for c in _hub_json(client, "/api/dashboard")["tables"]}
    finally:
        for t in tables:
            t.stop()
        if hub is not None:
            hub.terminate()
            try:
                hub.wait(15)
            except subprocess.TimeoutExpired:
                hub.kill()
        broker.stop()
    assert got == {1: want, 2: want}
    moves = sum(1 for e in want if e["event"] == "move")
    for n in (1, 2):
        assert cards[n]["online"] and cards[n]["moves"] == moves, cards[n]
        # the flagged flip was put right: the hub shows the table's official position
        assert cards[n]["board"] == board_after(MOVES) and cards[n]["irregularities"] == []
