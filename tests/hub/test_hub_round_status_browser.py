"""The organiser's and the hall arbiter's round in headless Chromium, at desktop and
phone sizes: what a person reads on the dashboard and a table's page.

Round 2 of an event: table 1's game is signed by both and held by the director, table
2's was disputed, table 3 has no game this round (it still holds its round-1 game), and
one player has a bye. A forgotten flip at table 2 that nobody pointed out stays in the
hall's incident log after the next move.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from devtools import DevTools
from hub_web_support import TOKEN, FakeDirector, Hall, board_after, moves_of, serve_hub

from controller.hall_protocol.protocol import ClockState, GameResult, TableState, encode_state
from controller.hub.results import Confirmed, Pairing
from controller.scorecard import SignOff
from controller.web.gate import Gate

NOW = 1_764_670_000.0
OPENING = ["f5", "d6", "c3", "d3", "c4"]
LIVE = "document.getElementById('conn').textContent.startsWith('live')"


class ByeDirector(FakeDirector):
    def byes(self, round: int) -> list[str]:
        return ["Eve"] if round == 2 else []


def _state(table: int, game: str, round: int, black: str, white: str, result: GameResult,
           card: SignOff | None, moves: int = 60) -> TableState:
    return TableState(table, game, round, black, white, "tournament", "game_over",
                      board_after(OPENING), None, ClockState(61_000, 58_000, None, NOW),
                      result=result, moves=moves, signoff=card)


@pytest.fixture(scope="module")
def hub() -> Iterator[str]:
    hall = Hall()
    rounds = {1: [Pairing(1, t, f"P{t}b", f"P{t}w") for t in (1, 2, 3, 4)],
              2: [Pairing(2, 1, "Ann", "Bob"), Pairing(2, 2, "Cid", "Dan"),
                  Pairing(2, 4, "Gus", "Hal")]}
    director = ByeDirector(rounds, round=2)
    for t in (1, 2, 3, 4):
        director.results[(1, t)] = Confirmed(1, t, 40, 24, "black")
    director.results[(2, 1)] = Confirmed(2, 1, 45, 19, "black")
    states = [
        _state(1, "r2t1", 2, "Ann", "Bob", GameResult(45, 19, "black"),
               SignOff(45, 19, "black", True, True)),
        _state(2, "r2t2", 2, "Cid", "Dan", GameResult(30, 34, "white"),
               SignOff(30, 34, "white", True, False)),
        _state(3, "r1t3", 1, "P3b", "P3w", GameResult(40, 24, "black"),
               SignOff(40, 24, "black", True, True)),
        # paired in round 2, still showing its round-1 game
        _state(4, "r1t4", 1, "P4b", "P4w", GameResult(40, 24, "black"),
               SignOff(40, 24, "black", True, True)),
    ]
    events: list[dict[str, Any]] = moves_of(OPENING)
    # white's d6 left a disc unturned; black played on: it stands
    events.insert(2, {"t": 1.5, "event": "irregularity", "player": "white",
                      "kind": "forgotten_flip", "squares": ["d5"]})
    events.insert(1, {"t": 0.5, "event": "clock", "black": 598.0, "white": 600.0,
                      "running": "white", "paused": False})
    events.append({"t": 9.0, "event": "clock", "black": 590.0, "white": 580.0,
                   "running": None, "paused": False})
    for table, state in zip((1, 2, 3, 4), states, strict=True):
        for ev in events if table == 2 else moves_of(OPENING):
            hall.event(table, state.game, ev, NOW - 60)
        hall.store.set_state(state, encode_state(state), NOW - 30)
    gate = Gate(64)
    server, served = serve_hub(hall, gate, director, event_name="Meijin 2026")
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        served.close()




def test_the_round_bar_names_the_bye_and_the_idle_table_is_not_live(hub: str,
                                                                    page: DevTools) -> None:
    page.navigate(f"{hub}/arbiter?token={TOKEN}")
    page.wait_for(LIVE + " && !document.getElementById('round-bar').hidden", timeout=15)
    assert page.text("#round-bar") == ("Round 2: 1 of 3 results, 1 bye, 1 not started, 1 "
                                         "waiting for the arbiter, 1 table idle · byes: Eve")
    idle = '#tables .card[data-table="3"]'
    said = page.text(idle)
    assert "idle (no game this round)" in said
    assert "last game: ● P3b — ○ P3w · 40–24 (round 1)" in said
    assert page.js(f"document.querySelector({idle!r}).querySelectorAll('.clock').length") == 0
    assert "move 5" not in said and "round 1" not in page.text(idle + " h3")
    assert "waiting for the arbiter" in page.text('#tables .card[data-table="2"]')
    paired = page.text('#tables .card[data-table="4"]')
    assert "paired, not started\n\nRound 2: Gus (black) – Hal (white): paired, not set up at " \
        "the table yet." in paired and "P4b" not in paired.split("last game")[0]
    assert "done 45–19" in page.text('#tables .card[data-table="1"]')
    # the flag is gone from every card; the log keeps it, with how it ended
    log = page.text("#incidents")
    assert log == ("Table 2 · round 2 · move 2 · White did not turn the disc on d5 — It was "
                   "not pointed out and stands." + log.split("stands.", 1)[1])
    assert not page.scrolls_sideways()
    assert page.errors == []


def test_a_result_signed_by_both_leaves_nothing_to_do(hub: str, page: DevTools) -> None:
    page.navigate(f"{hub}/arbiter/table/1?token={TOKEN}")
    page.wait_for("!document.getElementById('result-box').hidden", timeout=15)
    assert page.text("#result-said") == ("done, 45–19, Ann wins, signed by both — "
                                           "nothing to do.")
    assert page.js("document.getElementById('result-form').hidden") is True
    assert page.js("document.querySelector('[data-action=\"pause\"]').disabled") is True
    assert page.js("document.querySelector('[data-action=\"resume\"]').disabled") is True
    assert page.js("document.title") == "Meijin 2026 — table 1 · round 2 · Ann – Bob"
    assert not page.scrolls_sideways()
    assert page.errors == []


def test_a_disputed_result_asks_the_arbiter_with_the_moves_and_the_clock_folded(
        hub: str, page: DevTools) -> None:
    page.navigate(f"{hub}/arbiter/table/2?token={TOKEN}")
    page.wait_for("!document.getElementById('result-box').hidden", timeout=15)
    assert page.text("#round-step") == ("Round 2: game over, 30–34: waiting for the "
                                          "arbiter to confirm the result (White disputes it).")
    assert page.js("document.getElementById('result-form').hidden") is False
    # the events without the clock's lines, which are folded away below them
    events = page.js("[...document.querySelectorAll('#events li')].map(e => e.textContent)")
    assert events[:3] == ["1. Black f5", "2. White d6", "White: forgotten flip d5"]
    assert not any(e.startswith("clock") for e in events)
    assert page.text("#clock-count") == "2 clock readings"
    assert page.js("document.getElementById('clock-lines').open") is False
    cells = page.js("[...document.querySelectorAll('#moves td')].map(e => e.textContent)")
    assert cells == ["1. f5", "2. d6", "3. c3", "4. d3", "5. c4", ""]
    assert page.js("document.querySelector('#moves td[data-n=\"2\"]').className") == (
        "irregular")
    assert page.text("#incidents") == ("move 2 · White did not turn the disc on d5 — It "
                                         "was not pointed out and stands.")
    assert not page.scrolls_sideways()
    assert page.errors == []
