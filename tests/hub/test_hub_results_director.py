"""Results through the real tournament director: confirm, standings, next round to tables."""

from __future__ import annotations

from pathlib import Path

from hub_web_support import TOKEN, FakeBus, Hall
from starlette.testclient import TestClient

from controller.hall_protocol.protocol import GameResult
from controller.hub.director import TournamentDirector
from controller.hub.web import HubWebSettings, build_app
from controller.tournament import Player, Tournament
from controller.tournament_store.roster import EventConfig
from controller.tournament_store.store import commit, create, load

ORIGIN = "http://testserver"
T0 = 1_700_000_000.0


def open_event(path: Path) -> Tournament:
    roster = [Player(f"Player {k}", born=str(1960 + k)) for k in range(1, 9)]
    t = create(path, EventConfig("Hall Open", "open", extend=True), roster)
    commit(path, t, "lottery", {"seeds": ["12345", "67890", "13579"]})
    return t


def test_the_round_goes_from_tables_to_the_director_and_back(tmp_path: Path) -> None:
    path = tmp_path / "event.sqlite"
    t = open_event(path)
    director = TournamentDirector(t, path)
    first = director.pair_next_round()
    assert [p.table for p in first] == [1, 2, 3, 4]
    hall, bus = Hall(), FakeBus()
    app = build_app(hall.store, bus, director,
                    HubWebSettings(TOKEN, delay=900, clock=lambda: T0 + 10))
    client = TestClient(app, base_url=ORIGIN)
    assert client.get(f"/arbiter?token={TOKEN}", follow_redirects=False).status_code == 303
    data = client.get("/api/dashboard").json()
    assert data["round"] == 1
    assert [p["text"] for p in data["pairings"]] == [p.announcement() for p in first]
    assert first[0].announcement().startswith("Round 1 — table 1 — Black: ")

    for p in first:  # every table plays its game; black wins 40-24 at odd tables
        b, w = (40, 24) if p.table % 2 else (20, 44)
        hall.state(p.table, T0, game=f"r1t{p.table}", round=1, black=p.black, white=p.white,
                   service="game_over",
                   result=GameResult(b, w, "black" if b > w else "white"))
    cards = client.get("/api/dashboard").json()["tables"]
    assert all(c["attention"]["reason"] == "result" for c in cards)
    for p in first[:-1]:
        r = client.post(f"/api/table/{p.table}/confirm", json={"game": f"r1t{p.table}"},
                        headers={"Origin": ORIGIN})
        assert r.status_code == 200 and r.json()["next_pairings"] == []
    assert bus.sent == []
    last = first[-1]
    r = client.post(f"/api/table/{last.table}/confirm", json={"game": f"r1t{last.table}"},
                    headers={"Origin": ORIGIN})
    second = director.pairings(2)
    assert r.json()["next_pairings"] == [p.announcement() for p in second]
    assert [(n, c.command, c.args["round"], c.args["black"], c.args["white"],
             c.args["minutes"]) for n, c in bus.sent] == [
        (p.table, "next_game", 2, p.black, p.white, 20.0) for p in second]
    data = client.get("/api/dashboard").json()
    assert data["round"] == 2
    winners = {p.black if p.table % 2 else p.white for p in first}
    top = data["standings"][:4]
    assert {s["player"] for s in top} == winners
    # leagues of two are won in round 1: their winners wait for round 6's semi-finals
    # with a bye in round 2, counted as won when it is paired
    assert all(s["wins"] == 2 and not s["final"] for s in top)
    # the rules' own criteria, under their own names; no disc difference
    assert [c[0] for c in top[0]["criteria"]][:2] == ["勝数", "2. 上位1+下位1の勝数"]
    assert top[0]["criteria"][-1][0] == "抽選番号"
    # the director's file holds every result: a restarted hub carries on from it
    _, again = load(path)
    assert again.current is not None and again.current.number == 2
    assert all(g.done for g in again.rounds[0].games)
    assert [g.discs for g in again.rounds[0].games] == [
        (40, 24) if g.table is not None and g.table % 2 else (20, 44)
        for g in again.rounds[0].games]


def test_a_result_for_a_past_round_is_refused(tmp_path: Path) -> None:
    t = open_event(tmp_path / "event.sqlite")
    director = TournamentDirector(t)  # in memory only
    director.pair_next_round()
    hall, bus = Hall(), FakeBus()
    app = build_app(hall.store, bus, director,
                    HubWebSettings(TOKEN, delay=900, clock=lambda: T0))
    client = TestClient(app, base_url=ORIGIN)
    client.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
    hall.state(1, T0, game="old", round=7, service="game_over",
               result=GameResult(40, 24, "black"))
    r = client.post("/api/table/1/confirm", json={}, headers={"Origin": ORIGIN})
    assert r.status_code == 400 and "round 7" in r.json()["error"]
