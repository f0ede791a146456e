"""The arbiter's corrections: journaled with who and why, past pairings kept, the
standings recomputed, the sheets marked."""

from __future__ import annotations

import json

import pytest

from controller.cli import main
from controller.tournament.corrections import correct
from controller.tournament.event import Tournament
from controller.tournament.model import Player, TournamentError
from controller.tournament_store import formats, store
from controller.tournament_store.roster import EventConfig

BY = {"by": "Arbiter Sato", "why": "score card signed the wrong way round"}


def event(n: int = 16, division: str = "open") -> Tournament:
    t = Tournament([Player(f"P{k:02d}", born=str(1960 + k)) for k in range(n)], division, "x",
                   extend=division == "open")
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    return t


def play_round(t: Tournament) -> None:
    for g in t.current.games:  # type: ignore[union-attr]
        if g.table is not None and not g.done:
            t.record_result(g.table, "black", (40, 24))


def wins(t: Tournament) -> dict[str, int]:
    return {s.name: s.wins for s in t.standings()}


def test_a_result_of_this_round_is_corrected_and_marked():
    t = event()
    g = t.current.table(1)
    t.record_result(1, "black", (40, 24))
    with pytest.raises(TournamentError, match="a correction needs by"):
        correct(t, {"what": "result", "round": 1, "table": 1, "outcome": "white",
                   "discs": [20, 44], "why": "x"})
    c = correct(t, {"what": "result", "round": 1, "table": 1, "outcome": "white",
                   "discs": [20, 44], **BY})
    assert g.winner == g.white and g.corrected == c.text
    assert c.text == f"black 40-24 ({g.black} won) → white 20-44 ({g.white} won)"
    assert wins(t)[g.white] == 1 and wins(t)[g.black] == 0
    sheet = formats.pairing_sheet(t, t.current, "html")
    assert "[corrected]" in sheet and "by Arbiter Sato: score card signed" in sheet


def test_an_earlier_round_is_corrected_after_the_next_was_paired(tmp_path):
    path = tmp_path / "e.sqlite"
    t = store.create(path, EventConfig("x", "open", extend=True),
                     [Player(f"P{k:02d}", born=str(1960 + k)) for k in range(16)])
    store.commit(path, t, "lottery", {"seeds": ["1", "2", "3"]})
    store.commit(path, t, "pair", {})
    for g in t.current.games:
        store.commit(path, t, "result", {"table": g.table, "outcome": "black",
                                         "discs": [40, 24]})
    store.commit(path, t, "pair", {})
    round2 = [(g.table, g.first, g.second) for g in t.rounds[1].games]
    g = t.rounds[0].table(2)
    store.commit(path, t, "correct", {"what": "result", "round": 1, "table": 2,
                                      "outcome": "white", "discs": [30, 34], **BY})
    assert [(x.table, x.first, x.second) for x in t.rounds[1].games] == round2
    assert wins(t)[g.white] == 1 and wins(t)[g.black] == 0
    assert t.standings() == t.standings_from_scratch()
    _, again = store.load(path)  # the journal replays to the same event
    assert again.standings() == t.standings()
    assert [c.text for c in again.corrections] == [c.text for c in t.corrections]
    with pytest.raises(TournamentError, match="round 1 is over"):
        correct(t, {"what": "clear", "round": 1, "table": 2, **BY})


def test_swapped_colours_keep_the_winner():
    t = event()
    g = t.current.table(1)
    black, white = g.black, g.white
    t.record_result(1, "black", (40, 24))
    correct(t, {"what": "colours", "round": 1, "table": 1, **BY})
    assert (g.black, g.white, g.outcome, g.discs, g.winner) == (
        white, black, "white", (24, 40), black)


def test_a_forfeit_is_set_and_undone():
    t = event()
    g = t.current.table(1)
    t.record_result(1, "black", (40, 24))
    correct(t, {"what": "forfeit", "round": 1, "table": 1, "loser": g.white, **BY})
    assert g.forfeit and not g.rated and g.winner == g.black
    correct(t, {"what": "clear", "round": 1, "table": 1, **BY})
    assert not g.done and not g.forfeit and wins(t).get(g.black, 0) == 0
    t.record_result(1, "white", (10, 50))
    assert g.winner == g.white


def test_a_withdrawal_is_undone():
    t = event()
    play_round(t)
    name = t.rounds[0].table(1).first
    t.withdraw(name)
    correct(t, {"what": "reinstate", "name": name, **BY})
    rnd = t.pair_next_round()
    assert any(name in (g.first, g.second) for g in rnd.games)
    with pytest.raises(TournamentError, match="has not withdrawn"):
        correct(t, {"what": "reinstate", "name": name, **BY})


def test_a_manual_pairing_seats_the_same_players_again():
    t = event()
    g1, g2 = t.current.table(1), t.current.table(2)
    a, b, c, d = g1.first, g1.second, g2.first, g2.second
    with pytest.raises(TournamentError, match="missing"):
        correct(t, {"what": "pairing", "tables": [[a, c]], **BY})
    correct(t, {"what": "pairing", "tables": [[a, c], [b, d]], **BY})
    seated = {(x.first, x.second) for x in t.current.games}
    assert (a, c) in seated and (b, d) in seated
    assert sorted(x.table for x in t.current.games if x.table) == list(
        range(1, len(t.current.games) + 1))
    t.record_result(1, "black", (40, 24))
    with pytest.raises(TournamentError, match="already has a result"):
        correct(t, {"what": "pairing", "tables": [[a, d], [b, c]], **BY})


def test_a_knockout_result_that_decided_the_next_round_needs_a_repairing_first():
    t = event(20, "women")
    play_round(t)
    t.pair_next_round()
    game = next(g for g in t.rounds[0].games if g.table is not None)
    with pytest.raises(TournamentError, match="re-pair its games by hand"):
        correct(t, {"what": "result", "round": 1, "table": game.table, "outcome": "white",
                   "discs": [20, 44], **BY})


def test_the_command_line_journals_the_correction(tmp_path, capsys):
    (tmp_path / "e.toml").write_text('name = "T"\ndate = "2021-07-18"\nextend = true\n',
                                      encoding="utf-8")
    (tmp_path / "r.csv").write_text("name\n" + "".join(f"P{k}\n" for k in range(8)),
                                    encoding="utf-8")
    db = str(tmp_path / "t.sqlite")
    assert main(["tournament", "--db", db, "new", str(tmp_path / "e.toml"), "--roster",
                 str(tmp_path / "r.csv")]) == 0
    assert main(["tournament", "--db", db, "lottery", "--seeds", "1", "2", "3"]) == 0
    assert main(["tournament", "--db", db, "pair"]) == 0
    assert main(["tournament", "--db", db, "result", "1", "black", "--discs", "40-24"]) == 0
    assert main(["tournament", "--db", db, "result", "1", "white", "--discs", "20-44"]) == 1
    assert "an arbiter's correction is entered as one" in capsys.readouterr().err
    assert main(["tournament", "--db", db, "correct", "--by", "Sato", "--why", "card",
                 "result", "1", "1", "white", "--discs", "20-44"]) == 0
    assert "corrected round 1 table 1: black 40-24" in capsys.readouterr().out
    assert main(["tournament", "--db", db, "export", str(tmp_path / "out")]) == 0
    data = json.loads((tmp_path / "out" / "event.json").read_text())
    assert data["corrections"][0]["by"] == "Sato"
    assert data["rounds"][0]["games"][0]["corrected"]
