"""The arbiter records the 伏せ石 on a table's page, in Chromium, at desktop and phone
sizes, over the real hall broker and the real tournament director.

A table that signed a 32–32 board before the toss was recorded is listed under "Needs
you now" with what to do; the arbiter opens it, picks the holder of the draw-win right
and records the toss, and the result reaches the director with the holder as winner.
A toss recorded before the first move reaches the table's own downlink.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from devtools import SCREENS, DevTools
from hub_web_support import START, TOKEN
from live_hub import LIVE, LiveHub, Table
from test_hub_results_toss import event

from controller.hall_protocol.protocol import GameResult, TableState
from controller.hub.director import TournamentDirector
from controller.hub.results import Pairing
from controller.scorecard import SignOff

#: The table each size settles: a held draw is settled once.
DRAWN_AT = {"desktop": 1, "phone": 2}

Hall = tuple[LiveHub, dict[int, Table], TournamentDirector]


@pytest.fixture(scope="module")
def hall(tmp_path_factory: pytest.TempPathFactory, open_hall) -> Iterator[Hall]:
    folder = tmp_path_factory.mktemp("toss")
    director = event(folder / "event.sqlite")
    states = {p.table: _state(p) for p in director.pairings(1)}
    with open_hall(folder, director=director, states=states) as (live, tables):
        yield live, tables, director


def _state(p: Pairing, drawn: bool = False) -> TableState:
    """Round 1's game at ``p.table``: not begun, or over 32–32 and signed by both."""
    card = SignOff(32, 32, "draw", True, True) if drawn else None
    return TableState(p.table, f"r1t{p.table}", 1, p.black, p.white, "tournament",
                      "game_over" if drawn else "playing", START, None if drawn else "black",
                      None, result=GameResult(32, 32, "draw") if drawn else None,
                      moves=60 if drawn else 0, signoff=card)


@pytest.fixture(params=sorted(SCREENS))
def screen(request: pytest.FixtureRequest, browser: DevTools) -> Iterator[tuple[str, DevTools]]:
    browser.navigate("about:blank")
    browser.viewport(*SCREENS[request.param])
    yield request.param, browser


def test_a_held_32_32_is_settled_by_the_toss_on_the_table_page(
        hall: Hall, screen: tuple[str, DevTools]) -> None:
    live, tables, director = hall
    size, page = screen
    n = DRAWN_AT[size]
    p = director.pairings(1)[n - 1]
    page.navigate(f"{live.url}/arbiter?token={TOKEN}")
    page.wait_for(LIVE, timeout=15)  # the page's stream is open: the desk hears the hall
    tables[n].publish(_state(p, drawn=True))
    card = f"document.querySelector('#urgent .card[data-table=\"{n}\"]')"
    page.wait_for(f"{card}?.innerText.includes('no 伏せ石 recorded')", timeout=10)
    assert "record who holds the draw-win right" in page.js(f"{card}.innerText")
    assert not page.scrolls_sideways()

    page.js(f"{card}.click()")
    page.wait_for("document.body.dataset.view === 'table' && " + LIVE, timeout=10)
    page.wait_for("!document.getElementById('toss-box').hidden", timeout=10)
    assert "Not recorded yet" in page.js("document.getElementById('toss-state').textContent")
    button = "document.querySelector('[data-action=\"toss\"]')"
    box = page.js(f"JSON.stringify({button}.getBoundingClientRect())")
    rect = json.loads(box)
    assert rect["width"] > 0 and rect["right"] <= SCREENS[size][0]
    assert not page.scrolls_sideways()
    # the white player won the 伏せ石's draw-win right; black stays as the board has it
    page.js(f"document.getElementById('toss-holder').value = {json.dumps(p.white)}")
    page.js(f"{button}.click()")
    page.wait_for("document.getElementById('msg').textContent.includes('went to the "
                  "director')", timeout=10)
    g = director.t.rounds[0].table(n)
    assert (g.outcome, g.winner, g.discs, g.draw_win) == ("draw", p.white, (32, 32), p.white)
    assert page.errors == []


def test_a_toss_before_the_first_move_reaches_the_tables_downlink(
        hall: Hall, browser: DevTools) -> None:
    live, tables, director = hall
    p = director.pairings(1)[2]
    browser.viewport(*SCREENS["desktop"])
    browser.navigate(f"{live.url}/arbiter/table/{p.table}?token={TOKEN}")
    browser.wait_for("!document.getElementById('toss-box').hidden", timeout=10)
    # the players swapped colours at the 伏せ石: the white player of the pairing is black
    browser.js(f"document.getElementById('toss-black').value = {json.dumps(p.white)}")
    browser.js(f"document.getElementById('toss-holder').value = {json.dumps(p.black)}")
    browser.js("document.querySelector('[data-action=\"toss\"]').click()")
    browser.wait_for("document.getElementById('msg').textContent.includes('table was told')",
                     timeout=10)
    assert tables[p.table].got_order.wait(5)
    order = tables[p.table].orders[-1]
    assert (order.command, order.args) == ("toss", {
        "round": 1, "black": p.white, "white": p.black, "draw_win_right": "white"})
    browser.wait_for("document.getElementById('toss-state').textContent.includes("
                     f"{json.dumps(p.white + ' plays black')})", timeout=10)
    assert browser.errors == []
