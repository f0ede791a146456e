"""The 伏せ石 through the hub's result desk, over the real tournament director.

No division plays draws, so a 32–32 board is won by whoever holds the draw-win right.
The arbiter records the toss for a table's current game; a drawn board signed at a
table before the toss was recorded is held (never stops the round) and goes to the
director, with the holder as winner, the moment the toss is recorded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.hall_protocol.protocol import (
    DownlinkCommand,
    GameResult,
    TableState,
    TableStatus,
    decode_command,
    encode_command,
)
from controller.hub.director import TournamentDirector
from controller.hub.results import Pairing, ResultDesk, ResultError
from controller.scorecard import SignOff
from controller.tournament import Player
from controller.tournament_store.roster import EventConfig
from controller.tournament_store.store import commit, create, load

START = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27


def event(path: Path) -> TournamentDirector:
    roster = [Player(f"Player {k}", born=str(1960 + k)) for k in range(1, 9)]
    t = create(path, EventConfig("Hall Open", "open", extend=True), roster)
    commit(path, t, "lottery", {"seeds": ["12345", "67890", "13579"]})
    director = TournamentDirector(t, path)
    director.pair_next_round()
    return director


def status(p: Pairing, *, result: tuple[int, int, str] | None = None, moves: int = 60,
           signed: bool = True, black: str | None = None) -> TableStatus:
    """Table ``p.table`` as its state says: ``result`` shown and, with ``signed``,
    confirmed by both players with their clock buttons."""
    res = None if result is None else GameResult(*result)
    card = None if result is None or not signed else SignOff(*result, True, True)
    first = black or p.black
    state = TableState(p.table, f"r{p.round}t{p.table}", p.round, first,
                       p.white if first == p.black else p.black, "tournament",
                       "game_over" if result else "playing", START, None, None,
                       result=res, moves=moves if result else 0, signoff=card)
    return TableStatus(p.table, True, state, 0.0)


def desk_of(director: TournamentDirector) -> tuple[ResultDesk, list[tuple[int, DownlinkCommand]]]:
    sent: list[tuple[int, DownlinkCommand]] = []
    return ResultDesk(director, lambda n, c: sent.append((n, c))), sent


def test_a_signed_32_32_board_is_held_until_the_toss_then_the_holder_wins(tmp_path):
    director = event(tmp_path / "event.sqlite")
    desk, sent = desk_of(director)
    pairings = director.pairings(1)
    assert all(p.needs_toss for p in pairings)  # the open division plays no draws
    drawn, *others = pairings

    st = status(drawn, result=(32, 32, "draw"))
    assert desk.take_from_table(st) is None  # held, not refused, nothing raised
    assert director.result(1, drawn.table) is None
    assert desk.awaiting(st) and desk.needs_toss(st)
    with pytest.raises(ResultError, match="伏せ石"):
        desk.confirm(st)
    # the other tables go on: their signed results reach the director as ever
    for p in others:
        outcome = desk.take_from_table(status(p, result=(40, 24, "black")))
        assert outcome is not None and outcome.next_pairings == []
    assert not director.round_complete(1)

    # the arbiter records the toss: the white player holds the draw-win right
    done = desk.toss(st, drawn.table, black=drawn.black, draw_win=drawn.white)
    assert done.settled is not None and not done.sent
    assert done.settled.result.winner == "draw"
    assert not desk.awaiting(st)
    _, t = load(tmp_path / "event.sqlite")  # what the event file holds
    g = t.rounds[0].table(drawn.table)
    assert (g.outcome, g.winner, g.discs, g.draw_win) == ("draw", drawn.white, (32, 32),
                                                          drawn.white)
    # that was the round's last result: round 2 is paired and sent to the tables
    assert t.rounds[0].complete and len(t.rounds) == 2
    assert done.settled.next_pairings == director.pairings(2)
    assert [c.command for _, c in sent] == ["next_game"] * len(director.pairings(2))
    standings = {s.player: s.wins for s in director.standings()}
    assert standings[drawn.white] > standings[drawn.black]


def test_a_toss_before_the_game_goes_to_the_table_and_its_draw_needs_nobody(tmp_path):
    director = event(tmp_path / "event.sqlite")
    desk, sent = desk_of(director)
    p = director.pairings(1)[0]
    # colours are the toss's to decide before the first move: here they swap
    done = desk.toss(status(p), p.table, black=p.white, draw_win=p.white)
    assert done.sent and done.settled is None
    assert (done.pairing.black, done.pairing.white, done.pairing.draw_win_right) == (
        p.white, p.black, "black")
    [(table, cmd)] = sent
    assert table == p.table
    # the order crosses the wire as the protocol defines it
    again = decode_command(encode_command(cmd))
    assert (again.command, again.args) == ("toss", {
        "round": 1, "black": p.white, "white": p.black, "draw_win_right": "black"})
    # the pairing now carries the right: a next_game sent again says it
    assert director.pairings(1)[0].command().args["draw_win_right"] == "black"

    # the table knew the right, so its 32-32 is black's; both sign, nobody else is asked
    played = director.pairings(1)[0]
    outcome = desk.take_from_table(status(played, result=(32, 32, "black")))
    assert outcome is not None
    g = load(tmp_path / "event.sqlite")[1].rounds[0].table(p.table)
    assert (g.black, g.winner, g.outcome) == (p.white, p.white, "draw")


def test_a_signed_32_32_the_desk_has_not_seen_yet_is_settled_by_the_toss(tmp_path):
    """The toss may be recorded between the table's state arriving and the desk taking
    it: the result both signed goes to the director all the same."""
    director = event(tmp_path / "event.sqlite")
    desk, sent = desk_of(director)
    p = director.pairings(1)[1]
    st = status(p, result=(32, 32, "draw"))
    done = desk.toss(st, p.table, black=p.black, draw_win=p.black)
    assert done.settled is not None and sent == []
    g = director.t.rounds[0].table(p.table)
    assert (g.outcome, g.winner) == ("draw", p.black)
    # an unsigned one stays the arbiter's to confirm, which now works
    q = director.pairings(1)[2]
    unsigned = status(q, result=(32, 32, "draw"), signed=False)
    assert desk.toss(unsigned, q.table, black=q.black, draw_win=q.white).settled is None
    assert desk.awaiting(unsigned) and not desk.needs_toss(unsigned)
    assert desk.confirm(unsigned).result.winner == "draw"
    assert director.t.rounds[0].table(q.table).winner == q.white


def test_toss_refusals_name_what_is_wrong(tmp_path):
    director = event(tmp_path / "event.sqlite")
    desk, sent = desk_of(director)
    p, q = director.pairings(1)[:2]
    with pytest.raises(ResultError, match="does not play there"):
        desk.toss(status(p), p.table, black=q.black, draw_win=p.black)
    with pytest.raises(ResultError, match="no game at table 99"):
        desk.toss(None, 99, black=p.black, draw_win=p.black)
    # after the first move the board has decided the colours
    begun = TableStatus(p.table, True, TableState(
        p.table, "g", 1, p.black, p.white, "tournament", "playing", START, "white", None,
        moves=3), 0.0)
    with pytest.raises(ResultError, match="has begun with"):
        desk.toss(begun, p.table, black=p.white, draw_win=p.white)
    # ...but the draw-win right can still be recorded, and the table is told
    assert desk.toss(begun, p.table, black=p.black, draw_win=p.white).sent
    # a game whose result is in has nothing left to toss for
    desk.take_from_table(status(q, result=(50, 14, "black")))
    with pytest.raises(ResultError, match="already in"):
        desk.toss(status(q, result=(50, 14, "black")), q.table, black=q.black,
                  draw_win=q.black)
    assert [c.command for _, c in sent] == ["toss"]


def test_the_dashboard_shows_the_held_draw_and_the_toss_action_settles_it(tmp_path):
    """Through ``kaeshi hub``'s web app: the bus announces table 1's signed 32-32, the
    dashboard says what to do, and the arbiter's toss (token, same origin) settles it."""
    import warnings

    from hub_web_support import TOKEN, FakeBus, Hall

    from controller.hall_protocol.protocol import HubChange, encode_state
    from controller.hub.web import HubWebSettings, build_app

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    director = event(tmp_path / "event.sqlite")
    hall, bus = Hall(), FakeBus()
    app = build_app(hall.store, bus, director, HubWebSettings(TOKEN, clock=lambda: 100.0))
    first, second = director.pairings(1)[:2]

    def publish(st: TableStatus) -> None:
        assert st.state is not None
        hall.store.set_state(st.state, encode_state(st.state), 100.0)
        bus.emit(HubChange(st.table, "state"))

    origin = {"Origin": "http://testserver"}
    with TestClient(app, base_url="http://testserver") as client:
        publish(status(first, result=(32, 32, "draw")))
        publish(status(second))
        assert director.result(1, first.table) is None
        client.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
        top = client.get("/api/dashboard").json()["tables"][0]
        assert top["table"] == first.table and top["needs_toss"]
        assert top["attention"]["detail"] == ("32-32 and no 伏せ石 recorded: record who "
                                              "holds the draw-win right, and the result "
                                              "goes to the director")
        view = client.get(f"/api/table/{first.table}").json()
        assert view["pairing"] == {"round": 1, "black": first.black, "white": first.white,
                                   "draw_win_right": "none", "draws": False,
                                   "needs_toss": True, "result": False,
                                   "game_text": f"round 1: {first.black} – {first.white}",
                                   "elsewhere": False}
        # a confirmation is refused with what to do; so is a toss from another site
        r = client.post(f"/api/table/{first.table}/confirm", json={}, headers=origin)
        assert r.status_code == 400 and "record the toss" in r.json()["error"]
        body = {"black": first.black, "draw_win": first.white}
        r = client.post(f"/api/table/{first.table}/toss", json=body,
                        headers={"Origin": "http://evil.example"})
        assert r.status_code == 403
        r = client.post(f"/api/table/{first.table}/toss", json={"black": "Nobody",
                                                                 "draw_win": first.white},
                        headers=origin)
        assert r.status_code == 400 and "'Nobody' does not play there" in r.json()["error"]
        r = client.post(f"/api/table/{first.table}/toss", json=body, headers=origin)
        assert r.status_code == 200, r.text
        assert r.json()["settled"]["winner"] == "draw"
        g = director.t.rounds[0].table(first.table)
        assert (g.winner, g.discs) == (first.white, (32, 32))
        card = next(c for c in client.get("/api/dashboard").json()["tables"]
                    if c["table"] == first.table)
        assert not card["awaiting_confirmation"] and "needs_toss" not in card
        # the next table's toss, before its first move, goes to the table
        r = client.post(f"/api/table/{second.table}/toss",
                        json={"black": second.white, "draw_win": second.black},
                        headers=origin)
        assert r.status_code == 200 and r.json()["sent"]
        [(n, cmd)] = bus.sent
        assert (n, cmd.command, cmd.args["black"], cmd.args["draw_win_right"]) == (
            second.table, "toss", second.white, "white")
    without = TestClient(app, base_url="http://testserver")  # no token: refused
    r = without.post(f"/api/table/{second.table}/toss", json={}, headers=origin)
    assert r.status_code in (401, 403)
