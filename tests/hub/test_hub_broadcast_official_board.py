"""The spectator board follows the official position, through the table side and the wire.

A real arbiter dev log (a forgotten flip at ply 2 nobody points out, later an over-flip
and a removed disc) is played through a table service; its journal is read by the
table's publisher, every message goes through the protocol into a hub store, and the
delayed spectator view is compared, step by step, with the arbiter's own board.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sqlite3

import pytest

from controller.arbiter.config import ArbiterConfig, Mode
from controller.arbiter.core import Arbiter
from controller.events import (
    EventKind,
    Irregularity,
    corrected,
    game_over,
    irregularity,
    move,
    pointed_out,
)
from controller.events import pass_ as pass_event
from controller.events import resync as resync_event
from controller.hall_protocol.protocol import (
    EventMessage,
    ProtocolError,
    decode_event,
    encode_event,
)
from controller.hub.broadcast import Replay, delayed_table
from controller.hub.export import game_record
from controller.hub.store import HubStore
from controller.observation import read_observations
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.core import GameCore, GameSettings
from controller.service.sources import LogSource
from controller.table_link.journal_events import journal_messages

DELAY = 900.0
STEP = 10.0  # hub seconds between two stored messages


@pytest.fixture(scope="module")
def forgotten_flip_log(data_dir):
    path = data_dir / "arbiter-dev" / "0003.obs.jsonl"
    meta = json.loads((data_dir / "arbiter-dev" / "0003.meta.json").read_text())
    assert meta["injections"][0]["kinds"] == ["forgotten_flip"]  # the case under test
    return list(read_observations(path.read_text().splitlines()))


@pytest.fixture(scope="module")
def table_run(tmp_path_factory, forgotten_flip_log):
    """The log played by a tournament table without a clock; its journal and service."""
    tmp = tmp_path_factory.mktemp("table")
    cfg = defaults().replace(**{
        "game.mode": "tournament", "clock.enabled": False, "source.kind": "sim",
        "journal.path": str(tmp / "journal.sqlite"), "games.folder": str(tmp / "games"),
        "web.enabled": False,
    })
    service = Service(cfg, source=LogSource(forgotten_flip_log, speed=1000.0))
    service.open()
    assert asyncio.run(service.run()) == 0
    return tmp / "journal.sqlite", service


def _messages(journal, table: int = 4) -> list[EventMessage]:
    """Every event message the table's publisher makes of the journal, off the wire."""
    with contextlib.closing(sqlite3.connect(journal)) as db:
        (game,) = [r[0] for r in db.execute("SELECT id FROM games")]
        made = journal_messages(db, table, game, 0, 1, 100_000)
    return [decode_event(encode_event(m), table) for m in made]


def _hall(messages: list[EventMessage]) -> HubStore:
    store = HubStore(":memory:")
    for i, msg in enumerate(messages):
        assert store.add_event(msg, received=1000.0 + i * STEP).value == "stored"
    return store


def _official_boards(observations) -> list[tuple[dict, str]]:
    """Each event of the pure arbiter with the official board right after it."""
    arbiter = Arbiter(ArbiterConfig(mode=Mode.TOURNAMENT, clock=None))
    out = []
    for obs in observations:
        for e in arbiter.feed(obs):
            out.append((e.to_dict(), arbiter.position.board_string()))
    for e in arbiter.finish(observations[-1].t):
        out.append((e.to_dict(), arbiter.position.board_string()))
    return out


def test_the_spectator_board_is_the_tables_official_board_after_a_forgotten_flip(
        table_run, forgotten_flip_log):
    journal, service = table_run
    messages = _messages(journal)
    assert all(m.board is not None for m in messages)  # every step says its position
    events = [m.event for m in messages]
    kinds = [e["event"] for e in events]
    assert "irregularity" in kinds and kinds.count("move") >= 50

    # the pure arbiter over the same log: the board after each move, in order
    oracle = [board for e, board in _official_boards(forgotten_flip_log)
              if e["event"] == "move"]
    store = _hall(messages)
    stored = store.events(4)
    shown_moves = []
    rules_only = Replay()  # what the spectator showed before: the moves under the rules
    differs = 0
    for i, (msg, st) in enumerate(zip(messages, stored, strict=True)):
        view = delayed_table(4, stored, 1000.0 + i * STEP + DELAY, DELAY)
        assert view.board == msg.board  # never the rules' board, never a later one
        rules_only.feed(type("Plain", (), {"event": st.event, "received": st.received,
                                           "seq": st.seq, "table": 4, "game": st.game})())
        if msg.event["event"] == "move":
            shown_moves.append(view.board)
            differs += rules_only.pos.board_string() != view.board
        text = json.dumps(view.to_dict())
        for secret in ("irregularity", "forgotten", "over_flip", "removed", "flips"):
            assert secret not in text
    # the board at every move is the arbiter's own, forgotten flip and all
    assert shown_moves == oracle
    # and the rules alone would have shown a board the hall never saw
    assert differs > 10
    # d5 was never turned by white's d6: the spectator shows it black, as on the table
    after_d6 = oracle[1]
    assert after_d6[4 * 8 + 3] == "X"  # d5: row 5, column d
    # the last view is the table's own final position
    final = delayed_table(4, stored, 1000.0 + len(messages) * STEP + DELAY, DELAY)
    assert final.board == service.table.core.position()["board"]
    assert [m["square"] for m in final.moves] == [
        e["square"] for e in events if e["event"] == "move"]


def test_the_journaled_position_is_the_one_a_replay_of_the_inputs_gives(table_run):
    """Each step's position entry is what the pure core says after that step's input."""
    journal, _ = table_run
    with contextlib.closing(sqlite3.connect(journal)) as db:
        info, = db.execute("SELECT info FROM games").fetchone()
        rows = db.execute("SELECT step, kind, t, data FROM entries ORDER BY seq").fetchall()
    core = GameCore(GameSettings.from_dict(json.loads(info)["settings"]))
    checked = 0
    for _step, kind, t, data in rows:
        if kind == "input":
            core.apply(t, json.loads(data))
        elif kind == "position":
            assert json.loads(data) == core.position()
            checked += 1
    assert checked >= 50


def test_a_board_set_by_the_arbiter_reaches_the_spectator_with_its_clock_reading():
    # a step with no public event (the arbiter's ruling): the clock entry carries it
    store = HubStore(":memory:")
    start = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27
    ruled = "X" + start[1:]
    for seq, (event, board) in enumerate([
        ({"t": 1.0, "event": "move", "player": "black", "square": "f5", "flips": ["e5"]},
         start[:37] + "XX" + start[39:]),
        ({"t": 9.0, "event": "clock", "black": 500.0, "white": 500.0, "running": "white"},
         ruled),
    ], 1):
        msg = decode_event(encode_event(EventMessage(1, "g", seq, event, None, board, "white")), 1)
        store.add_event(msg, 100.0 * seq)
    view = delayed_table(1, store.events(1), 200.0 + DELAY, DELAY)
    assert view.board == ruled and view.to_move == "white"


def test_a_resync_gives_its_moves_to_the_spectator_and_the_record_not_its_squares():
    store = HubStore(":memory:")
    evs = [
        move(1.0, "black", "f5", ["e5"]).to_dict(),
        # white d6 and black c3 were played with the turn lost once; the board is adopted
        resync_event(2.0, ["c3", "d4", "d6", "d5"], "white", ["white d6", "black c3"]).to_dict(),
    ]
    for seq, ev in enumerate(evs, 1):
        msg = decode_event(encode_event(EventMessage(2, "g", seq, ev)), 2)
        store.add_event(msg, 100.0 * seq)
    view = delayed_table(2, store.events(2), 200.0 + DELAY, DELAY)
    assert [(m["player"], m["square"]) for m in view.moves] == [
        ("black", "f5"), ("white", "d6"), ("black", "c3")]
    assert view.to_move == "white" and "squares" not in json.dumps(view.to_dict())
    rec = game_record(store.events(2, "g"))
    assert [m.square for m in rec.moves] == ["f5", "d6", "c3"]


# ------------------------------------------------------------------- protocol
def _every_kind() -> list[dict]:
    """One event of every kind the arbiter (and the table's clock) can journal."""
    out = [
        move(1.5, "black", "f5", ["e5"]).to_dict(),
        pass_event(2.0, "white").to_dict(),
        *[irregularity(3.0, "white", kind, ["d5"]).to_dict() for kind in Irregularity],
        *[corrected(4.0, kind, ["d5"]).to_dict() for kind in Irregularity],
        pointed_out(4.5, "black", ["d5", "e5"]).to_dict(),
        resync_event(5.0, ["c3", "d4"], "white", ["white d6", "black c3"]).to_dict(),
        game_over(6.0, 33, 31, "black").to_dict(),
        game_over(6.0, 32, 32, "white", decided_by="draw_win_right").to_dict(),
        game_over(7.0, 20, 44, "white", reason="time", loser="black").to_dict(),
        game_over(7.0, 30, 30, "draw", reason="both_flags", loser=None).to_dict(),
        {"t": 8.0, "event": "clock", **GameCore(GameSettings()).clocks(8.0)},
        {"t": 8.0, "event": "clock", **GameCore(GameSettings(clock=False)).clocks(8.0)},
    ]
    return out


def test_every_event_kind_the_arbiter_emits_passes_the_protocol():
    events = _every_kind()
    assert {e["event"] for e in events} == {k.value for k in EventKind} | {"clock"}
    board = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27
    for seq, ev in enumerate(events, 1):
        for pos in ((None, None), (board, "white"), (board, None)):
            msg = EventMessage(9, "20260101-100000", seq, ev, 1.0, *pos)
            assert decode_event(encode_event(msg), 9) == msg


@pytest.mark.parametrize("change, field", [
    ({"board": "-" * 63}, "board"),
    ({"board": "?" * 64}, "board"),  # an official position has no unknown square
    ({"board": "-" * 64, "to_move": "red"}, "to_move"),
    ({"to_move": "black"}, "board"),  # a side to move without its board
])
def test_a_bad_position_in_an_event_message_is_named(change, field):
    d = {"v": 1, "table": 9, "game": "g", "seq": 1,
         "event": {"t": 0.0, "event": "pass", "player": "black"}, **change}
    with pytest.raises(ProtocolError, match=f"'{field}'"):
        decode_event(json.dumps(d).encode(), 9, "kaeshi/e/table/9/events")


def test_a_resync_with_malformed_moves_is_named():
    ev = resync_event(5.0, ["c3"], "white", ["white d6; drop table"]).to_dict()
    with pytest.raises(ProtocolError, match="'moves'"):
        decode_event(encode_event(EventMessage(9, "g", 1, ev)), 9)


def test_an_older_hub_store_gains_the_position_columns(tmp_path):
    path = tmp_path / "hub.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        db.executescript("""
            CREATE TABLE events (tbl INTEGER NOT NULL, game TEXT NOT NULL, seq INTEGER NOT NULL,
                received REAL NOT NULL, wall REAL, event TEXT NOT NULL,
                PRIMARY KEY (tbl, game, seq)) WITHOUT ROWID;
            INSERT INTO events VALUES (1, 'g', 1, 5.0, NULL,
                '{"t":1,"event":"pass","player":"black"}');
        """)
    store = HubStore(path)
    (old,) = store.events(1, "g")
    assert old.board is None and old.event["event"] == "pass"
    store.close()
