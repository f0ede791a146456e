"""The score card at one table: the players' sign-off (rule 15) and a late arrival
(rules 11–12), as pure state; and the director's record of both."""

from __future__ import annotations

import pytest

from controller.scorecard import LateArrival, ScoreCardError, SignOff
from controller.tournament import Player, Tournament, TournamentError
from controller.tournament_store.formats import event_json, wof_results
from controller.tournament_store.roster import EventConfig


def test_both_players_sign_and_nobody_else_is_asked():
    card = SignOff(36, 28, "black")
    assert card.status == "waiting" and not card.needs_arbiter
    card = card.answer("black", True)
    assert card.status == "waiting"
    card = card.answer("white", True)
    assert card.status == "signed" and not card.needs_arbiter
    assert card.answer("white", True) == card  # the same press again changes nothing


def test_a_dispute_or_a_flag_asks_the_arbiter():
    disputed = SignOff(36, 28, "black").answer("black", True).answer("white", False)
    assert disputed.status == "disputed" and disputed.needs_arbiter
    flagged = SignOff(33, 31, "black").flag("forgotten_flip at c4 not put right")
    flagged = flagged.answer("black", True).answer("white", True)
    assert flagged.status == "flagged" and flagged.needs_arbiter
    assert SignOff(33, 31, "black").answer("white", False).needs_arbiter  # at once


def test_a_signature_stands_and_bad_cards_are_refused():
    card = SignOff(36, 28, "black").answer("white", True)
    with pytest.raises(ScoreCardError, match="white already confirmed 36-28"):
        card.answer("white", False)
    with pytest.raises(ScoreCardError, match="black or white, not 'red'"):
        card.answer("red", True)
    with pytest.raises(ScoreCardError, match="more than 64"):
        SignOff(40, 30, "black")
    with pytest.raises(ScoreCardError, match="winner must be"):
        SignOff(40, 24, "nobody")


def test_late_player_clock_runs_from_the_press_and_stops_on_arrival():
    late = LateArrival("Bob", "Ann", minutes=20)
    late = late.start_clock(at=100.0)  # the arbiter's word at the start of the round
    assert late.state == "clock_running"
    assert late.remaining(400.0) == 20 * 60 - 300
    came = late.arrive(at=100.0 + 7 * 60 + 30)
    assert came.state == "arrived" and came.remaining_ms == (20 * 60 - 450) * 1000
    assert came.remaining(5000.0) == 20 * 60 - 450  # stopped: time passes no more
    assert came.play_on().state == "playing"
    assert came.take_forfeit().lost_unplayed
    with pytest.raises(ScoreCardError, match="cannot play on while forfeit"):
        came.take_forfeit().play_on()
    with pytest.raises(ScoreCardError, match="before the clock started"):
        late.arrive(at=50.0)


def test_late_player_whose_time_ran_out_lost_unplayed():
    late = LateArrival("Bob", "Ann", minutes=20).start_clock(at=0.0)
    gone = late.arrive(at=20 * 60 + 1)
    assert gone.state == "timed_out" and gone.lost_unplayed and gone.remaining_ms == 0


def _event() -> Tournament:
    t = Tournament([Player(f"p{k}", rank="1段", federation_id=str(500 + k)) for k in range(8)],
                   "open", "Late test", extend=True)
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    return t


def test_director_records_late_states_in_order_and_a_forfeit_not_rated():
    t = _event()
    g1, g2 = t.current.table(1), t.current.table(2)
    assert t.report_late(1, g1.second, "absent") is True
    assert t.report_late(1, g1.second, "absent") is False
    t.report_late(1, g1.second, "clock_running")
    with pytest.raises(TournamentError, match="already clock_running; refusing absent"):
        t.report_late(1, g1.second, "absent")
    with pytest.raises(TournamentError, match=f"{g1.second} is the late player there"):
        t.report_late(1, g1.first, "absent")
    with pytest.raises(TournamentError, match="late state must be one of"):
        t.report_late(2, g2.first, "asleep")
    t.report_late(1, g1.second, "arrived", 1_020_000)
    t.report_late(1, g1.second, "forfeit", 1_020_000)
    assert t.record_forfeit(1, g1.second) is True
    assert t.record_forfeit(1, g1.second) is False
    with pytest.raises(TournamentError, match="already has the result .* \\(forfeit\\)"):
        t.record_forfeit(1, g1.first)
    assert g1.winner == g1.first and g1.forfeit and g1.discs is None
    t.report_late(2, g2.first, "clock_running")
    t.report_late(2, g2.first, "playing", 900_000)
    t.record_result(2, "black", (40, 24))
    for table in (3, 4):
        t.record_result(table, "white", (20, 44))
    wins = {s.name: s.wins for s in t.standings()}
    assert wins[g1.first] == 1 and wins[g1.second] == 0  # the forfeit counts
    wof = wof_results(t, EventConfig("Late test", "open", "2021-07-18", extend=True))
    n_winner = int(t.players[g1.first].federation_id)
    n_loser = int(t.players[g1.second].federation_id)
    rated = [line for line in wof.splitlines() if not line.startswith("%")]
    assert len(rated) == 3  # the forfeit is not among the rated games
    pairs = [{int(line.split()[0]), int(line.split()[2])} for line in rated]
    assert {n_winner, n_loser} not in pairs
    assert f"% {g1.first} wins by {g1.second}'s forfeit (not rated)" in wof
    games = event_json(t)["rounds"][0]["games"]
    first = next(g for g in games if g["table"] == 1)
    assert first["forfeit"] is True and first["late"] == {
        "player": g1.second, "state": "forfeit", "remaining_ms": 1_020_000}
    second = next(g for g in games if g["table"] == 2)
    assert second["forfeit"] is False and second["late"]["state"] == "playing"
    assert second["discs"] == [40, 24]
