"""A journal's rows as the hall's event messages: numbered in journal order, each with
the position its step journaled, and a position the hub would refuse left out rather
than sent (the hub would drop the whole event for it and wait for it forever)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from controller.position import Position
from controller.service.journal_schema import connect
from controller.table_link.journal_events import event_payload, game_size, journal_messages

START = Position.start().board_string()


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Callable[..., sqlite3.Connection]]:
    """A journal file of the service's own schema, holding one game ``g1``."""
    opened: list[sqlite3.Connection] = []

    def make(info: str = '{"settings": {"size": 8}}') -> sqlite3.Connection:
        db = connect(tmp_path / f"journal{len(opened)}.sqlite")
        db.execute("INSERT INTO games (id, started, info) VALUES ('g1', 1000.0, ?)", (info,))
        opened.append(db)
        return db

    yield make
    for db in opened:
        db.close()


def _row(db: sqlite3.Connection, seq: int, step: int, kind: str, data: object) -> None:
    db.execute("INSERT INTO entries (seq, game, step, kind, t, wall, data) "
               "VALUES (?, 'g1', ?, ?, ?, ?, ?)",
               (seq, step, kind, 1.5 * seq, 1000.0 + seq, json.dumps(data)))


def test_events_and_clocks_are_numbered_in_order_with_their_steps_position(journal) -> None:
    db = journal()
    _row(db, 1, 1, "input", {"press": "black"})
    _row(db, 2, 1, "event", {"type": "move", "square": "f5"})
    _row(db, 3, 1, "clock", {"black": 300.0, "white": 300.0})
    _row(db, 4, 1, "position", {"board": START, "to_move": "white"})
    _row(db, 5, 2, "event", {"type": "move", "square": "d6"})
    _row(db, 6, 2, "position", {"board": "nonsense", "to_move": "black"})
    msgs = journal_messages(db, table=3, game="g1", from_row=1, seq=10, limit=10)
    assert [m.seq for m in msgs] == [10, 11, 12]
    assert [m.event for m in msgs] == [
        {"type": "move", "square": "f5"},
        {"t": 4.5, "event": "clock", "black": 300.0, "white": 300.0},
        {"type": "move", "square": "d6"},
    ]
    assert [(m.board, m.to_move) for m in msgs] == [(START, "white"), (START, "white"),
                                                     (None, None)]
    assert {(m.table, m.game, m.size) for m in msgs} == {(3, "g1", 8)}
    assert [m.seq for m in journal_messages(db, 3, "g1", from_row=3, seq=11, limit=1)] == [11]
    assert journal_messages(db, 3, "g1", from_row=7, seq=13, limit=10) == []


def test_a_game_journaled_before_sizes_or_with_a_broken_record_is_eight_by_eight(
        journal) -> None:
    assert game_size(journal('{"settings": {"size": 6}}'), "g1") == 6
    for info in ('{"settings": {}}', "not json", '{"settings": {"size": 7}}', "[]"):
        assert game_size(journal(info), "g1") == 8, info
    assert game_size(journal(), "no such game") == 8


def test_a_clock_entry_carries_its_time_rounded_and_an_event_is_as_journaled() -> None:
    assert event_payload("clock", 1.23456789, '{"black": 1}') == {
        "t": 1.234568, "event": "clock", "black": 1}
    assert event_payload("event", 9.0, '{"type": "pass"}') == {"type": "pass"}
