"""The broadcast follows what the table says happened, and one table never blanks another.

A game is built from the official position each event message carries, never
re-judged under the rules: an illegal pass the arbiter let stand, a disc left shifted,
a board the arbiter set by hand are all shown as they stood on the board, and marked
in the move list where a spectator should know.
"""

from __future__ import annotations

import json

from hub_web_support import START, FakeBus, Hall, board_after, moves_of
from starlette.testclient import TestClient

from controller.hall_protocol.protocol import EventMessage, StoredEvent
from controller.hub.broadcast import delayed_table, spectator_tables
from controller.hub.web import HubWebSettings, build_app
from controller.hub.web.live import Views
from controller.position import Position

DELAY = 60.0
T0 = 10_000.0


def _after(squares: list[str]) -> tuple[str, str]:
    pos = Position.start()
    for sq in squares:
        pos = pos.play(sq)
    return pos.board_string(), pos.to_move.value


def test_an_illegal_pass_with_no_position_does_not_raise_and_keeps_the_board() -> None:
    # the minimal case: a pass at the start, from a table that sends no position
    ev = StoredEvent(1, "g", 1, 0.0, {"t": 1.0, "event": "pass", "player": "black"}, 0.0)
    view = delayed_table(1, [ev], now=100, delay=0)
    assert view.board == START and view.to_move == "white"
    assert [m["kind"] for m in view.moves] == ["pass"]


def _official_game(store: Hall) -> list[float]:
    """Table 1: f5, d6, an illegal pass by black (flagged, the pass stands), a shifted
    disc left as it is, then a board the arbiter set; every message with its position."""
    seq = 0
    times: list[float] = []

    def send(event: dict, board: str, to_move: str | None) -> None:
        nonlocal seq
        seq += 1
        times.append(T0 + seq)
        assert store.store.add_event(EventMessage(1, "g1", seq, event, None, board, to_move),
                                     times[-1]).value == "stored"

    b1, _ = _after(["f5"])
    send(moves_of(["f5"])[0], b1, "white")
    b2, _ = _after(["f5", "d6"])
    send(moves_of(["f5", "d6"])[1], b2, "black")
    # black presses without moving: the arbiter journals the pass, then flags it
    send({"t": 3.0, "event": "pass", "player": "black"}, b2, "white")
    send({"t": 3.0, "event": "irregularity", "player": "black", "kind": "illegal_pass",
          "squares": ["c3", "c5", "e6"]}, b2, "white")
    # white plays f4 and leaves the new disc off its square: flagged, never put right
    shifted = Position.from_board_string(b2, Position.start().to_move.opponent).play("f4")
    board3 = shifted.board_string()  # the official board names a shifted disc by colour
    send({"t": 4.0, "event": "move", "player": "white", "square": "f4", "flips": ["e5"]},
         board3, "black")
    send({"t": 4.0, "event": "irregularity", "player": "white", "kind": "shifted_disc",
          "squares": ["f4"]}, board3, "black")
    # the arbiter accepts a board the rules could never reach (a disc on a1)
    ruled = "X" + board3[1:]
    send({"t": 9.0, "event": "clock", "black": 500.0, "white": 400.0, "running": "black"},
         ruled, "black")
    # play goes on from it: black e6 is shown as the table saw it after
    after = ruled[:44] + "X" + ruled[45:]
    send({"t": 10.0, "event": "move", "player": "black", "square": "e6", "flips": []},
         after, "white")
    return times


def test_the_board_shown_is_the_tables_after_each_step_and_faults_are_marked() -> None:
    hall = Hall()
    times = _official_game(hall)
    view = delayed_table(1, hall.store.events(1), times[-1] + DELAY, DELAY)
    moves = view.to_dict()["moves"]  # each entry with the board after it
    kinds = [(m["n"], m["kind"], m["player"], m["square"]) for m in moves]
    assert kinds == [(1, "move", "black", "f5"), (2, "move", "white", "d6"),
                     (3, "pass", "black", None), (4, "move", "white", "f4"),
                     (None, "board", None, None), (5, "move", "black", "e6")]
    by = {m["square"] or m["kind"]: m for m in moves}
    assert by["pass"]["illegal"] is True
    assert by["board"]["ruling"] is True and by["board"]["board"][0] == "X"
    assert by["f4"]["board"][29] == "O"  # the shifted disc stands: white's
    stored = hall.store.events(1)
    for entry, msg in zip([m for m in moves if m["kind"] == "move"],
                          [e for e in stored if e.event["event"] == "move"], strict=True):
        assert entry["board"] == msg.board  # every move: the table's official board
    assert view.board == stored[-1].board and view.to_move == "white"
    assert view.last == {"n": 5, "kind": "move", "player": "black", "square": "e6"}
    data = view.to_dict()
    assert data["discs"] == {"black": view.board.count("X") + view.board.count("x"),
                             "white": view.board.count("O") + view.board.count("o")}
    assert view.clock is not None and view.clock["black_ms"] == 500_000
    text = json.dumps(data)
    assert "irregularity" not in text and "shifted_disc" not in text  # marks, not flags
    assert "c3" not in text  # the legal moves the flag named stay the arbiter's


def test_an_illegal_pass_replaced_by_a_move_is_marked_withdrawn() -> None:
    hall = Hall()
    b1, _ = _after(["f5"])
    b2, _ = _after(["f5", "d6"])
    msgs = [(moves_of(["f5"])[0], b1, "white"), (moves_of(["f5", "d6"])[1], b2, "black"),
            ({"t": 3.0, "event": "pass", "player": "black"}, b2, "white"),
            ({"t": 3.0, "event": "irregularity", "player": "black", "kind": "illegal_pass",
              "squares": ["c3"]}, b2, "white"),
            ({"t": 5.0, "event": "corrected", "kind": "illegal_pass", "squares": ["c3"]},
             b2, "black")]
    b3, _ = _after(["f5", "d6", "c3"])
    msgs.append((moves_of(["f5", "d6", "c3"], t0=4.0)[2], b3, "white"))
    for i, (ev, board, to_move) in enumerate(msgs, 1):
        hall.store.add_event(EventMessage(1, "g1", i, ev, None, board, to_move), T0 + i)
    view = delayed_table(1, hall.store.events(1), T0 + 100 + DELAY, DELAY)
    passed = [m for m in view.moves if m["kind"] == "pass"]
    assert passed[0]["illegal"] is True and passed[0]["withdrawn"] is True
    assert view.board == b3 and view.moves[-1]["square"] == "c3"


class _Exploding:
    """A stored event whose reading fails: a bug, or a row nobody foresaw."""

    table, game, seq, received = 2, "bad", 1, 0.0

    @property
    def event(self) -> dict:
        raise RuntimeError("cannot read this event")


def test_one_table_that_cannot_be_built_never_reaches_another_tables_card() -> None:
    hall = Hall()
    for i, ev in enumerate(moves_of(["f5", "d6"])):
        hall.event(1, "g1", ev, T0 + i)
    good = hall.store.events(1)
    last_good: dict = {}
    views = spectator_tables({1: good, 2: [_Exploding()]}, T0 + DELAY + 10, DELAY,
                             last_good=last_good)
    assert [v.table for v in views] == [1, 2]
    assert views[0].board == board_after(["f5", "d6"])
    assert views[1].game is None and views[1].board == START
    # a table that worked before keeps its last good card when it later fails
    first = spectator_tables({1: good}, T0 + DELAY + 10, DELAY, last_good=last_good)[0]
    again = spectator_tables({1: [_Exploding()]}, T0 + DELAY + 20, DELAY,
                             last_good=last_good)[0]
    assert again.board == first.board and again.moves == first.moves


def test_the_hall_broadcast_answers_for_every_table_with_an_illegal_pass_in_view() -> None:
    hall = Hall()
    times = _official_game(hall)
    for i, ev in enumerate(moves_of(["f5", "d6", "c3"])):
        hall.event(2, "g2", ev, T0 + i)
    # the older form: no position at all, and a pass the rules refuse
    hall.event(3, "g3", {"t": 1.0, "event": "pass", "player": "black"}, T0)
    for n, game in ((1, "g1"), (2, "g2"), (3, "g3")):
        hall.state(n, T0, game=game)
    views = Views(hall.store, None, None, lambda: times[-1] + DELAY, DELAY, 60.0)
    tables = {t["table"]: t for t in views.spectator()["tables"]}
    assert sorted(tables) == [1, 2, 3]
    assert tables[2]["board"] == board_after(["f5", "d6", "c3"])
    assert tables[3]["moves"][0]["kind"] == "pass" and tables[3]["to_move"] == "white"
    assert tables[1]["moves"][2]["illegal"] is True


def test_the_overview_leaves_out_each_steps_board_and_one_tables_page_has_them() -> None:
    hall = Hall()
    times = _official_game(hall)
    hall.state(1, T0, game="g1")
    settings = HubWebSettings(None, delay=DELAY, clock=lambda: times[-1] + DELAY)
    with TestClient(build_app(hall.store, FakeBus(), None, settings)) as client:
        overview = client.get("/api/broadcast").json()
        (table,) = overview["tables"]
        assert all("board" not in m for m in table["moves"])
        assert table["board"] == hall.store.events(1)[-1].board
        one = client.get("/api/broadcast/table/1").json()
        assert [m["board"] for m in one["moves"] if m["kind"] == "move"] == [
            e.board for e in hall.store.events(1) if e.event["event"] == "move"]
        assert one["moves"][2]["illegal"] is True and one["as_of"] == overview["as_of"]
        assert client.get("/api/broadcast/table/7").status_code == 404
