"""A pairing a table refuses, as the hall arbiter reads it in headless Chromium at
desktop and phone sizes: the round bar counts it and ends with their next step, the
table's card needs the arbiter, is drawn as not live and says what to do, and the
table's page says the round's text, which ends with the same next step.

Round 3 of an event on 10x10 boards: table 2 plays its game, table 7 is set up for
8x8 boards, still shows its round-2 game and refuses the pairing.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from devtools import DevTools
from hub_web_support import TOKEN, FakeDirector, Hall, serve_hub

from controller.hall_protocol.protocol import GameResult, TableState, encode_state
from controller.hub.results import Pairing
from controller.position import Position
from controller.round_flow import pairing_refusal
from controller.scorecard import SignOff
from controller.web.gate import Gate

NOW = 1_764_670_000.0
LIVE = "document.getElementById('conn').textContent.startsWith('live')"
TODO = "set game.size = 10 at the table, restart it and send the pairings again"
TEXT = ("Round 3: Ann (black) – Bob (white): pairing refused, the table is set up for an "
        f"8x8 board and the event is on 10x10 boards: {TODO}.")


@pytest.fixture(scope="module")
def hub() -> Iterator[str]:
    hall = Hall()
    director = FakeDirector({3: [Pairing(3, 2, "Cid", "Dan", size=10),
                                 Pairing(3, 7, "Ann", "Bob", size=10)]}, round=3)
    playing = TableState(2, "r3t2", 3, "Cid", "Dan", "tournament", "playing",
                         Position.start(10).board_string(), "black", None, size=10)
    refusing = TableState(7, "r2t7", 2, "Pia", "Quin", "tournament", "game_over",
                          Position.start().board_string(), None, None,
                          result=GameResult(40, 24, "black"), moves=60,
                          signoff=SignOff(40, 24, "black", True, True),
                          refusal=pairing_refusal(3, 10, 8))
    for state in (playing, refusing):
        hall.store.set_state(state, encode_state(state), NOW - 30)
    server, served = serve_hub(hall, Gate(64), director, event_name="Meijin 2026")
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        served.close()




def test_the_round_bar_and_the_card_name_the_refusal_and_the_arbiters_step(
        hub: str, page: DevTools) -> None:
    page.navigate(f"{hub}/arbiter?token={TOKEN}")
    page.wait_for(LIVE + " && !document.getElementById('round-bar').hidden", timeout=15)
    assert page.text("#round-bar") == (
        f"Round 3: 0 of 2 results, 1 pairing refused, 1 playing — arbiter: table 7, {TODO}")
    card = '#urgent .card[data-table="7"]'
    assert page.js(f"document.querySelector({card!r}).dataset.stage") == "refused"
    said = page.text(card)
    # the table's words, which end with the arbiter's step, then the round's text
    assert said.startswith(f"Table 7\n\nstopped: pairing refused: round 3 is paired on a "
                           f"10x10 board, this table is set up for an 8x8 (game.size): the "
                           f"game is not started; {TODO}\n")
    assert TEXT not in said  # said once, by the table's words above
    assert "pairing refused" in page.text(card + " .round-step")
    assert "Pia" not in said.split("last game")[0]  # its last game is not shown as live
    assert "last game: ● Pia — ○ Quin · 40–24 (round 2)" in said
    assert page.js(f"document.querySelector({card!r}).classList.contains('stale')") is True
    assert not page.scrolls_sideways()
    assert page.errors == []


def test_the_tables_page_says_the_rounds_text_and_the_next_step(hub: str,
                                                                page: DevTools) -> None:
    page.navigate(f"{hub}/arbiter/table/7?token={TOKEN}")
    page.wait_for("!document.getElementById('round-step').hidden", timeout=15)
    assert page.text("#round-step") == TEXT
    assert page.js("document.getElementById('round-step').dataset.stage") == "refused"
    assert not page.scrolls_sideways()
    assert page.errors == []
