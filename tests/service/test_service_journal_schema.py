"""Opening a journal file: WAL and full syncs, the schema made once, a journal of
another schema refused by name, and one from before row checksums given the column."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.service.journal import JournalError
from controller.service.journal_schema import SCHEMA_VERSION, connect


def _columns(db: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in db.execute(f"PRAGMA table_info({table})")]


def test_a_new_journal_is_made_once_with_its_schema(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    db = connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    db.execute("INSERT INTO games (id, started, info) VALUES ('g', 1.0, '{}')")
    db.close()
    again = connect(path)  # opening again changes nothing
    assert again.execute("SELECT id FROM games").fetchall() == [("g",)]
    assert again.execute("SELECT value FROM meta WHERE key='schema'").fetchall() == [
        (str(SCHEMA_VERSION),)]
    again.close()


def test_a_journal_of_another_schema_is_refused_naming_it(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    connect(path).close()
    raw = sqlite3.connect(path)
    raw.execute("UPDATE meta SET value='99' WHERE key='schema'")
    raw.commit()
    raw.close()
    with pytest.raises(JournalError, match=rf"j.sqlite: journal schema 99 is not the "
                                           rf"supported {SCHEMA_VERSION}"):
        connect(path)


def test_a_journal_from_before_row_checksums_gets_the_column(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    raw = sqlite3.connect(path)
    raw.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE games (id TEXT PRIMARY KEY, started REAL NOT NULL, finished REAL,
                            info TEXT NOT NULL);
        CREATE TABLE entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL,
                              step INTEGER NOT NULL, kind TEXT NOT NULL, t REAL NOT NULL,
                              wall REAL NOT NULL, data TEXT NOT NULL);
        INSERT INTO games VALUES ('old', 1.0, NULL, '{}');
    """)
    raw.commit()
    raw.close()
    db = connect(path)
    assert "crc" in _columns(db, "games") and "crc" in _columns(db, "entries")
    assert db.execute("SELECT id, crc FROM games").fetchall() == [("old", None)]
    db.close()
