"""The simulated arbiter's ruling on a disputed result (``controller.hub.sim_desk``).

The whole path — the player's press on the table's page, the table's link, the hub's
dashboard — runs in ``test_hub_sim_event.py`` against a real broker; there every
table's count is right, so every dispute is rejected. Here the dashboard's answers are
given, to reach the other ruling too: a board whose recount differs from the count the
table reported is confirmed with the recount, and the ruling says so.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from controller.hub.sim_desk import Desk, PlannedDispute, plan_disputes, recount
from controller.tournament import Tournament
from controller.tournament_store.simulate import random_roster


class Dashboard:
    """The hub's arbiter API as the desk calls it: the cards it shows, and every
    confirmation it was sent (answered as the director would record it)."""

    def __init__(self, cards: list[dict[str, Any]]) -> None:
        self.cards = cards
        self.confirmed: list[tuple[str, dict[str, Any]]] = []

    def call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        if body is None:
            assert path == "/api/dashboard"
            return {"tables": self.cards}
        self.confirmed.append((path, body))
        card = next(c for c in self.cards if path == f"/api/table/{c['table']}/confirm")
        black = body.get("black", card["result"]["black"])
        white = body.get("white", card["result"]["white"])
        card["awaiting_confirmation"] = False
        return {"result": {"round": 1, "table": card["table"], "black": black,
                           "white": white}}


def _card(table: int, board: str, black: int, white: int, signoff: str,
          reason: str | None = None) -> dict[str, Any]:
    return {"table": table, "game": f"g{table}", "awaiting_confirmation": True,
            "signoff": signoff, "board": board,
            "result": {"black": black, "white": white, "reason": reason,
                       "winner": "black" if black > white else "white"},
            "attention": {"reason": "result", "detail": f"{black}-{white} to confirm"}}


# 40 black, 23 white and one empty square, which goes to the winner: 41-23
BOARD = "X" * 40 + "O" * 23 + "-"


def test_a_recount_gives_the_empty_squares_to_the_winner_unless_the_clock_ended_it():
    assert recount(BOARD, on_time=False) == (41, 23)
    assert recount(BOARD, on_time=True) == (40, 23)
    small = "X" * 20 + "O" * 14 + "--"  # a 6x6 side event's board
    assert recount(small, on_time=False) == (22, 14)
    with pytest.raises(ValueError):
        recount("X" * 63, on_time=False)  # no board of any size


def test_the_arbiter_rules_on_each_dispute_by_the_recount():
    said: list[str] = []
    pages = Dashboard([
        _card(1, BOARD, 41, 23, "disputed"),  # the table counted right
        _card(2, BOARD, 40, 24, "disputed"),  # one disc counted for the wrong player
        _card(3, BOARD, 40, 23, "flagged", reason="time"),  # not disputed: as shown
    ])
    desk = Desk(pages, [], lambda n: f"http://table-{n}", said.append)
    desk.rule()
    assert pages.confirmed == [
        ("/api/table/1/confirm", {"game": "g1"}),
        ("/api/table/2/confirm", {"game": "g2", "black": 41, "white": 23}),
        ("/api/table/3/confirm", {"game": "g3"}),
    ]
    assert desk.rulings == [
        "round 1 table 1: dispute rejected, the recount agrees: the table's 41-23 stands",
        "round 1 table 2: dispute upheld, the recount 41-23 replaces the table's 40-24",
    ]
    assert desk.confirmed == ["round 1 table 3: 40-23 (40-23 to confirm)"]
    assert said == desk.rulings
    desk.rule()  # nothing waits any more: nothing is confirmed twice
    assert len(pages.confirmed) == 3


def test_disputes_are_planned_on_round_one_tables_of_both_colours():
    def event(players: int) -> Tournament:
        t = Tournament(random_roster(random.Random(1), players, "open"), "open",
                       extend=True)
        t.draw_lottery(["00001", "00002", "00003"])
        t.pair_next_round()
        return t

    assert plan_disputes(event(8), wanted=True) == [
        PlannedDispute(1, 1, "white"), PlannedDispute(1, 2, "black")]
    assert plan_disputes(event(4), wanted=True) == [PlannedDispute(1, 1, "white")]
    assert plan_disputes(event(8), wanted=False) == []


def test_a_late_players_log_holds_the_game_back_after_the_present_players_press():
    from controller.hub.sim_desk import ABSENT, GAME_START, MARK_PRESS, late_log
    from controller.observation import Observation
    from controller.position import Position
    from controller.squares import Color

    start = Position.start().board_string()
    game = [Observation(0.0, board=start), Observation(0.3, press=Color.WHITE),
            Observation(1.0, board=start)]
    log = late_log(game, "white")
    assert log[:2] == [game[0], Observation(MARK_PRESS, press=Color.BLACK)]
    assert [o.t for o in log[2:]] == [GAME_START, GAME_START + 0.3, GAME_START + 1.0]
    assert MARK_PRESS + ABSENT < GAME_START  # the arrival comes before the game goes on
    assert late_log(game, "black")[1].press is Color.WHITE
    with pytest.raises(ValueError, match="start with the board"):
        late_log(game[1:], "white")


def test_the_late_player_at_the_table_is_planned_on_the_third_of_four_tables():
    from controller.hub.sim_desk import plan_late

    t = Tournament(random_roster(random.Random(1), 8, "open"), "open", extend=True)
    t.draw_lottery(["00001", "00002", "00003"])
    t.pair_next_round()
    assert plan_late(t, wanted=True) == [PlannedDispute(1, 3, "white")]
    assert plan_late(t, wanted=False) == []
    small = Tournament(random_roster(random.Random(1), 6, "open"), "open", extend=True)
    small.draw_lottery(["00001", "00002", "00003"])
    small.pair_next_round()
    assert plan_late(small, wanted=True) == []  # three tables: the desk has them all
