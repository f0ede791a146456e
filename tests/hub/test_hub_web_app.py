"""The hub's web app through Starlette's TestClient: a real store, a fake bus and director."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator

import pytest
from hub_web_support import TOKEN, FakeBus, FakeDirector, Hall, board_after, moves_of
from starlette.testclient import TestClient

from controller.hall_protocol.protocol import ClockState, GameResult, HubChange
from controller.hub.results import Pairing, ResultError
from controller.hub.web import HubWebSettings, build_app
from controller.records import read_ggf_text

ORIGIN = "http://testserver"
DELAY = 900.0
T0 = 1_700_000_000.0
FLAG = {"t": 9.0, "event": "irregularity", "player": "white", "kind": "forgotten_flip",
        "squares": ["e4"]}
ROUND1 = [Pairing(1, 1, "Ann", "Bob"), Pairing(1, 2, "Cy", "Di")]
ROUND2 = [Pairing(2, 1, "Ann", "Di"), Pairing(2, 2, "Cy", "Bob")]


class FakeClock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class Setup:
    def __init__(self, director: FakeDirector | None = None) -> None:
        self.hall = Hall()
        self.bus = FakeBus()
        self.clock = FakeClock(T0)
        self.director = director
        settings = HubWebSettings(TOKEN, delay=DELAY, clock=self.clock, event_name="Open")
        self.app = build_app(self.hall.store, self.bus, director, settings)
        self.client = TestClient(self.app, base_url=ORIGIN)

    def login(self) -> TestClient:
        r = self.client.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
        assert r.status_code == 303
        assert r.headers["set-cookie"].startswith("kaeshi_hub_arbiter=")
        return self.client


@pytest.fixture
def hub() -> Setup:
    return Setup()


def play_with_flag(s: Setup) -> None:
    """Table 5 plays four moves, the fourth with a forgotten flip still open."""
    squares = ["f5", "d6", "c3", "d3"]
    for i, ev in enumerate(moves_of(squares)):
        s.hall.event(5, "g5", ev, T0 + 100 + i)
        if i == 3:  # the arbiter reports a move's irregularities after the move
            s.hall.event(5, "g5", FLAG, T0 + 100 + i)
    open_flag = {"kind": "forgotten_flip", "player": "white", "squares": ["e4"]}
    s.hall.state(5, T0 + 104, game="g5", board=board_after(squares[:3]), flags=[open_flag],
                 clock=ClockState(500_000, 480_000, "black", T0 + 104))
    s.hall.state(6, T0 + 104, game="g6")


def test_the_spectator_sees_neither_the_arbiter_channel_nor_anything_too_recent(
    hub: Setup,
) -> None:
    play_with_flag(hub)
    hub.clock.now = T0 + 101 + DELAY  # the first two moves are old enough
    data = hub.client.get("/api/broadcast").json()
    t5 = next(t for t in data["tables"] if t["table"] == 5)
    assert [m["square"] for m in t5["moves"]] == ["f5", "d6"]
    assert t5["board"] == board_after(["f5", "d6"])
    assert data["as_of"] == T0 + 101
    hub.clock.now = T0 + 10 * DELAY  # everything is old enough now
    for path in ("/api/broadcast", "/feed/games.json", "/feed/games.ggf"):
        text = hub.client.get(path).text
        assert "forgotten" not in text and "irregularit" not in text, path
    t5 = next(t for t in hub.client.get("/api/broadcast").json()["tables"] if t["table"] == 5)
    assert [m["square"] for m in t5["moves"]] == ["f5", "d6", "c3", "d3"]
    assert "irregularities" not in t5
    games = read_ggf_text(hub.client.get("/feed/games.ggf").text)
    assert [g.transcript_moves() for g in games] == [["f5", "d6", "c3", "d3"]]
    assert not any(m.comment for m in games[0].moves)
    feed = json.loads(hub.client.get("/feed/games.json").text)
    assert [m["square"] for m in feed["games"][0]["moves"]] == ["f5", "d6", "c3", "d3"]


def test_the_spectator_page_and_feeds_wait_for_the_delay(hub: Setup) -> None:
    play_with_flag(hub)
    hub.clock.now = T0 + 100 + DELAY - 1
    assert read_ggf_text(hub.client.get("/feed/games.ggf").text) == []
    page = hub.client.get("/")
    assert page.status_code == 200 and "delayed 15 min" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]


def test_the_arbiters_views_need_the_token(hub: Setup) -> None:
    play_with_flag(hub)
    for path in ("/api/dashboard", "/api/table/5", "/export/event.ggf",
                 "/export/event-wthor.zip"):
        assert hub.client.get(path).status_code == 403, path
    assert hub.client.get("/arbiter").text.count('name="token"') == 1  # the login form
    # a page asks a person for the token, and brings them back to it
    page = hub.client.get("/arbiter/table/5")
    assert page.text.count('name="token"') == 1 and "dashboard" not in page.text
    assert 'name="next" value="/arbiter/table/5"' in page.text
    wrong = hub.client.get("/arbiter/table/5?token=not-the-token")
    assert wrong.status_code == 403 and "Wrong arbiter token." in wrong.text
    client = hub.login()
    cards = client.get("/api/dashboard").json()["tables"]
    assert [c["table"] for c in cards] == [5, 6]
    (flag,) = cards[0]["irregularities"]
    assert (flag["kind"], flag["player"], flag["squares"]) == ("forgotten_flip", "white", ["e4"])
    assert flag["instruction"].startswith("Black may point out e4")
    full = client.get("/api/table/5").json()
    assert [e["event"] for e in full["events"]].count("irregularity") == 1
    assert client.get("/api/table/99").status_code == 404
    assert client.get("/arbiter/table/5").status_code == 200
    ggf = read_ggf_text(client.get("/export/event.ggf").text)
    assert [m.comment for m in ggf[0].moves] == ["", "", "", (
        "Irregular move (rule 5): White did not turn the disc on e4. "
        "It may still be pointed out.")]
    with zipfile.ZipFile(io.BytesIO(client.get("/export/event-wthor.zip").content)) as zf:
        assert sorted(zf.namelist()) == ["WTHOR.JOU", "WTHOR.TRN", "event.wtb"]


def test_an_arbiter_action_needs_the_token_and_the_hubs_own_origin(hub: Setup) -> None:
    play_with_flag(hub)
    url = "/api/table/5/pause"
    assert hub.client.post(url, json={}, headers={"Origin": ORIGIN}).status_code == 403
    client = hub.login()
    evil = client.post(url, json={}, headers={"Origin": "http://evil.example"})
    assert evil.status_code == 403 and "cross-origin" in evil.json()["error"]
    # a browser request with the cookie but no Origin is not the hub's page either
    assert client.post(url, json={}).status_code == 403
    assert hub.bus.sent == []
    ok = client.post(url, json={}, headers={"Origin": ORIGIN})
    assert ok.status_code == 200
    assert [(t, c.command, c.args) for t, c in hub.bus.sent] == [(5, "pause", {})]
    # a script authenticates with the token itself and sends no Origin
    script = TestClient(hub.app, base_url=ORIGIN)
    r = script.post("/api/table/5/adjust_time", json={"color": "white", "seconds": 60},
                    headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 200
    assert hub.bus.sent[-1][1].args == {"color": "white", "seconds": 60}


def test_an_arbiter_action_with_bad_arguments_is_refused_with_a_reason(hub: Setup) -> None:
    play_with_flag(hub)
    client = hub.login()
    post = lambda path, body: client.post(path, json=body, headers={"Origin": ORIGIN})  # noqa: E731
    r = post("/api/table/5/adjust_time", {"color": "green", "seconds": 60})
    assert r.status_code == 400 and "color" in r.json()["error"]
    r = post("/api/table/5/correct_board", {"board": "X" * 10})
    assert r.status_code == 400 and "board" in r.json()["error"]
    assert post("/api/table/5/launch", {}).status_code == 404
    assert post("/api/table/77/pause", {}).status_code == 404
    bad = client.post("/api/table/5/pause", content=b"{not json",
                      headers={"Origin": ORIGIN, "Content-Type": "application/json"})
    assert bad.status_code == 400
    assert hub.bus.sent == []
    board = board_after(["f5", "d6", "c3", "d3"])
    assert post("/api/table/5/correct_board", {"board": board}).status_code == 200
    assert post("/api/table/5/accept_board", {}).status_code == 200
    assert [c.command for _, c in hub.bus.sent] == ["correct_board", "accept_board"]


def test_wrong_tokens_are_slowed_down_even_for_the_right_one(hub: Setup) -> None:
    for _ in range(6):  # five typos are free; the sixth locks the address out
        assert hub.client.get("/arbiter?token=wrong-guess-0000").status_code == 403
    assert hub.client.get("/arbiter?token=wrong-guess-0001").status_code == 429
    locked = hub.client.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
    assert locked.status_code == 429
    r = hub.client.post("/api/table/1/pause", json={},
                        headers={"Authorization": f"Bearer {TOKEN}"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1
    hub.clock.now += 3600  # the lock has long run out
    assert hub.client.get(f"/arbiter?token={TOKEN}", follow_redirects=False).status_code == 303


def test_a_result_is_confirmed_and_the_next_round_reaches_every_table() -> None:
    director = FakeDirector({1: ROUND1, 2: ROUND2})
    s = Setup(director)
    s.hall.state(1, T0, game="a", black="Ann", white="Bob", service="game_over",
                 result=GameResult(40, 24, "black"))
    s.hall.state(2, T0, game="b", black="Cy", white="Di")
    client = s.login()
    post = lambda path, body: client.post(path, json=body, headers={"Origin": ORIGIN})  # noqa: E731
    cards = client.get("/api/dashboard").json()["tables"]
    assert [(c["table"], c["attention"]["reason"]) for c in cards] == [(1, "result"), (2, "")]
    assert post("/api/table/2/confirm", {}).status_code == 400  # still playing
    assert post("/api/table/1/confirm", {"game": "old"}).status_code == 400
    r = post("/api/table/1/confirm", {"game": "a"})
    assert r.status_code == 200 and r.json()["next_pairings"] == []
    assert director.results[(1, 1)].winner == "black"
    assert post("/api/table/1/confirm", {"game": "a"}).status_code == 400  # only once
    cards = client.get("/api/dashboard").json()["tables"]
    assert cards[0]["attention"]["reason"] == "" and not cards[0]["awaiting_confirmation"]
    assert s.bus.sent == []
    # table 2 finishes 32-32; the arbiter corrects the count from the score card: 33-31
    s.hall.state(2, T0 + 5, game="b", black="Cy", white="Di", service="game_over",
                 result=GameResult(32, 32, "draw"))
    r = post("/api/table/2/confirm", {"game": "b", "black": 33, "white": 31})
    assert r.json()["next_pairings"] == ["Round 2 — table 1 — Black: Ann White: Di",
                                         "Round 2 — table 2 — Black: Cy White: Bob"]
    sent = [(t, c.command, c.args["round"], c.args["black"], c.args["white"])
            for t, c in s.bus.sent]
    assert sent == [(1, "next_game", 2, "Ann", "Di"), (2, "next_game", 2, "Cy", "Bob")]
    data = client.get("/api/dashboard").json()
    assert data["round"] == 2
    assert [p["text"] for p in data["pairings"]] == r.json()["next_pairings"]
    assert [(x["player"], x["wins"]) for x in data["standings"]] == [
        ("Ann", 1), ("Cy", 1), ("Di", 0), ("Bob", 0)]  # then by disc difference
    # spectators see the standings and pairings too
    public = s.client.get("/api/standings").json()
    assert public["standings"] == data["standings"]
    assert post("/api/pairings/send", {}).json()["sent"] == r.json()["next_pairings"]
    assert len(s.bus.sent) == 4


def test_corrected_counts_are_checked() -> None:
    s = Setup(FakeDirector({1: ROUND1}))
    s.hall.state(1, T0, game="a", service="game_over", result=GameResult(40, 24, "black"))
    client = s.login()
    for body in ({"black": 60, "white": 10}, {"black": -1}, {"black": "40"}):
        r = client.post("/api/table/1/confirm", json=body, headers={"Origin": ORIGIN})
        assert r.status_code == 400, body
    assert s.director is not None and s.director.results == {}


def test_without_a_director_results_wait_and_confirmation_is_refused(hub: Setup) -> None:
    hub.hall.state(1, T0, game="a", service="game_over", result=GameResult(40, 24, "black"))
    client = hub.login()
    r = client.post("/api/table/1/confirm", json={}, headers={"Origin": ORIGIN})
    assert r.status_code == 503 and "director" in r.json()["error"]
    assert client.get("/api/dashboard").json()["pairings"] == []


def test_a_still_hall_gives_spectators_the_same_snapshot_while_its_clocks_run(
    hub: Setup,
) -> None:
    hub.hall.event(3, "g3", {"t": 0.0, "event": "clock", "black": 600.0, "white": 600.0,
                             "running": "black"}, T0)
    hub.hall.state(3, T0, game="g3")
    hub.clock.now = T0 + DELAY + 5
    first = hub.client.get("/api/broadcast").json()
    hub.clock.now += 30  # nothing new arrives; black's clock runs on
    later = hub.client.get("/api/broadcast").json()
    assert later["as_of"] == first["as_of"] + 30
    assert later["tables"] == first["tables"]
    clock = later["tables"][0]["clock"]
    assert clock == {"black_ms": 600_000, "white_ms": 600_000, "running": "black", "at": T0}
    assert clock["black_ms"] - (later["as_of"] - clock["at"]) * 1000 == 565_000


def read_events(lines: Iterator[str], count: int) -> list[tuple[str, dict]]:
    """The next ``count`` server-sent events of a stream, as (name, data)."""
    out: list[tuple[str, dict]] = []
    name = ""
    for line in lines:
        if line.startswith("event: "):
            name = line[7:]
        elif line.startswith("data: "):
            out.append((name, json.loads(line[6:])))
            if len(out) == count:
                break
    return out


def test_the_broadcast_stream_sends_only_the_tables_that_changed() -> None:
    hall, bus, clock = Hall(), FakeBus(), FakeClock(T0)
    for n in (1, 2, 3):
        hall.state(n, T0, game=f"g{n}")
    settings = HubWebSettings(TOKEN, delay=DELAY, clock=clock, refresh=0.05)
    app = build_app(hall.store, bus, None, settings)
    with TestClient(app, base_url=ORIGIN) as client:
        with client.stream("GET", "/events/broadcast") as stream:
            lines = stream.iter_lines()
            [(name, first)] = read_events(lines, 1)
            assert name == "broadcast" and first["full"] is True
            assert [t["table"] for t in first["tables"]] == [1, 2, 3]
            assert first["standings"] == [] and first["gone"] == []
            # table 2's first move passes the delay: only table 2 is sent again
            hall.event(2, "g2", moves_of(["f5"])[0], T0 + 1)
            clock.now = T0 + 1 + DELAY
            [(_, second)] = read_events(lines, 1)
            assert second["full"] is False
            assert [t["table"] for t in second["tables"]] == [2]
            assert [(m["n"], m["kind"], m["player"], m["square"])
                    for m in second["tables"][0]["moves"]] == [(1, "move", "black", "f5")]
            assert "standings" not in second and second["as_of"] == T0 + 1
            app.state.close_streams()


def test_the_dashboard_stream_follows_the_hubs_changes() -> None:
    hall, bus, clock = Hall(), FakeBus(), FakeClock(T0)
    for n in (1, 2, 3):
        hall.state(n, T0, game=f"g{n}")
    # a long refresh: only a change announced on the bus can bring the next message soon
    settings = HubWebSettings(TOKEN, delay=DELAY, clock=clock, refresh=600)
    app = build_app(hall.store, bus, None, settings)
    with TestClient(app, base_url=ORIGIN) as client:
        client.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
        with client.stream("GET", "/events/dashboard") as stream:
            lines = stream.iter_lines()
            [(name, first)] = read_events(lines, 1)
            assert name == "dashboard"
            assert first["full"] is True and first["order"] == [1, 2, 3]
            assert [c["table"] for c in first["tables"]] == [1, 2, 3]
            flag = {"kind": "over_flip", "player": "black", "squares": ["c4"]}
            hall.state(3, T0, game="g3", flags=[flag])
            bus.emit(HubChange(3, "state", 0, "g3"))
            [(_, second)] = read_events(lines, 1)
            # only the card that changed, and the new order of all of them
            assert second["full"] is False and second["order"] == [3, 1, 2]
            assert [c["table"] for c in second["tables"]] == [3]
            assert second["tables"][0]["attention"]["detail"] == "black: over-flip c4"
            assert "pairings" not in second and second["gone"] == []
            app.state.close_streams()


def test_a_round_that_cannot_be_paired_keeps_its_result_and_says_why() -> None:
    class Refusing(FakeDirector):
        def pair_next_round(self, after: int | None = None) -> list[Pairing]:
            raise ResultError("the roster has nobody left to pair")

    s = Setup(Refusing({1: ROUND1[:1]}))
    s.hall.state(1, T0, game="a", service="game_over", result=GameResult(40, 24, "black"))
    client = s.login()
    r = client.post("/api/table/1/confirm", json={}, headers={"Origin": ORIGIN})
    assert r.status_code == 200
    assert r.json()["problem"] == "round 2 not paired or sent: the roster has nobody left to pair"
    assert s.director is not None and (1, 1) in s.director.results
    assert s.bus.sent == []


def test_a_restarted_hub_still_names_the_players_of_earlier_games() -> None:
    hall = Hall()
    for game, black, white, rnd in (("r1", "Ann", "Bob", 1), ("r2", "Cy", "Di", 2)):
        hall.state(1, T0, game=game, round=rnd, black=black, white=white)
        for ev in moves_of(["f5", "d6"]):
            hall.event(1, game, ev, T0)
    # a hub started now has only seen table 1's latest state
    app = build_app(hall.store, FakeBus(), None, HubWebSettings(TOKEN, delay=DELAY,
                                                                 clock=lambda: T0))
    client = TestClient(app, base_url=ORIGIN)
    client.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
    games = read_ggf_text(client.get("/export/event.ggf").text)
    assert [(g.black, g.white, g.extra["RND"]) for g in games] == [
        ("Ann", "Bob", "1"), ("Cy", "Di", "2")]


def test_a_board_that_stood_stays_in_the_arbiters_export_not_the_feeds(hub: Setup) -> None:
    from controller.hall_protocol.protocol import EventMessage
    from controller.position import Position

    pos = Position.start()
    seq = 0
    hub.hall.store.announce(5, "g5")  # the table's state named the game: it is public

    def send(event: dict[str, object]) -> None:
        nonlocal seq
        seq += 1
        hub.hall.store.add_event(EventMessage(5, "g5", seq, {"t": float(seq), **event}, None,
                                              pos.board_string(), pos.to_move.value),
                                 T0 + seq)

    for square in ("f5", "d6", "c3"):
        mover = pos.to_move
        pos = pos.play(square)
        send({"event": "move", "player": mover.value, "square": square, "flips": []})
    pos = pos.with_to_move(pos.to_move.opponent)  # white passes with moves; it stands
    send({"event": "pass", "player": "white"})
    square = pos.legal_squares()[0]
    pos = pos.play(square)
    send({"event": "move", "player": "black", "square": square, "flips": []})
    hub.clock.now = T0 + 10 * DELAY
    exported = hub.login().get("/export/event.ggf").text
    assert "Play went on from the board as it stood after this move" in exported
    assert read_ggf_text(exported)[0].stood() == [4]
    feed = hub.client.get("/feed/games.ggf").text
    assert "W[PA" in feed and "Play went on" not in feed and "C[" not in feed
