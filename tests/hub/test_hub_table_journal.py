"""A hub's next_game on a table whose journal cannot be written: held, never lost."""

from __future__ import annotations

from controller.observation import Observation
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.journal import Journal, JournalError
from controller.service.sources import LogSource
from controller.service.states import State

OVERRIDES = {"black": "Tanida", "white": "Murakami", "main": 1800.0,
             "draw_win_right": "white", "draws_allowed": False}


def _service(tmp_path) -> Service:
    cfg = defaults().replace(**{
        "game.mode": "tournament", "source.kind": "sim",
        "journal.path": str(tmp_path / "journal.sqlite"), "games.folder": str(tmp_path / "g"),
        "web.enabled": False,
    })
    ticks = iter(range(1_800_000_000, 1_900_000_000))  # each game starts later than the last
    service = Service(cfg, source=LogSource([Observation(0.0, board="-" * 64)]),
                      wall=lambda: float(next(ticks)))
    service.open()
    service.lifecycle.order(dict(OVERRIDES))
    return service


def test_a_read_only_journal_holds_the_next_game_until_it_is_written_again(tmp_path):
    service = _service(tmp_path)
    first = service.table.game.id
    db = service.keeper.journal._db
    db.execute("PRAGMA query_only = 1")  # the storage turned read-only
    assert service.lifecycle.replace_unstarted_game() is False
    assert service.table.states.state is State.JOURNAL_FAILED
    assert "JOURNAL FAILED" in service.table.message
    assert service.table.game.id == first and service.lifecycle.next_game_overrides == OVERRIDES

    db.execute("PRAGMA query_only = 0")
    service.lifecycle.retry_journal()
    assert service.table.states.state is not State.JOURNAL_FAILED
    assert service.lifecycle.replace_unstarted_game() is True
    assert service.table.game.id != first and service.table.core.settings.black == "Tanida"
    service.keeper.journal.close()
    journal = Journal(tmp_path / "journal.sqlite")
    assert journal.game(first).finished is not None
    assert journal.unfinished_game().id == service.table.game.id


def test_a_failed_close_of_the_empty_game_keeps_the_new_one_resumable(tmp_path, monkeypatch):
    service = _service(tmp_path)
    first = service.table.game.id

    def fail(game_id: str, wall: float | None = None) -> None:
        raise JournalError(f"{tmp_path}: cannot write the journal (disk I/O error)")

    monkeypatch.setattr(service.keeper.journal, "finish_game", fail)
    assert service.lifecycle.replace_unstarted_game() is True
    assert service.table.states.state is State.JOURNAL_FAILED
    assert "disk I/O error" in service.table.message
    second = service.table.game.id
    assert second != first and service.table.core.settings.white == "Murakami"
    # a restart now resumes the game in play, not the empty one before it
    service.keeper.journal.close()
    assert Journal(tmp_path / "journal.sqlite").unfinished_game().id == second


def test_nothing_is_replaced_once_a_move_is_made(tmp_path):
    service = _service(tmp_path)
    first = service.table.game.id
    service.table.core.started = True
    assert service.lifecycle.replace_unstarted_game() is False
    assert service.table.game.id == first and service.table.states.state is not State.JOURNAL_FAILED
