"""The journal: synced steps, WAL mode, games that can be resumed or listed."""

from __future__ import annotations

import sqlite3

import pytest

from controller.service.journal import Journal, JournalError


def test_wal_mode_and_full_sync(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    db = sqlite3.connect(tmp_path / "j.sqlite")
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert j._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    j.close()


def test_steps_are_read_back_in_order_and_survive_reopening(tmp_path):
    path = tmp_path / "sub" / "j.sqlite"
    j = Journal(path)
    g = j.new_game({"black": "A"}, wall=1_000_000.0)
    s1 = j.commit_step(g.id, 0.5, [("input", {"obs": {"t": 0.5, "board": "-" * 64}})])
    s2 = j.commit_step(
        g.id,
        1.0,
        [("input", {"obs": {"t": 1.0, "press": "white"}}), ("clock", {"running": "black"})],
    )
    assert s2 == s1 + 1
    j.close()
    j = Journal(path)
    assert j.unfinished_game().id == g.id
    entries = list(j.entries(g.id))
    assert [(e.step, e.kind) for e in entries] == [(s1, "input"), (s2, "input"), (s2, "clock")]
    assert entries[1].data == {"obs": {"t": 1.0, "press": "white"}}
    assert [e.kind for e in j.entries(g.id, ("clock",))] == ["clock"]
    assert j.last_entry(g.id).kind == "clock"
    # numbering continues after a restart
    assert j.commit_step(g.id, 2.0, [("note", {})]) == s2 + 1
    j.finish_game(g.id, wall=1_000_100.0)
    assert j.unfinished_game() is None
    assert j.game(g.id).finished == 1_000_100.0


def test_game_ids_are_unique_within_a_second(tmp_path):
    j = Journal(tmp_path / "j.sqlite")
    a = j.new_game({}, wall=1_000_000.0)
    b = j.new_game({}, wall=1_000_000.0)
    assert a.id != b.id and b.id.startswith(a.id)
    assert [g.id for g in j.games()] == [a.id, b.id]


def test_a_file_that_is_not_a_journal_is_refused(tmp_path):
    p = tmp_path / "j.sqlite"
    p.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(JournalError, match="j.sqlite: cannot open the journal"):
        Journal(p)
