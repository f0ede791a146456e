"""The broadcast names a move list's entries alike on the hall's cards and on a table's
own page (headless Chromium, desktop and phone): an illegal pass is "pass (illegal)" on
both, a board the arbiter set is said in words, and stepping back reaches it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from devtools import DevTools
from hub_web_support import Hall, serve_hub
from test_hub_broadcast_steps import _official_game

from controller.web.gate import Gate

LIVE = "document.getElementById('conn').textContent.startsWith('live')"


@pytest.fixture(scope="module")
def hub() -> Iterator[str]:
    hall = Hall()
    _official_game(hall)  # f5 d6, an illegal pass, f4, a board the arbiter set, e6
    hall.store.announce(1, "g1")
    hall.state(1, 10_100.0, game="g1", black="Ann", white="Bob")
    server, served = serve_hub(hall, Gate(64), event_name="Meijin 2026")
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        served.close()



def test_the_card_and_the_board_page_name_every_entry_alike(hub: str, page: DevTools) -> None:
    said = "1. f5 2. d6 3. pass (illegal) 4. f4 [board set by the arbiter] 5. e6"
    page.navigate(hub + "/")
    card = "document.querySelector('#tables .card[data-table=\"1\"]')"
    page.wait_for(LIVE + f" && {card} !== null", timeout=15)
    assert page.js(f"{card}.querySelector('.moves').textContent") == said
    # one score on the card: the game is still on, so the discs on the board
    state = page.js(f"{card}.querySelector('.state').textContent")
    assert state.startswith("white to move · move 5 · discs ") and "Final" not in state
    assert page.js("document.title") == "Meijin 2026 — live"

    page.navigate(hub + "/board/1")
    page.wait_for(LIVE + " && document.querySelectorAll('#moves td[data-i]').length === 6",
                  timeout=15)
    cells = page.js("[...document.querySelectorAll('#moves td[data-i]')]"
                    ".map(c => c.textContent)")
    assert " ".join(cells) == said
    assert page.js("document.getElementById('to-move').textContent") == (
        "5 moves played · white to move · round 1 · Meijin 2026")
    page.js("document.getElementById('nav-prev').click()")
    assert page.js("document.getElementById('nav-at').textContent") == (
        "board set by the arbiter")
    assert page.js("document.querySelector('[data-sq=\"a1\"]').dataset.disc") == "black"
    page.js("document.getElementById('nav-prev').click()")
    assert page.js("document.querySelector('[data-sq=\"a1\"]').dataset.disc") == "empty"
    page.js("document.getElementById('nav-prev').click()")
    assert page.js("document.getElementById('nav-at').textContent") == (
        "move 3 of 5, black pass (illegal)")
    assert not page.scrolls_sideways()
    assert page.errors == []
