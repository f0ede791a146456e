"""Results that cannot be true are refused with the reason; the reasons a game ends
with (rules 12–14, 18) are kept, and the unrated ones stay out of the rating file."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.tournament.event import Tournament
from controller.tournament.model import Player, TournamentError
from controller.tournament_store import formats
from controller.tournament_store.roster import EventConfig


def event() -> Tournament:
    t = Tournament([Player(f"P{k}", born=str(1960 + k)) for k in range(8)], "open", "x",
                   extend=True)
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    return t


def players(t: Tournament, table: int = 1) -> tuple[str, str]:
    g = t.current.table(table)  # type: ignore[union-attr]
    return g.black, g.white  # type: ignore[return-value]


@settings(max_examples=150, deadline=None)
@given(b=st.integers(-2, 66), w=st.integers(-2, 66),
       outcome=st.sampled_from(["black", "white", "draw"]))
def test_a_board_result_stands_only_when_the_discs_name_its_winner(b, w, outcome):
    t = event()
    black, white = players(t)
    t.record_toss(1, black, white)  # white holds the draw-win right
    possible = b >= 0 and w >= 0 and 4 <= b + w <= 64
    agrees = outcome == ("black" if b > w else "white" if w > b else "draw")
    if possible and agrees:
        assert t.record_result(1, outcome, (b, w))
        g = t.current.table(1)
        assert g.winner == (black if outcome == "black" else white)
    else:
        with pytest.raises(TournamentError, match="table 1: "):
            t.record_result(1, outcome, (b, w))
        assert not t.current.table(1).done


@pytest.mark.parametrize(("outcome", "discs", "needle"), [
    ("black", (30, 34), "black declared the winner at 30-34, but the discs say white"),
    ("black", (0, 0), "cannot be on a board, which starts with 4 discs"),
    ("white", (34, 30), "discs say black"),
    ("black", (34, 30), None),
    ("black", (13, 0), None),  # a wipe-out ends the game early
    ("black", (50, 20), "at most 64 together"),
])
def test_the_issue_examples(outcome, discs, needle):
    t = event()
    if needle is None:
        assert t.record_result(1, outcome, discs)
        return
    with pytest.raises(TournamentError, match=needle):
        t.record_result(1, outcome, discs)


def test_time_and_foul_keep_the_board_as_it_stood_and_are_rated():
    t = event()
    assert t.record_result(1, "white", (40, 24), reason="time")  # black's flag fell
    assert t.record_result(2, "black", (10, 30), reason="foul")
    g1, g2 = t.current.table(1), t.current.table(2)
    assert (g1.reason, g1.rated, g2.reason, g2.rated) == ("time", True, "foul", True)
    with pytest.raises(TournamentError, match="has a winner; enter black or white"):
        t.record_result(3, "draw", (32, 32), reason="time")


def test_both_flags_go_to_the_draw_win_holder_and_are_not_rated():
    t = event()
    black, white = players(t)
    with pytest.raises(TournamentError, match="needs the draw-win holder"):
        t.record_result(1, "draw", None, reason="both_flags")
    t.record_toss(1, black, white)
    with pytest.raises(TournamentError, match=f"the draw-win holder {white} wins, not {black}"):
        t.record_result(1, "black", (40, 20), reason="both_flags")
    assert t.record_result(1, "draw", (40, 20), reason="both_flags")
    g = t.current.table(1)
    assert g.winner == white and not g.rated
    for table in (2, 3, 4):
        t.record_result(table, "black", (40, 24))
    wof = formats.wof_results(t, EventConfig("x", "open", "2021-07-18", extend=True))
    assert "both flags fell (rule 14, not rated)" in wof
    numbers = t.numbers
    assert f"{numbers[black]} (40)" not in wof
    assert "(40)>(24)" in wof
    with pytest.raises(TournamentError, match="entered as one"):
        t.record_result(2, "black", (40, 24), reason="forfeit")


def test_no_win_for_a_player_who_timed_out_or_took_the_forfeit():
    t = event()
    black, white = players(t, 1)
    t.report_late(1, white, "clock_running")
    t.report_late(1, white, "timed_out")
    with pytest.raises(TournamentError, match="ran out of time before arriving.*forfeit"):
        t.record_result(1, "white", (40, 24))
    t.record_forfeit(1, white)
    assert t.current.table(1).winner == black and not t.current.table(1).rated
    b2, w2 = players(t, 2)
    t.report_late(2, b2, "arrived", 300_000)
    t.report_late(2, b2, "forfeit")
    with pytest.raises(TournamentError, match="took the forfeit"):
        t.record_result(2, "black", (40, 24))


def test_late_steps_follow_the_score_card():
    t = event()
    black, white = players(t, 1)
    with pytest.raises(TournamentError, match="cannot have 25:00 left in a 20-minute"):
        t.report_late(1, white, "arrived", 25 * 60_000)
    with pytest.raises(TournamentError, match="has not arrived"):
        t.report_late(1, white, "playing")
    with pytest.raises(TournamentError, match="known only on arrival"):
        t.report_late(1, white, "clock_running", 60_000)
    t.report_late(1, white, "clock_running")
    with pytest.raises(TournamentError, match="not arrived, so no game was played"):
        t.record_result(1, "black", (40, 24))
    with pytest.raises(TournamentError, match="arrived with no time left"):
        t.report_late(1, white, "arrived", 0)
    t.report_late(1, white, "arrived", 12 * 60_000)
    t.report_late(1, white, "playing")
    with pytest.raises(TournamentError, match="chose to play"):
        t.record_forfeit(1, white)
    with pytest.raises(TournamentError, match="came on time"):
        t.record_forfeit(1, black)
    assert t.record_result(1, "white", (24, 40))
    # a report that carries the time left implies the arrival (a table seen late)
    b2, w2 = players(t, 2)
    assert t.report_late(2, w2, "playing", 600_000)
