"""Rules 11–12 at a real table: the arbiter marks the absent player, the present
player's press on the arbiter's word runs the absent player's time, the clock stops
on arrival, and the late player plays on the time left or takes the forfeit; the
hall link carries each state, and a replay of the journaled inputs gives the same."""

from __future__ import annotations

import warnings

import pytest
from web_support import TOKEN, SimulatedGame

from controller.hall_protocol.protocol import decode_state, encode_state
from controller.service.core import ActionRefused, GameCore, GameSettings
from controller.squares import Color
from controller.table_link.link import table_state
from controller.web import WebServer

START = "-" * 27 + "OX------XO" + "-" * 27


def _core(main: float = 1200.0) -> GameCore:
    return GameCore(GameSettings(mode="tournament", black="Ann", white="Bob", main=main))


def _run(core: GameCore, steps: list[tuple[float, dict]]) -> None:
    for t, data in steps:
        core.apply(t, data)


def _wire(core: GameCore, now: float):
    return decode_state(encode_state(table_state(2, "g", core, "playing", 1, now, 0.0)), 2)


LATE_WHITE = [(0.0, {"obs": {"t": 0.0, "board": START}}),
              (1.0, {"action": "late", "color": "white"}),
              (2.0, {"obs": {"t": 2.0, "press": "black"}})]  # on the arbiter's word


def test_the_late_player_plays_on_the_time_their_clock_left():
    core = _core()
    _run(core, LATE_WHITE)
    assert core.late.state == "clock_running" and core.clock.running is Color.WHITE
    assert _wire(core, 300.0).late.state == "clock_running"
    core.apply(452.0, {"action": "late_arrived"})
    assert core.late.state == "arrived" and core.clock.paused
    assert core.late.remaining_ms == (1200 - 450) * 1000
    core.apply(460.0, {"action": "late_play_on"})
    assert core.late.state == "playing" and not core.game_over
    # the game starts as any other (rule 4), white with the 750 s their clock left
    assert core.clock.running is None
    assert core.clock.remaining(Color.WHITE, 460.0) == pytest.approx(750.0)
    assert core.clock.remaining(Color.BLACK, 460.0) == pytest.approx(1200.0)
    core.apply(470.0, {"obs": {"t": 470.0, "press": "white"}})
    assert core.clock.running is Color.BLACK
    wire = _wire(core, 471.0)
    assert wire.late.state == "playing" and wire.late.remaining_ms == 750_000
    again = _core()
    _run(again, [*LATE_WHITE, (452.0, {"action": "late_arrived"}),
                 (460.0, {"action": "late_play_on"}),
                 (470.0, {"obs": {"t": 470.0, "press": "white"}})])
    assert again.late == core.late
    assert again.clock.remaining(Color.WHITE, 500.0) == core.clock.remaining(Color.WHITE, 500.0)


def test_the_late_player_takes_the_forfeit_and_the_game_ends_unplayed():
    core = _core()
    _run(core, [*LATE_WHITE, (300.0, {"action": "late_arrived"}),
                (305.0, {"action": "late_forfeit"})])
    assert core.game_over and core.late.lost_unplayed and core.signoff is None
    wire = _wire(core, 306.0)
    assert wire.late.state == "forfeit" and wire.result is None
    assert any("Bob came late (forfeit)" in c and "not rated" in c
               for c in core.record().comments)


def test_a_late_player_whose_time_runs_out_has_lost_unplayed():
    core = _core(main=60.0)
    _run(core, LATE_WHITE)
    core.apply(63.0, {"action": "flag"})  # the time check after the flag fell at 62 s
    assert core.late.state == "timed_out" and core.game_over
    assert core.over_by_time is not None and core.over_by_time["winner"] == "black"


def test_late_steps_out_of_order_are_refused():
    core = _core()
    with pytest.raises(ActionRefused, match="nobody is marked late"):
        core.apply(1.0, {"action": "late_arrived"})
    _run(core, LATE_WHITE)
    with pytest.raises(ActionRefused, match="already marked late"):
        core.apply(3.0, {"action": "late", "color": "black"})
    with pytest.raises(ActionRefused, match="cannot play on while clock_running"):
        core.apply(3.0, {"action": "late_play_on"})
    started = _core()
    _run(started, [(0.0, {"obs": {"t": 0.0, "board": START}}),
                   (1.0, {"obs": {"t": 1.0, "press": "white"}})])
    with pytest.raises(ActionRefused, match="the game has begun"):
        started.apply(2.0, {"action": "late", "color": "black"})


def test_the_arbiter_page_sends_the_late_steps():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        from starlette.testclient import TestClient

    class Table(SimulatedGame):
        def late_step(self, action: str, color: Color | None = None) -> None:
            self._did(action, None if color is None else Color(color).value)

    game = Table()
    c = TestClient(WebServer(game, "127.0.0.1", 0, TOKEN).app, base_url="http://testserver",
                   raise_server_exceptions=False)
    head = {"Authorization": f"Bearer {TOKEN}", "Origin": "http://testserver"}
    for action, body in [("late", {"color": "white"}), ("late_arrived", {}),
                         ("late_play_on", {}), ("late_forfeit", {})]:
        assert c.post(f"/api/arbiter/{action}", json=body, headers=head).status_code == 200
    assert game.actions == [("late", "white"), ("late_arrived", None),
                            ("late_play_on", None), ("late_forfeit", None)]
    assert c.post("/api/arbiter/late", json={"color": "red"}, headers=head).status_code == 400
    assert c.post("/api/arbiter/late", json={"color": "black"},
                  headers={"Origin": "http://testserver"}).status_code == 403  # no token
