"""The hall's pages as people read them, at desktop and phone sizes, in Chromium.

The hub, broker and tables run as in :mod:`test_hub_web_dashboard_browser` (a real
Mosquitto, MQTT tables); the broadcast delay is zero here so that what the tables
publish is at once what a spectator may see. The hall screen's "find your table" needs
a tournament's pairings, so it is shown from a hub on an in-memory store with a
director of its own.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from devtools import DevTools
from hub_web_support import TOKEN, FakeDirector, Hall, serve_hub
from live_hub import EVENT, LIVE, LiveHub, Table, state

from controller.hall_protocol.protocol import EventMessage, encode_event
from controller.hall_protocol.topics import Topics
from controller.hub.results import Pairing
from controller.position import Position
from controller.web.gate import Gate

OPENING = ("f5", "d6", "c3", "d3", "c4")


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory, open_hall
         ) -> Iterator[tuple[LiveHub, dict[int, Table]]]:
    with open_hall(tmp_path_factory.mktemp("hall"), delay=0.0) as opened:
        yield opened


@pytest.fixture
def screen(page: DevTools) -> DevTools:
    """The hub's sized page (``tests/hub/conftest.py``), named as these tests read it."""
    return page


def play_opening(table: Table, moves: tuple[str, ...] = OPENING) -> Position:
    """A table's game (table 3's: the opening): the moves, each with the board it left,
    then the clock as it stood after the last press (stopped, so the page's reading is
    exact)."""
    pos = Position.start()
    seq = 0

    def send(event: dict[str, object]) -> None:
        nonlocal seq
        seq += 1
        message = EventMessage(table.n, f"g{table.n}", seq, {"t": float(seq), **event},
                               time.time(), pos.board_string(), pos.to_move.value)
        table.client.publish(Topics(EVENT).events(table.n), encode_event(message),
                             qos=1).wait_for_publish(5)

    for square in moves:
        mover = pos.to_move
        pos = pos.play(square)
        send({"event": "move", "player": mover.value, "square": square, "flips": []})
    send({"event": "clock", "black": 840.0, "white": 870.0, "running": "white",
          "paused": True})
    return pos


@pytest.fixture(scope="module")
def played(hall: tuple[LiveHub, dict[int, Table]]) -> tuple[LiveHub, dict[int, Table]]:
    live, tables = hall
    play_opening(tables[3])
    flag = {"kind": "over_flip", "player": "white", "squares": ["e4"], "n": 4,
            "at": time.time() - 20}
    tables[5].publish(state(5, [flag]))
    return live, tables


def test_multiboard_links_each_table_to_its_own_page(
        played: tuple[LiveHub, dict[int, Table]], screen: DevTools) -> None:
    live, _ = played
    screen.navigate(live.url + "/")
    screen.wait_for(LIVE + " && document.querySelector('#tables .card[data-table=\"3\"]')"
                    "?.innerText.includes('1. f5 2. d6 3. c3 4. d3 5. c4')", timeout=15)
    card = "document.querySelector('#tables .card[data-table=\"3\"]')"
    assert screen.js(f"{card}.getAttribute('href')") == "/board/3"
    text = screen.js(f"{card}.innerText")
    assert "white to move · move 5 · discs" in text
    assert screen.js(f"{card}.querySelector('.cell.last').dataset.sq") == "c4"
    # the mini-board's coordinates, a-h across and 1-8 down
    assert screen.js(f"[...{card}.querySelectorAll('.coord')].map(c => c.textContent)"
                     ".join('')") == "abcdefgh12345678"
    assert screen.js("document.getElementById('aside').hidden") is True  # no tournament
    assert screen.js(f"{card}.getBoundingClientRect().width") > 300 or (
        screen.js("window.innerWidth") > 600)  # a phone gives each card the screen
    assert not screen.scrolls_sideways()
    assert "irregular" not in screen.text().lower() and "over-flip" not in screen.text()
    assert screen.errors == []


def test_the_board_page_shows_one_game_big(
        played: tuple[LiveHub, dict[int, Table]], screen: DevTools) -> None:
    live, _ = played
    screen.navigate(live.url + "/board/3")
    screen.wait_for(LIVE + " && document.querySelectorAll('#moves tbody tr').length === 3",
                    timeout=15)
    rows = screen.js("[...document.querySelectorAll('#moves tbody tr')]"
                     ".map(r => r.innerText.split('\\t').join(' '))")
    # each move under its kifu number, as the flags and records number it
    assert rows == ["1. f5 2. d6", "3. c3 4. d3", "5. c4 "]
    assert screen.js("document.querySelector('#board .cell.last').dataset.sq") == "c4"
    assert screen.js("[...document.querySelectorAll('#board .coord')].map(c => c.textContent)"
                     ".join('')") == "abcdefgh12345678"
    pos = Position.start()
    for square in OPENING:
        pos = pos.play(square)
    black, white = pos.counts()
    assert screen.js("document.getElementById('discs-black').textContent") == str(black)
    assert screen.js("document.getElementById('discs-white').textContent") == str(white)
    assert screen.js("document.getElementById('name-black').textContent") == "Black 3"
    assert screen.js("document.getElementById('clock-black').textContent") == "14:00"
    assert screen.js("document.getElementById('clock-white').textContent") == "14:30"
    assert "5 moves played · white to move" in screen.text()
    assert not screen.scrolls_sideways()
    assert screen.errors == []


def test_dashboard_and_table_page_fit_the_screen(
        played: tuple[LiveHub, dict[int, Table]], screen: DevTools) -> None:
    live, _ = played
    screen.navigate(f"{live.url}/arbiter?token={TOKEN}")
    screen.wait_for(LIVE + " && document.querySelector('#urgent .card') !== null", timeout=15)
    text = screen.text()
    assert "Needs you now" in text and "white: over-flip e4 at move 4 · 2" in text
    assert "Black may point out e4" in text
    assert not screen.scrolls_sideways()
    screen.js("document.querySelector('#urgent .card').click()")
    screen.wait_for("document.body.dataset.view === 'table' && " + LIVE, timeout=10)
    screen.wait_for("document.querySelector('.instruction')?.textContent.length > 0", 5)
    assert "then White must turn the disc on e4 back to black" in screen.text()
    assert not screen.scrolls_sideways()
    assert screen.errors == []


def test_a_table_page_link_asks_for_the_token_then_shows_the_table(
        played: tuple[LiveHub, dict[int, Table]], browser: DevTools, tmp_path: Path) -> None:
    live, _ = played
    fresh = DevTools(tmp_path / "profile")  # no cookie yet
    try:
        fresh.open(f"{live.url}/arbiter/table/4")
        fresh.wait_for("document.querySelector('input[name=\"token\"]') !== null", 10)
        assert "{" not in fresh.text()  # a form, not JSON
        fresh.navigate(f"{live.url}/arbiter/table/4?token={TOKEN}")
        fresh.wait_for("document.body.dataset.view === 'table'", 10)
        assert fresh.js("location.pathname + location.search") == "/arbiter/table/4"
    finally:
        fresh.close()


def test_a_ten_by_ten_side_event_table_is_drawn_on_its_own_board(
        played: tuple[LiveHub, dict[int, Table]], screen: DevTools) -> None:
    """Table 6 plays Grand Othello: its page and its card draw 10x10 with a-j and 1-10."""
    live, tables = played
    pos, seq = Position.start(10), 0
    for square in ("e4", "f4"):
        mover, seq = pos.to_move, seq + 1
        pos = pos.play(square)
        message = EventMessage(6, "g6", seq, {"t": float(seq), "event": "move",
                                              "player": mover.value, "square": square,
                                              "flips": []},
                               time.time(), pos.board_string(), pos.to_move.value, 10)
        tables[6].client.publish(Topics(EVENT).events(6), encode_event(message),
                                 qos=1).wait_for_publish(5)
    screen.navigate(live.url + "/board/6")
    screen.wait_for(LIVE + " && document.querySelectorAll('#moves tbody tr').length === 1",
                    timeout=15)
    assert screen.js("document.querySelectorAll('#board .cell').length") == 100
    assert screen.js("[...document.querySelectorAll('#board .coord')].map(c => c.textContent)"
                     ".join(' ')") == " a b c d e f g h i j 1 2 3 4 5 6 7 8 9 10"
    assert screen.js("document.querySelector('#board .cell.last').dataset.sq") == "f4"
    assert screen.js("document.querySelector('[data-sq=\"j10\"]').dataset.disc") == "empty"
    assert screen.js("document.querySelector('[data-sq=\"f4\"]').dataset.disc") == "white"
    # stepped back to the start: Grand Othello's four discs in the middle of 10x10
    screen.wait_for("!document.getElementById('nav-first').disabled", timeout=10)
    screen.js("document.getElementById('nav-first').click()")
    middle = screen.js("['e5', 'f5', 'e6', 'f6', 'f4'].map(q => document.querySelector("
                       "`[data-sq=\"${q}\"]`).dataset.disc)")
    assert middle == ["white", "black", "black", "white", "empty"]
    assert not screen.scrolls_sideways()
    screen.navigate(live.url + "/")
    card = "document.querySelector('#tables .card[data-table=\"6\"]')"
    screen.wait_for(LIVE + f" && {card}?.querySelectorAll('.cell').length === 100", timeout=15)
    assert screen.js(f"{card}.querySelectorAll('.cell').length") == 100
    assert screen.errors == []


def test_a_spectator_steps_back_through_the_game_and_downloads_it(
        played: tuple[LiveHub, dict[int, Table]], screen: DevTools) -> None:
    live, _ = played
    screen.navigate(live.url + "/board/3")
    screen.wait_for(LIVE + " && document.querySelectorAll('#moves td[data-i]').length === 5"
                    " && !document.getElementById('nav-prev').disabled", timeout=15)
    at = "document.getElementById('nav-at').textContent"
    disc = "document.querySelector('[data-sq=\"{}\"]').dataset.disc"
    assert screen.js(at) == "latest: move 5 of 5, black c4"
    assert screen.js("document.getElementById('nav-next').disabled") is True
    for _ in range(3):
        screen.js("document.getElementById('nav-prev').click()")
    assert screen.js(at) == "move 2 of 5, white d6"
    pos = Position.start().play("f5").play("d6")
    black, white = pos.counts()
    assert screen.js(disc.format("c3")) == "empty" and screen.js(disc.format("d6")) == "white"
    assert screen.js("document.getElementById('discs-black').textContent") == str(black)
    assert screen.js("document.getElementById('discs-white').textContent") == str(white)
    assert screen.js("document.querySelector('#board .cell.last').dataset.sq") == "d6"
    assert screen.js("document.querySelector('#moves td.at').textContent") == "2. d6"
    screen.js("document.getElementById('nav-first').click()")
    assert screen.js(at) == "start position · 5 moves played"
    assert screen.js(disc.format("f5")) == "empty"
    screen.js("document.dispatchEvent(new KeyboardEvent('keydown', {key: 'ArrowRight'}))")
    assert screen.js(at) == "move 1 of 5, black f5"
    screen.js("document.querySelector('#moves td[data-n=\"4\"]').click()")
    assert screen.js(at) == "move 4 of 5, white d3"
    screen.js("document.getElementById('nav-last').click()")
    assert screen.js(at) == "latest: move 5 of 5, black c4"
    assert screen.js("document.title").startswith("Black 3 – White 3 · table 3")
    # the game as a GGF file of its own
    href = screen.js("document.getElementById('ggf').getAttribute('href')")
    assert href == "/feed/game/3/g3.ggf"
    with urllib.request.urlopen(live.url + href, timeout=10) as r:
        disposition, ggf = r.headers["Content-Disposition"], r.read().decode()
    assert disposition == 'attachment; filename="table3-g3.ggf"'
    assert ggf.startswith("(;GM[Othello]") and ggf.count("(;") == 1
    assert "PB[Black 3]PW[White 3]" in ggf and "B[f5]W[d6]B[c3]W[d3]B[c4];)" in ggf
    assert not screen.scrolls_sideways()
    assert screen.errors == []


class ByeDirector(FakeDirector):
    def byes(self, round: int) -> list[str]:
        return ["Eve"] if round == 2 else []


@pytest.fixture
def paired_hall() -> Iterator[tuple[str, ByeDirector]]:
    """Round 2 of "Meijin 2026": three tables and a bye; names in both cases, one in
    full-width letters (as a Japanese keyboard may type it)."""
    director = ByeDirector({2: [Pairing(2, 1, "bob", "Ann"), Pairing(2, 3, "Ｆｒｅｄ", "Zoe"),
                                Pairing(2, 2, "carl", "Dan")]}, round=2)
    server, served = serve_hub(Hall(), Gate(64), director, event_name="Meijin 2026")
    try:
        yield f"http://127.0.0.1:{server.port}", director
    finally:
        served.close()


def test_the_hall_screen_tells_each_player_their_table_and_colour(
        paired_hall: tuple[str, ByeDirector], screen: DevTools) -> None:
    url, director = paired_hall
    screen.navigate(url + "/pairings")
    rows = "[...document.querySelectorAll('#players li')]"
    screen.wait_for(LIVE + f" && {rows}.length === 7", timeout=15)
    assert screen.js("document.getElementById('heading').textContent") == "Meijin 2026 — Round 2"
    # A-Z whatever the case or the width of the letters, as the paper list by the door
    read = screen.js(f"{rows}.map(r => [...r.querySelectorAll('.name, .where, .colour')]"
                     ".map(s => s.textContent).join(' | '))")
    assert read == ["Ann | Table 1 | ○ white", "bob | Table 1 | ● black",
                    "carl | Table 2 | ● black", "Dan | Table 2 | ○ white", "Eve | bye",
                    "Ｆｒｅｄ | Table 3 | ● black", "Zoe | Table 3 | ○ white"]
    assert "v Ann" in screen.js(f"{rows}[1].innerText")  # bob's opponent, to be sure
    # big enough to read from across the hall, and every row on a phone's width
    size = screen.js("parseFloat(getComputedStyle(document.querySelector("
                     "'#players .name')).fontSize)")
    assert size >= (36 if screen.js("window.innerWidth") > 1000 else 20)
    assert not screen.scrolls_sideways()
    # the next round shows without anyone reloading the screen
    director.rounds[3] = [Pairing(3, 1, "Ann", "Zoe")]
    director.round = 3
    screen.wait_for("document.getElementById('heading').textContent === "
                    "'Meijin 2026 — Round 3'", timeout=10)
    screen.wait_for(f"{rows}.length === 2", timeout=5)
    assert screen.js(f"{rows}.map(r => r.dataset.name + ' ' + r.dataset.table + ' ' + "
                     "r.dataset.colour)") == ["Ann 1 black", "Zoe 1 white"]
    assert screen.errors == []
