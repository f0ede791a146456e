"""A player's score is one word and one figure across the hall: the dashboard's 勝数
column (in headless Chromium, as the arbiter reads it), the standings and crosstable
sheets ``kaeshi tournament standings`` prints and writes, and the ranking that ends
``kaeshi hub simulate``'s summary — byes counted alike in each, from the moment they
are paired."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

from devtools import SCREENS
from hub_web_support import TOKEN
from live_hub import LIVE

from controller.cli import main
from controller.hub.director import TournamentDirector
from controller.hub.results import Confirmed
from controller.hub.sim_event import EventSummary
from controller.hub.sim_summary import Comparison
from controller.tournament import Player
from controller.tournament.leaderboard import WINS, leaderboard
from controller.tournament_store.roster import EventConfig
from controller.tournament_store.store import commit, create, load

SHOWN = LIVE + " && !document.getElementById('standings-box').hidden"
#: The dashboard's ranking as the page shows it: each player's cell under the header.
CELLS = """(() => {
  const head = [...document.querySelectorAll('#standings th')].map(e => e.textContent);
  const rows = [...document.querySelectorAll('#standings tr')].slice(1);
  return {head, rows: rows.map(r => [...r.children].map(c => c.textContent))};
})()"""
#: A line of the summary's ranking.
LINE = re.compile(rf"^  (\d+)\. (.+) — {WINS} (\d+)(,.*)?$")


def _event(path: Path) -> TournamentDirector:
    """19 players (a bye every round), round 1 played, round 2 paired and half played:
    the round-2 bye is won already, the other games of round 2 not yet."""
    roster = [Player(f"Player {k:02d}", born=str(1960 + k)) for k in range(1, 20)]
    t = create(path, EventConfig("Hall Open", "open"), roster)
    commit(path, t, "lottery", {"seeds": ["12345", "67890", "13579"]})
    director = TournamentDirector(t, path)
    for p in director.pair_next_round():
        black_wins = p.table % 3 != 0
        director.record_result(Confirmed(1, p.table, 40 if black_wins else 20,
                                         24 if black_wins else 44,
                                         "black" if black_wins else "white"))
    assert director.current_round() == 2
    for p in director.pairings(2)[::2]:
        director.record_result(Confirmed(2, p.table, 33, 31, "black"))
    return director


def _players(sheet: str) -> list[dict[str, str]]:
    """A sheet's player rows (the notes under them left out)."""
    rows = csv.DictReader(io.StringIO(sheet))
    return [r for r in rows if (r.get("position") or r.get("place") or "").isdigit()]


def _column(sheet: str) -> dict[str, int]:
    return {r["name"]: int(r[WINS]) for r in _players(sheet)}


def test_the_dashboard_the_sheets_and_the_summary_give_one_figure(browser, tmp_path,
                                                                   capsys, open_hall):
    path = tmp_path / "event.sqlite"
    director = _event(path)
    _, t = load(path)
    second = t.rounds[1]
    bye = next(g.first for g in second.games if g.is_bye)
    assert bye is not None and not second.complete
    wins_in_games = {n: sum(1 for r in t.rounds for g in r.games
                            if g.done and not g.is_bye and g.winner == n) for n in t.present}
    byes = {n: sum(1 for r in t.rounds for g in r.games if g.is_bye and g.first == n)
            for n in t.present}

    # the sheets: what `kaeshi tournament standings` prints, and the crosstable it writes
    assert main(["tournament", "--db", str(path), "standings", "--out",
                 str(tmp_path / "sheets")]) == 0
    printed = capsys.readouterr().out
    sheet = _column(printed)
    cross = _column((tmp_path / "sheets" / "crosstable.csv").read_text(encoding="utf-8"))

    # the summary: its ranking lines, as `kaeshi hub simulate` ends with them
    summary = EventSummary(4, 1.0, Comparison([]), 1, False, 0,
                           standings=leaderboard(t).lines()).text()
    lines = [m for m in map(LINE.match, summary.splitlines()) if m]
    said = {m[2]: int(m[3]) for m in lines}

    # the dashboard, in the browser, at both sizes
    with open_hall(tmp_path / "hub", delay=0.0, director=director, states={}) as (live, _):
        for width, height in SCREENS.values():
            browser.navigate("about:blank")
            browser.viewport(width, height)
            browser.navigate(f"{live.url}/arbiter?token={TOKEN}")
            browser.wait_for(SHOWN, timeout=15)
            shown = browser.js(CELLS)
            at = shown["head"].index(WINS)
            assert shown["head"].count(WINS) == 1
            assert "Points" not in shown["head"] and "Games" not in shown["head"]
            dashboard = {r[1]: int(r[at]) for r in shown["rows"]}
            assert dashboard == sheet

    # one figure: games won at the board plus byes, the same in every output
    assert set(sheet) == set(t.present)
    assert sheet == cross
    assert said == {n: sheet[n] for n in said} and len(said) == min(8, len(sheet))
    assert sheet == {n: wins_in_games[n] + byes[n] for n in t.present}
    # the round-2 bye counts from its pairing, with round 2 still being played
    assert byes[bye] >= 1 and sheet[bye] == wins_in_games[bye] + byes[bye]
    # the ranking's order is the same in the summary and on the sheet
    order = [r["name"] for r in _players(printed)]
    assert [m[2] for m in lines] == order[:len(lines)]
