"""Faults the hall can throw at the service: a journal that cannot be written, a damaged
journal file, a replay started again. Nothing may be shown that is not journaled,
nothing dropped without a word, nothing fed twice, and never a traceback.

Storage faults are raised by SQLite itself mid-game: a file that may not grow
(``max_page_count``, SQLite's "database or disk is full") and a connection that may
not write (``query_only``, "attempt to write a readonly database"). The one write
that marks a game finished is failed alone by wrapping the journal's connection.
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from service_scripts import scripted_log

from controller.observation import Observation, write_observations
from controller.position import Position
from controller.records import load_games
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.demo import load_one_game
from controller.service.journal import Journal
from controller.service.lifecycle import ReplayDone
from controller.service.salvage import inspect_wal
from controller.service.sources import LogSource
from controller.service.states import State

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def real_game(data_dir):
    return load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)


def _config(tmp: Path, **extra: Any):
    values = {
        "game.mode": "home",
        "source.kind": "sim",
        "source.speed": 400.0,
        "journal.path": str(tmp / "journal.sqlite"),
        "games.folder": str(tmp / "games"),
        "web.enabled": False,
        "leds.driver": "web",
        "clock.resume": "continue",
    }
    values.update(extra)
    return defaults().replace(**values)


class FailingDb:
    """The journal's SQLite connection, with writes that fail on demand."""

    def __init__(self, db: sqlite3.Connection, error: str) -> None:
        self.db = db
        self.error = error
        self.failing = False
        self.only: str | None = None  # fail only statements starting with this

    def _check(self, sql: str) -> None:
        words = sql.lstrip().upper()
        if self.failing and words.startswith(("INSERT", "UPDATE", "COMMIT")):
            if self.only is None or words.startswith(self.only):
                raise sqlite3.OperationalError(self.error)

    def execute(self, sql: str, *args: Any) -> Any:
        self._check(sql)
        return self.db.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> Any:
        self._check(sql)
        return self.db.executemany(sql, *args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)


def _journaled_moves(service: Service) -> list[str]:
    assert service.keeper.journal is not None and service.table.game is not None
    db = service.keeper.journal._db
    real = db.db if isinstance(db, FailingDb) else db
    rows = real.execute("SELECT data FROM entries WHERE game=? AND kind='event' ORDER BY seq",
                        (service.table.game.id,)).fetchall()
    return [r[0] for r in rows if '"event":"move"' in r[0] or '"event":"pass"' in r[0]]


#: Storage faults raised by SQLite itself: a file that may not grow (a full disk) and a
#: connection that may not write (storage turned read-only); then the way back.
FAULTS = {
    "disk full": ("database or disk is full",
                  lambda db: db.execute("PRAGMA max_page_count = "
                                        + str(db.execute("PRAGMA page_count").fetchone()[0])),
                  lambda db: db.execute("PRAGMA max_page_count = 1073741823")),
    "read-only": ("attempt to write a readonly database",
                  lambda db: db.execute("PRAGMA query_only = 1"),
                  lambda db: db.execute("PRAGMA query_only = 0")),
}


@pytest.mark.parametrize("fault", sorted(FAULTS))
def test_a_failed_journal_write_holds_play_and_shows_nothing_unrecorded(
        tmp_path, real_game, fault):
    error, fail, heal = FAULTS[fault]
    log = scripted_log(real_game)
    service = Service(_config(tmp_path), source=LogSource(log, speed=400.0))
    service.open()
    db = service.keeper.journal._db
    seen: list[tuple[int, int]] = []  # (moves shown, moves journaled) at every show
    held: list[dict[str, Any]] = []
    armed: list[bool] = []

    def on_step(events: list[Any]) -> None:
        shown = len(service.facade.snapshot("arbiter")["moves"])
        seen.append((shown, len(_journaled_moves(service))))
        if shown == 12 and not armed:
            armed.append(True)
            fail(db)  # the storage fails right after move 12

    service.on_step = on_step

    async def scenario() -> None:
        task = asyncio.create_task(service.run())
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        while service.table.states.state is not State.JOURNAL_FAILED:
            assert loop.time() < end and not task.done()
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.3)  # the replay keeps coming; nothing of it may show
        snap = service.facade.snapshot("player")
        held.append(snap)
        assert len(snap["moves"]) == len(_journaled_moves(service))
        assert "a1" in service.outputs.led_plan  # the status lights on the board's corners
        heal(db)  # space is freed, the storage is writable again
        await asyncio.wait_for(task, 30)

    asyncio.run(scenario())
    snap = held[0]
    assert snap["state"] == "journal_failed" and "JOURNAL FAILED" in snap["message"]
    assert error in snap["message"]
    assert [(s, j) for s, j in seen if s != j] == []
    # The replay waited while the journal failed, so nothing was lost or fed twice.
    rec = load_games(tmp_path / "games" / f"{service.table.game.id}.json")[0]
    assert rec.transcript_moves() == real_game.transcript_moves()
    journal = Journal(tmp_path / "journal.sqlite")
    cursors = [e.data["cursor"] for e in journal.entries(service.table.game.id, ("input",))
               if "cursor" in e.data]
    assert cursors == sorted(set(cursors))
    notes = [e.data for e in journal.entries(service.table.game.id, ("note",))]
    assert any(n.get("journal") == "written again" and error in n["failed"] for n in notes)
    # the clock stood from the failure on (no arbiter here resumes it), while the moves
    # made meanwhile were still judged one by one
    assert all("over_flip" not in m.comment and "extra_disc" not in m.comment
               for m in rec.moves)


def test_a_failed_game_end_write_is_a_journal_fault_not_a_lost_sensor(tmp_path, real_game):
    log = scripted_log(real_game)
    service = Service(_config(tmp_path), source=LogSource(log, speed=400.0))
    service.open()
    db = FailingDb(service.keeper.journal._db, "database or disk is full")
    db.only = "UPDATE"  # only the write that marks the game finished fails
    db.failing = True
    service.keeper.journal._db = db
    states: list[str] = []

    async def scenario() -> None:
        task = asyncio.create_task(service.run())
        loop = asyncio.get_running_loop()
        end = loop.time() + 20
        while not service.lifecycle.finish_pending or service.keeper.problem is None:
            assert loop.time() < end and not task.done()
            states.append(service.table.states.state.value)
            await asyncio.sleep(0.005)
        assert service.table.states.state is State.JOURNAL_FAILED
        db.failing = False
        await asyncio.wait_for(task, 10)

    asyncio.run(scenario())
    assert "sensor_lost" not in states
    journal = Journal(tmp_path / "journal.sqlite")
    (game,) = journal.games()  # the log was not replayed again as a new game
    assert game.finished is not None
    moves = [e for e in journal.entries(game.id, ("event",)) if e.data["event"] == "move"]
    assert len(moves) == len(real_game.transcript_moves())


def _played(tmp: Path, real_game, moves_before_kill: int) -> tuple[Path, Path]:
    """A journal mid-game, copied as a crash would leave it (the WAL still beside it)."""
    log = scripted_log(real_game)
    presses = [i for i, o in enumerate(log) if o.press is not None]
    cut = presses[moves_before_kill] + 1
    live = tmp / "live"
    live.mkdir()
    service = Service(_config(live), source=LogSource(log[:cut], speed=400.0))
    service.open()
    service.exit_when_done = True
    asyncio.run(service.run())  # the replay ends mid-game; the journal is closed
    return live / "journal.sqlite", live


def _wal_copy(tmp: Path, steps_after: int = 5) -> Path:
    """A journal whose last steps are only in its WAL, copied while it is open."""
    src = tmp / "src"
    src.mkdir()
    j = Journal(src / "journal.sqlite")
    g = j.new_game({"settings": {"mode": "home"}}, wall=1_000_000.0)
    for i in range(steps_after):
        j.commit_step(g.id, i, [("input", {"obs": {"board": "-" * 64}}),
                                ("note", {"n": i, "pad": "x" * 3000})])
    dst = tmp / "crashed"
    dst.mkdir()
    for suffix in ("", "-wal"):
        shutil.copyfile(f"{src / 'journal.sqlite'}{suffix}", f"{dst / 'journal.sqlite'}{suffix}")
    j.close()
    return dst / "journal.sqlite"


def test_a_damaged_database_is_kept_aside_and_what_reads_is_resumed(tmp_path, real_game):
    path, folder = _played(tmp_path, real_game, 20)
    before = Journal(path)
    game_id = before.unfinished_game().id
    before.close()
    size = path.stat().st_size
    with open(path, "r+b") as f:  # a damaged stretch in the middle of the file
        f.seek(size // 2)
        f.write(b"\xde\xad\xbe\xef" * 1024)
    service = Service(_config(folder), source=LogSource([], speed=400.0))
    service.open()
    text = " ".join(service.keeper.journal.recovery)
    assert service.table.game.id == game_id  # the game goes on; it is never silently begun again
    assert "was damaged" in text and "kept as" in text and "recovered" in text
    assert "not recovered" in text or "nothing was lost" in text
    kept = [k for k in folder.glob("journal.sqlite.damaged-*")
            if not k.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1 and kept[0].stat().st_size == size  # the damaged file itself, untouched
    assert "was damaged" in service.facade.snapshot("player")["message"]


def test_a_journal_with_nothing_readable_says_a_new_game_begins(tmp_path, real_game):
    path, folder = _played(tmp_path, real_game, 5)
    data = bytearray(path.read_bytes())
    data[100:] = b"\xff" * (len(data) - 100)  # the header survives, nothing else
    path.write_bytes(bytes(data))
    service = Service(_config(folder), source=LogSource([], speed=400.0))
    service.open()
    message = service.facade.snapshot("player")["message"]
    assert "was damaged" in message and "not recovered" in message
    assert "a new game begins" in message


def test_a_truncated_database_is_reported_not_a_traceback(tmp_path, real_game):
    path, folder = _played(tmp_path, real_game, 20)
    with open(path, "r+b") as f:
        f.truncate(path.stat().st_size // 3)
    log = folder / "rest.jsonl"
    log.write_text(Observation(0.0, board=Position.start().board_string()).to_json() + "\n")
    cfg = folder / "k.toml"
    cfg.write_text(f'[source]\nkind = "sim"\nlog = "{log}"\n'
                   f'[journal]\npath = "{path}"\n[games]\nfolder = "{folder / "games"}"\n'
                   '[web]\nenabled = false\n')
    done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    err = done.stderr
    assert done.returncode == 0, err
    assert "Traceback" not in err
    assert "was damaged" in err and "kept as" in err
    assert list(folder.glob("journal.sqlite.damaged-*"))


def test_a_lost_wal_costs_no_move(tmp_path, real_game):
    """Moves are checkpointed into the database file: without its WAL the game survives."""
    path, folder = _played(tmp_path, real_game, 20)
    first = Journal(path)
    moves = [e for e in first.entries(first.unfinished_game().id, ("event",))
             if e.data["event"] == "move"]
    first.close()
    crashed = tmp_path / "crashed"
    crashed.mkdir()
    shutil.copyfile(path, crashed / "journal.sqlite")  # its WAL is gone
    service = Service(_config(crashed), source=LogSource([], speed=400.0))
    service.open()
    assert len(service.table.core.arbiter.moves) == len(moves) == 20


@pytest.mark.parametrize("damage", ["flip", "header"])
def test_a_damaged_wal_is_reported_and_kept(tmp_path, damage):
    path = _wal_copy(tmp_path)
    wal = Path(f"{path}-wal")
    report = inspect_wal(wal)
    assert report is not None and report.committed > 0 and not report.damaged
    data = bytearray(wal.read_bytes())
    if damage == "flip":
        data[len(data) // 2] ^= 0xFF
    else:
        data[0:4] = b"\0\0\0\0"
    wal.write_bytes(bytes(data))
    journal = Journal(path)
    text = " ".join(journal.recovery)
    assert "write-ahead log journal.sqlite-wal is damaged" in text
    assert "could not be used" in text and "kept as" in text
    assert list(path.parent.glob("journal.sqlite-wal.damaged-*"))
    assert journal.unfinished_game() is not None  # the game row was checkpointed


def test_a_wal_cut_short_is_said_in_the_log(tmp_path, caplog):
    """A cut WAL looks like a step cut short by a crash; moves are checkpointed already."""
    path = _wal_copy(tmp_path)
    wal = Path(f"{path}-wal")
    data = wal.read_bytes()
    wal.write_bytes(data[: len(data) * 2 // 3])
    before = inspect_wal(wal)
    assert before is not None and before.dropped_bytes and not before.damaged
    with caplog.at_level("WARNING", logger="kaeshi.service"):
        journal = Journal(path)
    assert "bytes after the last whole step are dropped" in caplog.text
    (game,) = journal.games()
    assert 0 < len(list(journal.entries(game.id, ("note",)))) < 5


def test_a_clean_wal_after_a_crash_is_not_reported(tmp_path):
    path = _wal_copy(tmp_path)
    journal = Journal(path)
    assert journal.recovery == []
    (game,) = journal.games()
    assert len(list(journal.entries(game.id, ("note",)))) == 5


def test_a_finished_replay_is_not_replayed_as_a_new_game(tmp_path, real_game):
    log_path = tmp_path / "log.jsonl"
    with open(log_path, "w") as f:
        write_observations(scripted_log(real_game), f)
    cfg = _config(tmp_path, **{"source.log": str(log_path), "leds.driver": "none"})
    first = Service(cfg)
    first.open()
    assert isinstance(first.choice.make().observations, Path)  # streamed, not a list
    asyncio.run(first.run())
    assert first.table.states.state is State.GAME_OVER
    again = Service(cfg)
    with pytest.raises(ReplayDone, match="already replayed to its end"):
        again.open()
    assert len(Journal(tmp_path / "journal.sqlite").games()) == 1


def test_a_replay_retried_after_a_failure_continues_where_it_was(tmp_path):
    start = Position.start().board_string()
    log = [Observation(0.01 * i, board=start) for i in range(5)]
    source = LogSource(log, speed=1000.0)

    async def take(n: int) -> list[Any]:
        out = []
        async for item in source.items():
            out.append(item)
            if len(out) == n:
                break
        return out

    first = asyncio.run(take(3))  # link up, then two readings
    again = asyncio.run(take(2))  # link up, then the next reading
    assert [r.cursor for r in first[1:]] == [0, 1] and again[1].cursor == 2
    assert first[1].board == start
