"""Once the final is played every output shows the final ranking, and the prize-giving
sheet lists places, 段級位 and the 王座戦 list."""

from __future__ import annotations

import csv
import io
import json

import pytest

from controller.cli import main
from controller.hub.director import TournamentDirector
from controller.tournament.event import Tournament
from controller.tournament.leaderboard import leaderboard
from controller.tournament.model import Player, TournamentError
from controller.tournament_store import formats
from controller.tournament_store.simulate import simulate


def test_the_40_player_example_shows_the_final_ranking_everywhere(tmp_path, capsys):
    out = tmp_path / "sim"
    assert main(["tournament", "simulate", "--players", "40", "--seed", "1",
                 "--out", str(out)]) == 0
    data = json.loads((out / "event.json").read_text())
    final = [r["name"] for r in data["final_ranking"]]
    final_round = data["rounds"][-1]["games"]
    champion = next(g["winner"] for g in final_round if g["stage"] == "final")
    third = next(g for g in final_round if g["stage"] == "third")
    assert final[0] == champion and final[3] == next(
        g["second"] if g["winner"] == g["first"] else g["first"] for g in [third])
    rows = list(csv.DictReader(io.StringIO((out / "standings.csv").read_text())))
    assert [r["name"] for r in rows] == final
    assert [r["place"] for r in rows[:4]] == ["1", "2", "3", "4"]
    assert rows[0]["段級位"] == "七段" and rows[1]["段級位"] == rows[2]["段級位"] == "六段"
    assert "最終順位" in (out / "standings.html").read_text()
    prizes = list(csv.DictReader(io.StringIO((out / "prizes.csv").read_text())))
    assert [(p["順位"], p["name"], p["段級位"], p["王座戦"]) for p in prizes] == [
        (str(r["place"]), r["name"], r["grade"] or "", "出場" if r["ouza"] else "")
        for r in data["final_ranking"]]
    page = (out / "prizes.html").read_text()
    ouza = [r["name"] for r in data["final_ranking"] if r["ouza"]]
    assert ouza and f"王座戦出場 ({len(ouza)}): " + "、".join(ouza) in page
    assert "無差別の部" in page


def test_the_hub_and_the_broadcast_rank_like_the_sheets():
    t = simulate(40, "open", 1)
    board = leaderboard(t)
    assert board.final and [r.name for r in board.rows] == t.final_ranking()
    shown = TournamentDirector(t).standings()
    assert [s.player for s in shown] == t.final_ranking()
    assert all(s.final for s in shown) and shown[0].grade == "七段"
    assert [label for label, _ in shown[0].criteria] == ["勝数", "段級位", "王座戦"]


def test_a_knockout_division_ranks_by_place_too():
    t = simulate(24, "women", 2)
    board = leaderboard(t)
    assert board.final and [r.name for r in board.rows] == t.final_ranking()
    header, rows = formats.standing_table(t)
    assert header == ["place", "number", "name", "group", "勝数", "段級位", "王座戦"]
    assert [r[5] for r in rows[:3]] == ["五段", "四段", "三段"]


def test_before_the_final_the_criteria_are_named_as_the_rules_name_them():
    t = Tournament([Player(f"P{k}") for k in range(8)], "open", "x", extend=True)
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    board = leaderboard(t)
    assert not board.final and "暫定順位" in board.title
    assert board.labels[0] == "勝数" and board.labels[-1] == "抽選番号"
    assert board.labels[1] == "2. 上位1+下位1の勝数" and len(board.labels) == 9
    with pytest.raises(TournamentError, match="needs the final ranking"):
        formats.prize_sheet(t, "csv")
