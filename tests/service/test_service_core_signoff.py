"""Rule 15 at a real table: when a tournament game ends, the service opens a score
card; each player's own clock press signs it, the table page's dispute sends it to
the arbiter, and the hall link carries it in the table's state.  Replaying the
journaled inputs rebuilds the same card (a crash loses no signature)."""

from __future__ import annotations

import pytest
from arbiter_logs import wthor_2001
from service_scripts import scripted_log

from controller.hall_protocol.protocol import decode_state, encode_state
from controller.service.core import ActionRefused, GameCore, GameSettings
from controller.table_link.link import table_state


def _finished(data_dir, mode: str = "tournament") -> tuple[GameCore, float, list]:
    game = wthor_2001(data_dir)[0]
    core = GameCore(GameSettings(mode=mode, black="Ann", white="Bob", main=3600.0))
    inputs = [(o.t, {"obs": o.to_dict()}) for o in scripted_log(game)]
    for t, data in inputs:
        core.apply(t, data)
    assert core.game_over
    return core, inputs[-1][0], inputs


def test_both_clock_presses_sign_the_result_and_the_hub_sees_it(data_dir):
    core, t, _ = _finished(data_dir)
    card = core.signoff
    assert card is not None and card.status == "waiting" and not card.flags
    b, w, winner = core.final_result()
    assert (card.black, card.white, card.winner) == (b, w, winner)
    core.apply(t + 2, {"obs": {"t": t + 2, "press": "white"}})
    core.apply(t + 3, {"obs": {"t": t + 3, "press": "white"}})  # pressing again: no change
    assert core.signoff.white_says is True and core.signoff.black_says is None
    core.apply(t + 4, {"obs": {"t": t + 4, "press": "black"}})
    assert core.signoff.status == "signed"
    state = table_state(3, "g1", core, "game_over", 2, t + 5, 1000.0)
    wire = decode_state(encode_state(state), 3)
    assert wire.signoff == core.signoff and wire.result is not None
    assert (wire.result.black, wire.result.white, wire.result.winner) == (b, w, winner)


def test_a_dispute_from_the_table_page_stands_and_replays(data_dir):
    core, t, inputs = _finished(data_dir)
    more = [(t + 2, {"obs": {"t": t + 2, "press": "black"}}),
            (t + 3, {"action": "dispute", "color": "white"}),
            (t + 4, {"obs": {"t": t + 4, "press": "white"}})]  # a later press changes nothing
    for when, data in more:
        core.apply(when, data)
    assert core.signoff.status == "disputed" and core.signoff.needs_arbiter
    with pytest.raises(ActionRefused, match="white already disputed"):
        core.apply(t + 5, {"action": "sign", "color": "white"})
    again = GameCore(core.settings)
    for when, data in inputs + more:
        again.apply(when, data)
    assert again.signoff == core.signoff


def test_no_card_before_the_end_nor_at_home(data_dir):
    core = GameCore(GameSettings(mode="tournament"))
    with pytest.raises(ActionRefused, match="no result to sign"):
        core.apply(1.0, {"action": "dispute", "color": "black"})
    home, _, _ = _finished(data_dir, mode="home")
    assert home.signoff is None


def test_the_table_page_sends_a_players_dispute_and_shows_the_card():
    import warnings

    from web_support import TOKEN, SimulatedGame

    from controller.squares import Color
    from controller.web import WebServer, for_view

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    class Table(SimulatedGame):
        def dispute_result(self, color: Color) -> None:
            self._did("dispute", Color(color).value)

    game = Table()
    server = WebServer(game, "127.0.0.1", 0, TOKEN)
    c = TestClient(server.app, base_url="http://testserver", raise_server_exceptions=False)
    r = c.post("/api/dispute", json={"color": "white"},
               headers={"Origin": "http://testserver"})
    assert r.status_code == 200 and game.actions == [("dispute", "white")]
    r = c.post("/api/dispute", json={"color": "green"},
               headers={"Origin": "http://testserver"})
    assert r.status_code == 400 and "dispute" in r.json()["error"]
    r = c.post("/api/dispute", json={"color": "black"},
               headers={"Origin": "http://elsewhere.example"})
    assert r.status_code == 403 and game.actions == [("dispute", "white")]
    card = {"black": 40, "white": 24, "winner": "black", "black_says": True,
            "white_says": None, "status": "waiting"}
    snap = {**game.snapshot("player"), "signoff": card}
    assert for_view(snap, "player")["signoff"] == card
    page = c.get("/").text
    assert 'data-dispute="white"' in page and 'id="signoff"' in page
