"""The spectator's delay filter: only public events, only what is older than the delay."""

from __future__ import annotations

import json

from hub_web_support import START, TOKEN, FakeBus, Hall, board_after, moves_of
from starlette.testclient import TestClient

from controller.hub.broadcast import GameInfo, delayed_table, public_event, spectator_tables
from controller.hub.web import HubWebSettings, build_app

DELAY = 900.0
T0 = 50_000.0
OPENING = ["f5", "d6", "c3", "d3", "c4"]


def played(hall: Hall, table: int = 1, game: str = "g1", start: float = T0,
           squares: list[str] = OPENING, step: float = 60.0) -> list[float]:
    """Play ``squares`` at ``table``, one every ``step`` s; return when each arrived."""
    times = []
    for i, ev in enumerate(moves_of(squares)):
        times.append(start + i * step)
        hall.event(table, game, ev, times[-1])
    return times


def test_nothing_younger_than_the_delay_is_shown() -> None:
    hall = Hall()
    times = played(hall)
    events = hall.store.events(1)
    # before the first move is old enough: the start position, no move
    view = delayed_table(1, events, times[0] + DELAY - 0.001, DELAY)
    assert view.moves == [] and view.board == START and view.game is None
    # exactly at the delay the first move shows, and only it
    view = delayed_table(1, events, times[0] + DELAY, DELAY)
    assert [m["square"] for m in view.moves] == ["f5"]
    assert view.board == board_after(["f5"])
    assert view.to_move == "white"
    # between the third and the fourth move
    view = delayed_table(1, events, times[2] + DELAY + 30, DELAY)
    assert [m["square"] for m in view.moves] == ["f5", "d6", "c3"]
    assert view.board == board_after(["f5", "d6", "c3"])
    assert view.as_of == times[2] + 30


def test_the_arbiter_channel_never_reaches_a_spectator() -> None:
    hall = Hall()
    times = played(hall, squares=["f5", "d6"])
    # white plays c3 forgetting to flip d4: the arbiter hears of it, the move stands
    flag = {"t": 2.0, "event": "irregularity", "player": "black", "kind": "forgotten_flip",
            "squares": ["d4"]}
    hall.event(1, "g1", flag, times[-1] + 10)
    hall.event(1, "g1", moves_of(["f5", "d6", "c3"])[-1], times[-1] + 11)
    hall.event(1, "g1", {"t": 4.0, "event": "corrected", "kind": "forgotten_flip",
                         "squares": ["d4"]}, times[-1] + 20)
    # the live state shows the physical board, forgotten flip and all, and the open flag
    physical = board_after(["f5", "d6"])
    hall.state(1, times[-1] + 11, board=physical, flags=[flag])
    now = times[-1] + 10_000  # everything is long past the delay
    data = spectator_tables({1: hall.store.events(1)}, now, DELAY)[0].to_dict()
    text = json.dumps(data)
    for secret in ("irregularity", "corrected", "forgotten", "flips"):
        assert secret not in text
    assert [m["square"] for m in data["moves"]] == ["f5", "d6", "c3"]
    assert data["board"] == board_after(["f5", "d6", "c3"])  # the rules' board, not the table's
    assert public_event(flag) is None
    assert public_event({"event": "move", "player": "black", "square": "f5", "flips": ["e5"],
                         "t": 1.0, "note": "x"}) == {"event": "move", "t": 1.0,
                                                      "player": "black", "square": "f5"}


def test_clocks_and_results_are_shown_as_they_stood_at_the_delay() -> None:
    hall = Hall()
    clock = {"t": 0.0, "event": "clock", "black": 600.0, "white": 600.0, "running": "black"}
    hall.event(1, "g1", clock, T0)
    # the reading itself, with the time it was taken: the page counts down from there
    view = delayed_table(1, hall.store.events(1), T0 + DELAY + 12.5, DELAY)
    assert view.clock == {"black_ms": 600_000, "white_ms": 600_000, "running": "black",
                          "at": T0}
    assert view.as_of == T0 + 12.5
    hall.event(1, "g1", {"t": 1.0, "event": "game_over", "black": 40, "white": 24,
                         "winner": "black"}, T0 + 30)
    view = delayed_table(1, hall.store.events(1), T0 + DELAY + 29, DELAY)
    assert view.result is None
    view = delayed_table(1, hall.store.events(1), T0 + DELAY + 60, DELAY)
    assert view.result == {"black": 40, "white": 24, "winner": "black"}
    assert view.to_move is None
    # stopped when the game ended, 30 s after the reading
    assert view.clock == {"black_ms": 570_000, "white_ms": 600_000, "running": None,
                          "at": T0 + 30}


def test_the_next_game_appears_only_when_its_moves_are_old_enough() -> None:
    hall = Hall()
    played(hall, game="r1", squares=["f5", "d6"])
    t_next = T0 + 2000
    played(hall, game="r2", start=t_next, squares=["e6"])
    infos = {(1, "r1"): GameInfo("Ann", "Bob", 1), (1, "r2"): GameInfo("Cy", "Di", 2)}
    events = hall.store.events(1)
    view = delayed_table(1, events, t_next + DELAY - 1, DELAY, infos)
    assert (view.game, view.info.black, view.info.round) == ("r1", "Ann", 1)
    assert [m["square"] for m in view.moves] == ["f5", "d6"]
    view = delayed_table(1, events, t_next + DELAY, DELAY, infos)
    assert (view.game, view.info.white, view.info.round) == ("r2", "Di", 2)
    assert [m["square"] for m in view.moves] == ["e6"]


def test_a_table_with_nothing_old_enough_shows_its_pairing_at_the_start() -> None:
    hall = Hall()
    played(hall, table=3, game="r1")
    now = T0 + 10  # nothing is old enough yet
    tables = spectator_tables({3: hall.store.events(3)}, now, DELAY,
                              current={3: ("r1", GameInfo("Ann", "Bob", 1)),
                                       4: ("r1b", GameInfo("Cy", "Di", 1))})
    assert [t.table for t in tables] == [3, 4]
    assert all(t.moves == [] and t.board == START for t in tables)
    assert (tables[0].info.black, tables[1].info.white) == ("Ann", "Di")


def test_a_move_after_an_arbiters_ruling_is_still_shown() -> None:
    # the arbiter set the board by hand (no event says how); the next move cannot be
    # replayed under the rules, but the feed must not freeze on it
    hall = Hall()
    played(hall, squares=["f5"])
    hall.event(1, "g1", {"t": 2.0, "event": "move", "player": "white", "square": "a1",
                         "flips": []}, T0 + 100)
    view = delayed_table(1, hall.store.events(1), T0 + 100 + DELAY, DELAY)
    assert [m["square"] for m in view.moves] == ["f5", "a1"]
    assert view.board[0] == "O"
    assert view.to_move == "black"


def test_a_replay_kept_between_calls_shows_what_a_fresh_one_shows() -> None:
    hall = Hall()
    times = played(hall, squares=["f5", "d6", "c3", "d3", "c4", "f4"], step=10.0)
    hall.event(1, "g1", {"t": 9.0, "event": "clock", "black": 500.0, "white": 400.0,
                         "running": "white"}, times[-1] + 1)
    played(hall, game="g2", start=times[-1] + 100, squares=["f5"])
    replays: dict = {}
    events = {1: hall.store.events(1)}
    for now in [times[0] + DELAY + k * 7.0 for k in range(25)]:
        kept = spectator_tables(events, now, DELAY, replays=replays)[0].to_dict()
        fresh = spectator_tables(events, now, DELAY)[0].to_dict()
        assert kept == fresh, now
    assert list(replays) == [(1, "g2")]  # the finished game's replay was let go



def test_one_games_ggf_holds_what_the_delay_lets_be_seen_and_nothing_else() -> None:
    hall = Hall()
    times = played(hall)  # f5 at T0, … c4 at T0 + 240
    hall.state(1, times[-1], game="g1", black="Ann", white="Bob")
    played(hall, table=2, game="g2", squares=["d3"])
    now = [times[2] + DELAY + 1]  # three moves are old enough
    app = build_app(hall.store, FakeBus(), None,
                    HubWebSettings(TOKEN, delay=DELAY, clock=lambda: now[0]))
    client = TestClient(app)
    r = client.get("/feed/game/1/g1.ggf")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="table1-g1.ggf"'
    assert "PB[Ann]PW[Bob]" in r.text and r.text.count("(;") == 1
    assert "B[f5]W[d6]B[c3];)" in r.text and "d3" not in r.text
    for address in ("/feed/game/1/nope.ggf", "/feed/game/3/g1.ggf"):
        assert client.get(address).status_code == 404
