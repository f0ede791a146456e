"""Small open fields: below the open format's minimum the event is refused unless the
organiser confirms the small-field variant, which every output names; grades and the
王座戦 are never given for byes alone."""

from __future__ import annotations

import csv
import html
import io

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.tournament.awards import award_list
from controller.tournament.event import Tournament
from controller.tournament.lottery import OPEN_MINIMUM
from controller.tournament.model import Player, TournamentError
from controller.tournament_store.simulate import simulate


def roster(n: int) -> list[Player]:
    return [Player(f"P{k:02d}") for k in range(n)]


@pytest.mark.parametrize("n", [1, 2, 5, OPEN_MINIMUM - 1])
def test_below_the_minimum_the_open_format_needs_the_organisers_word(n):
    with pytest.raises(TournamentError, match=f"{n} players present: the open format .* "
                                              f"needs at least {OPEN_MINIMUM}"):
        Tournament(roster(n), "open")
    t = Tournament(roster(n), "open", extend=True)
    assert t.extension is not None and t.extension.startswith("small-field variant")


def test_absent_players_do_not_make_a_field():
    players = roster(OPEN_MINIMUM) + [Player("late", absent=True)]
    players[0] = Player("P00", absent=True)
    with pytest.raises(TournamentError, match=f"{OPEN_MINIMUM - 1} players present"):
        Tournament(players, "open")
    assert Tournament(roster(OPEN_MINIMUM), "open").extension is None


def play(t: Tournament) -> Tournament:
    t.draw_lottery(["1", "2", "3"])
    while not t.finished:
        for g in t.pair_next_round().games:
            if g.table is not None:
                t.record_result(g.table, "black", (40, 24))
    return t


def test_one_player_gets_no_grade_for_seven_byes():
    t = play(Tournament(roster(1), "open", extend=True))
    (award,) = award_list(t)
    assert award.place == 1 and award.grade is None and not award.ouza
    assert t.extension and t.rounds[0].notes[0] == t.extension


def test_two_players_the_loser_of_the_one_game_gets_no_grade():
    t = play(Tournament(roster(2), "open", extend=True))
    awards = {a.name: a for a in award_list(t)}
    played = [g for r in t.rounds for g in r.games if not g.is_bye]
    loser = next(g.loser for g in played)
    assert awards[loser].grade is None and not awards[loser].ouza


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, OPEN_MINIMUM + 8), seed=st.integers(0, 10_000))
def test_nobody_is_graded_who_won_no_game_at_the_board(n, seed):
    t = simulate(n, "open", seed, withdrawals=0, extend=True)
    won = {g.winner for r in t.rounds for g in r.games
           if g.done and not g.is_bye and not g.forfeit}
    for a in award_list(t):
        if a.name not in won:
            assert a.grade is None and not a.ouza, a


def test_every_csv_sheet_of_a_variant_ends_with_its_note():
    """A sheet read alone (a spreadsheet, a file sent on) still says the event ran as
    a variant; an event run by the rules' own format has no such line."""
    from controller.tournament_store import formats, paper

    def sheets(t: Tournament) -> dict[str, str]:
        return {"round": formats.pairing_sheet(t, t.rounds[0], "csv"),
                "standings": formats.standings_sheet(t, "csv"),
                "prizes": formats.prize_sheet(t, "csv"),
                "crosstable": paper.crosstable(t, "csv")}

    small = play(Tournament(roster(8), "open", extend=True))
    assert small.extension
    for name, text in sheets(small).items():
        last = list(csv.reader(io.StringIO(text)))[-1]
        header = next(csv.reader(io.StringIO(text)))
        assert last[:2] == ["note", small.extension] and len(last) == len(header), name
    assert html.escape(small.extension) in paper.crosstable(small, "html")
    full = play(Tournament(roster(OPEN_MINIMUM), "open"))
    assert full.extension is None
    for name, text in sheets(full).items():
        assert all(row[0] != "note" for row in csv.reader(io.StringIO(text))), name
