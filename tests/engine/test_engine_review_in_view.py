"""The review's board stays in view while the reader clicks what is below or beside it
(the score graph, a mistake, a move of the table), on a phone (390×844) and on a
desktop, in headless Chromium: every click shows its step on a board the reader can
see, and what was clicked was not hidden under it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from devtools import SCREENS, DevTools
from served import Served

from controller.cli import main as cli_main
from controller.engine.client import EngineSpec
from controller.engine.process import own_engine_argv
from controller.engine.report import review_document
from controller.records import load_games
from controller.service.games import write_game_files
from controller.web.server import WebServer

GAME = "20260101-120000"
BOARD = ("[...document.querySelectorAll('#board .cell')].map(c => "
         "({black: 'X', white: 'O', empty: '-'})[c.dataset.disc]).join('')")
#: The board's box against the window: wholly in view or not.
IN_VIEW = ("(() => { const r = document.getElementById('board').getBoundingClientRect(); "
           "return r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && "
           "r.right <= innerWidth; })()")


class _ReviewOnly:
    """A table's facade that has nothing but its finished games' reviews."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.spec = EngineSpec(tuple(own_engine_argv("nboard", 1, 60.0)), "nboard", 1, 60.0)

    def snapshot(self, view: str) -> dict[str, Any]:
        return {"version": 0, "mode": "home", "state": "game_over", "events": []}

    async def review_document(self, name: str) -> tuple[str, str]:
        return await asyncio.to_thread(review_document, self.folder, name, self.spec)


@pytest.fixture(scope="module")
def review_url(data_dir, tmp_path_factory):
    """A real game, reviewed by ``kaeshi games review``, served on a table's page."""
    folder = tmp_path_factory.mktemp("review") / "games"
    game = load_games(data_dir / "games" / "wthor" / "WTH_2001.wtb")[0]
    write_game_files(game, GAME, folder)
    assert cli_main(["games", "review", GAME, "--folder", str(folder), "--level", "1"]) == 0
    server = WebServer(_ReviewOnly(folder), port=0)  # type: ignore[arg-type]
    served = Served(server.start, server.stop)
    try:
        yield f"{server.url}/review/{GAME}"
    finally:
        served.close()


def _click(browser: DevTools, selector: str) -> None:
    """Scroll ``selector`` into view as the page lets it (a reader's scrolling), then a
    real mouse click in its middle: whatever sits on top there gets it."""
    box = browser.js(f"(() => {{ const e = document.querySelector('{selector}'); "
                     "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                     "return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    assert 0 <= box[1] <= browser.js("innerHeight"), (selector, box)
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                     button="left", clickCount=1)


def _shows(browser: DevTools, step: int) -> None:
    browser.wait_for(f"document.getElementById('review-step').dataset.i === '{step}'", 5)
    boards = browser.js("JSON.parse(document.getElementById('review-data').textContent)"
                        ".boards")
    assert browser.js(BOARD) == boards[step]
    assert browser.js(IN_VIEW), f"step {step}: the board is out of view"


@pytest.mark.parametrize("size", list(SCREENS))
def test_a_click_below_the_board_shows_its_step_on_a_board_in_view(browser, review_url,
                                                                    size):
    browser.navigate("about:blank")
    browser.viewport(*SCREENS[size])
    browser.navigate(review_url)
    # the page's script has drawn the board (and set its step)
    browser.wait_for("(document.getElementById('review-step') || {dataset: {}}).dataset.i "
                     "!== undefined", 30)
    moves = browser.js("document.querySelectorAll('table.review tr[data-i]').length")
    assert moves >= 60  # a full game, its passes included
    # the graph, at the start, the middle and the end of the game
    for step in (12, 30, 55):
        _click(browser, f'.score-graph rect.step[data-i="{step}"]')
        _shows(browser, step)
    # the biggest mistakes, listed below the graph
    first = browser.js("Number(document.querySelector('#mistakes a').dataset.i)")
    _click(browser, "#mistakes a")
    _shows(browser, first)
    # the moves' table, far down the page: its first and its last row
    for step in (1, moves):
        _click(browser, f'table.review tr[data-i="{step}"]')
        _shows(browser, step)
        assert browser.js(f"document.querySelector('tr[data-i=\"{step}\"]')"
                          ".classList.contains('current')")
    # the page scrolled to its end: the board still in view above the last row
    browser.js("window.scrollTo(0, document.body.scrollHeight)")
    assert browser.js("scrollY") > 0 and browser.js(IN_VIEW)
    assert not browser.scrolls_sideways()
    assert browser.errors == []
