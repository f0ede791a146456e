"""A hall day end to end: ``kaeshi hub simulate --players 8 --rounds 2``.

A real Mosquitto (the hall's config, password file and ACL), ``kaeshi hub`` with the
event file of ``kaeshi tournament`` and 4 real table services replaying real WTHOR
games. Round 1 goes out through the dashboard's "Send pairings to the tables"; each
table plays its game only once its ``next_game`` order came, both players sign the
result with their clock buttons, the hub hands each signed result to the director,
and the director pairs round 2 from round 1's results, which the tables then play.
Afterwards the event file holds both rounds' results as the tables' journals have
them, and every table's events in the hub equal its journal.

No division plays draws: every game's 伏せ石 is recorded through the dashboard, and
with this seed table 4 replays a real game that ends 32–32 in round 1 (WTHOR 2001,
game 30): its holder of the draw-win right wins it, at the table and at the director,
and the event goes on to round 2.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import re
import shutil
import sqlite3

import pytest

from controller.cli import main
from controller.hub.sim_event import EventPlan, simulate_event
from controller.hub.sim_summary import SimulateOptions
from controller.tournament.leaderboard import WINS
from controller.tournament_store import store


def _finished_games(folder, table):
    """(black, white, result) of each game table ``table`` finished, from its journal
    (its events and settings as the table journaled them)."""
    path = folder / f"table-{table}" / "journal.sqlite"
    out = []
    with contextlib.closing(sqlite3.connect(path)) as db:
        games = db.execute("SELECT id, info FROM games WHERE finished IS NOT NULL "
                           "ORDER BY started").fetchall()
        for game, info in games:
            over = db.execute("SELECT data FROM entries WHERE game=? AND kind='event' "
                              "AND json_extract(data, '$.event')='game_over'",
                              (game,)).fetchall()
            if not over:
                continue  # the empty game replaced by the table's first pairing
            settings = json.loads(info)["settings"]
            e = json.loads(over[-1][0])
            out.append((settings["black"], settings["white"], (e["black"], e["white"])))
    return out


@pytest.mark.slow
def test_two_rounds_paired_by_the_director_signed_at_the_tables(tmp_path, data_dir,
                                                                 capsys):
    said: list[str] = []
    options = SimulateOptions(speed=40.0, errors=0.0, folder=str(tmp_path), seed=27)
    plan = EventPlan(players=8, rounds=2, extend=True, incidents=False)
    summary = simulate_event(options, plan, said.append)

    assert summary.rounds == 2, (said, summary.text())
    assert summary.tables == 4
    lost, doubled = summary.comparison.lost_and_doubled()
    assert (lost, doubled) == (0, 0)
    assert summary.comparison.equal
    # every result reached the director through the players' signatures, none by hand
    assert summary.arbiter == []
    assert summary.signed == 6  # an 8-player open event: 4 games, then 2 (and byes)
    # the dashboard's bar as the day ended (controller/round_flow.py): round 3 paired,
    # its tables still showing round 2's games
    third = store.load(tmp_path / "event.sqlite")[1].rounds[2].games
    byes, games = sum(1 for g in third if g.is_bye), sum(1 for g in third if g.table)
    assert (f"dashboard: Round 3: 0 of {games} results, {byes} byes, {games} not started, "
            f"{4 - games} tables idle") in summary.text().splitlines(), summary.text()

    _, t = store.load(tmp_path / "event.sqlite")
    first, second = t.rounds[0], t.rounds[1]
    assert first.complete and second.complete
    # the summary's ranking gives each player the 勝数 the standings sheet gives them
    assert main(["tournament", "--db", str(tmp_path / "event.sqlite"), "standings"]) == 0
    sheet = [r for r in csv.DictReader(io.StringIO(capsys.readouterr().out))
             if (r.get("position") or "").isdigit()]
    assert [f"  {r['position']}. {r['name']} — {WINS} {r[WINS]}" for r in sheet][:8] == [
        x for x in summary.text().splitlines() if f" — {WINS} " in x], summary.text()
    # round 2 was paired by the director once round 1's four results were in, and
    # only then: the event file's own log of what the director did
    with contextlib.closing(sqlite3.connect(tmp_path / "event.sqlite")) as db:
        kinds = [k for (k,) in db.execute("SELECT kind FROM actions ORDER BY seq")]
    # the 伏せ石 of round 1 before its pairings went out, round 2's once it was paired
    assert kinds[:6] == ["lottery", "pair", *["toss"] * 4]
    assert [k for k in kinds if k != "toss"][:9] == [
        "lottery", "pair", *["result"] * 4, "pair", *["result"] * 2]
    assert kinds.count("toss") >= 6 and summary.tosses == kinds.count("toss")
    # ...from them: the pure core given round 1's results pairs the same round 2
    early = tmp_path / "round1.sqlite"  # the event file as it stood after round 1
    shutil.copy(tmp_path / "event.sqlite", early)
    with contextlib.closing(sqlite3.connect(early)) as db, db:
        db.execute("DELETE FROM actions WHERE seq >= (SELECT seq FROM actions "
                   "WHERE kind='pair' ORDER BY seq LIMIT 1 OFFSET 1)")
    _, replay = store.load(early)
    again = replay.pair_next_round()
    assert [(g.table, g.first, g.second) for g in again.games] == \
        [(g.table, g.first, g.second) for g in second.games]
    met = {frozenset((g.black, g.white)) for g in first.games}
    assert all(frozenset((g.black, g.white)) not in met for g in second.games)

    # what the director holds is what the tables played: names sent with next_game,
    # and the discs of the game that ended on each board
    played = {}
    for table in range(1, 5):
        for black, white, discs in _finished_games(tmp_path, table):
            played[(black, white)] = discs
    for rnd in (first, second):
        for g in rnd.games:
            if g.table is None:
                continue  # a bye: nobody sat down
            assert played[(g.black, g.white)] == tuple(g.discs), (rnd.number, g.table)
    assert len(played) == 6
    assert sum(1 for rnd in (first, second) for g in rnd.games if g.table) == 6

    # the 32-32 board: signed at the table for the holder, who won it at the director
    drawn = first.table(4)
    assert tuple(drawn.discs) == (32, 32) and drawn.outcome == "draw"
    assert drawn.winner == drawn.draw_win is not None
    assert summary.drawn == [f"round 1 table 4: {drawn.winner} (draw-win right)"]
    with contextlib.closing(sqlite3.connect(tmp_path / "table-4" / "journal.sqlite")) as db:
        over = [json.loads(d) for (d,) in db.execute(
            "SELECT data FROM entries WHERE kind='event' AND "
            "json_extract(data, '$.event')='game_over'")]
    holder = "black" if drawn.draw_win == drawn.black else "white"
    assert [(e["black"], e["white"], e["winner"]) for e in over][0] == (32, 32, holder)


def _journal_actions(folder, table, action):
    """The inputs ``action`` table ``table`` journaled, as its page or buttons sent them."""
    path = folder / f"table-{table}" / "journal.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        return [json.loads(d) for (d,) in db.execute(
            "SELECT data FROM entries WHERE json_extract(data, '$.action')=?", (action,))]


def _journal_times(folder, table, action):
    """The table's game time (its journal's stamp) of the one input ``action``."""
    path = folder / f"table-{table}" / "journal.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        (t,), = db.execute("SELECT t FROM entries WHERE kind='input' AND "
                           "json_extract(data, '$.action')=?", (action,)).fetchall()
    return float(t)


@pytest.mark.slow
def test_a_day_with_disputes_late_arrivals_a_forfeit_a_correction_and_a_hub_crash(
        tmp_path, data_dir):
    said: list[str] = []
    options = SimulateOptions(speed=40.0, errors=0.0, folder=str(tmp_path), seed=27)
    summary = simulate_event(options, EventPlan(players=8, rounds=2, extend=True), said.append)
    assert summary.rounds == 2, (said, summary.text())
    text = summary.text()
    for needle in ("came 2:30 late and played on", "took the forfeit (not rated)",
                   "corrected to", "the hub was killed between rounds 1 and 2",
                   "note: small-field variant"):
        assert needle in text, (needle, text)
    assert not any("paired and sent" in x and "round 1 complete; round 1" in x for x in said)
    _, t = store.load(tmp_path / "event.sqlite")
    with contextlib.closing(sqlite3.connect(tmp_path / "event.sqlite")) as db:
        kinds = [k for (k,) in db.execute("SELECT kind FROM actions ORDER BY seq")]
    assert kinds.count("pair") == len(t.rounds)  # the restart paired nothing twice
    assert kinds.count("correct") == 1 and t.corrections[0].by == "arbiter (simulated)"
    forfeits = [g for r in t.rounds for g in r.games if g.forfeit]
    assert len(forfeits) == 1 and forfeits[0].round == 2
    # two late players in round 1: one entered at the arbiter's desk (through the hub's
    # API), one marked at the table itself, whose state carried each step to the hub
    late = {g.table: g for g in t.rounds[0].games if g.late is not None}
    assert sorted(late) == [3, 4] and all(g.late.state == "playing" and g.done
                                          for g in late.values())
    assert [a["action"] for a in _journal_actions(tmp_path, 3, "late")
            + _journal_actions(tmp_path, 3, "late_arrived")
            + _journal_actions(tmp_path, 3, "late_play_on")] == [
        "late", "late_arrived", "late_play_on"]
    assert _journal_actions(tmp_path, 4, "late") == []
    at_table = late[3].late
    assert at_table.player == late[3].white
    # white's time ran from the present player's press until the arrival: at least the
    # 45 s of table time the arbiter waited, at most the table time from the mark to the
    # arrival, as the table's own journal stamps them (a loaded machine stretches both)
    marked, arrived = (_journal_times(tmp_path, 3, a) for a in ("late", "late_arrived"))
    main = 20 * 60_000
    assert (main - (arrived - marked) * 1000 - 1 <= at_table.remaining_ms
            <= main - 45_000 + 1000), (at_table, marked, arrived)
    assert re.search(rf"round 1 table 3: {re.escape(late[3].white)} came late, was marked "
                     r"so at the table and played on \d+:\d\d", text), text

    # the disputes: pressed on the table's own page, journaled by the table as its
    # input, carried to the hub by the table's link, ruled on at the dashboard
    assert [_journal_actions(tmp_path, n, "dispute") for n in (1, 2)] == [
        [{"action": "dispute", "color": "white"}], [{"action": "dispute", "color": "black"}]]
    assert _journal_actions(tmp_path, 3, "dispute") == []
    assert "disputes: 2 pressed at the table, 0 upheld, 2 rejected" in text, text
    assert len(summary.disputes) == 2 and summary.arbiter == []
    first = t.rounds[0]
    for n in (1, 2):  # the recount agreed with the table's count, as played
        g = first.table(n)
        b, w = {(b, w): d for b, w, d in _finished_games(tmp_path, n)}[(g.black, g.white)]
        assert (f"round 1 table {n}: dispute rejected, the recount agrees: the "
                f"table's {b}-{w} stands") in summary.disputes, summary.disputes
    # ...and went to the director (table 1's was then corrected by the arbiter, above)
    assert tuple(first.table(2).discs) == _finished_games(tmp_path, 2)[0][2]
    assert t.corrections[0].table == 1
    # nobody signed those two at the table: the disputing player never pressed
    assert summary.signed == 6 - 1 - 2  # 6 games, 1 forfeit, 2 ruled by the arbiter


def test_the_summary_names_a_refused_pairing_with_the_arbiters_step() -> None:
    """The day's last words: the round bar, then each table that refuses its pairing
    in the round's one text (controller/round_flow.py), which ends with what to do."""
    from controller.hub.sim_event import HubPages, _round_bar
    from controller.round_flow import TableRound, bar

    refused = TableRound(table=7).pair(3, "Ann", "Bob").refused(8, 10)
    playing = TableRound(table=2).pair(3, "Cid", "Dan").started()

    class Dashboard(HubPages):
        """The dashboard's JSON as the hub builds it from these two flows."""

        def call(self, path: str, body: dict | None = None) -> dict:
            assert path == "/api/dashboard"
            return {"hall_round": {"round": 3, "text": bar(3, [refused, playing])},
                    "tables": [{"table": t.table, "round_step": t.step().to_json()}
                               for t in (refused, playing)]}

    lines = _round_bar(Dashboard("http://hub", "token"))
    todo = "set game.size = 10 at the table, restart it and send the pairings again"
    assert lines == [
        f"dashboard: Round 3: 0 of 2 results, 1 pairing refused, 1 playing — arbiter: "
        f"table 7, {todo}",
        "  table 7 refuses its pairing: Round 3: Ann (black) – Bob (white): pairing "
        f"refused, the table is set up for an 8x8 board and the event is on 10x10 boards: "
        f"{todo}."]
