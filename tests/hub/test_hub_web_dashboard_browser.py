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
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from devtools import DevTools
from hub_web_support import START, TOKEN
from live_hub import EVENT, LIVE, LiveHub, Table, state

from controller.hall_protocol.protocol import EventMessage, encode_event
from controller.hall_protocol.topics import Topics
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color

SHOW_DEADLINE = 1.0  # the dashboard must show an irregularity within a second


@pytest.fixture
def hall(tmp_path: Path, open_hall) -> Iterator[tuple[LiveHub, dict[int, Table]]]:
    with open_hall(tmp_path) as opened:
        yield opened


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
