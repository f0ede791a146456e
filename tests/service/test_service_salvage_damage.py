"""Damage inside the journal's database file: bit flips and cuts at many offsets.

Whatever the damage, the service starts: either the damage is found (SQLite's
integrity check, or a row's checksum), the original bytes are kept aside untouched
and what is whole is resumed, with a message saying what was recovered; or it is
harmless (free space), and the game is exactly the undamaged one. A second start
never fails on what the first recovered.
"""

from __future__ import annotations

import asyncio
import hashlib
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from service_scripts import scripted_log

from controller.service.app import Service
from controller.service.config import defaults
from controller.service.demo import load_one_game
from controller.service.journal import Journal
from controller.service.sources import LogSource

PAGE = 4096
MOVES = 20


def _config(folder: Path) -> Any:
    return defaults().replace(**{
        "game.mode": "home", "source.kind": "sim", "source.speed": 400.0,
        "journal.path": str(folder / "journal.sqlite"), "games.folder": str(folder / "games"),
        "web.enabled": False, "leds.driver": "web", "clock.resume": "continue",
    })


@pytest.fixture(scope="module")
def played(tmp_path_factory, data_dir) -> dict[str, Any]:
    """A journal 20 moves into a game: closed cleanly, and as a crash leaves it (with
    its write-ahead log), with the moves and clocks the undamaged journal resumes to."""
    game = load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)
    log = scripted_log(game)
    presses = [i for i, o in enumerate(log) if o.press is not None]
    folder = tmp_path_factory.mktemp("played")
    service = Service(_config(folder), source=LogSource(log[: presses[MOVES] + 1], 400.0))
    crashed: dict[str, bytes] = {}

    def on_step(events: list) -> None:  # copied mid-game, while the journal is open
        if len(service.table.core.arbiter.moves) == MOVES - 2 and not crashed:
            for suffix in ("", "-wal"):
                crashed[suffix] = Path(f"{folder / 'journal.sqlite'}{suffix}").read_bytes()

    service.on_step = on_step
    service.open()
    service.exit_when_done = True
    asyncio.run(service.run())
    clean = (folder / "journal.sqlite").read_bytes()
    assert len(crashed["-wal"]) > 0
    return {"clean": clean, "crashed": crashed, "moves": game.transcript_moves()[:MOVES]}


def _open(folder: Path) -> Service:
    service = Service(_config(folder), source=LogSource([], speed=400.0))
    service.open()  # must never raise: a table is never stuck in a crash loop
    return service


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _check(folder: Path, files: dict[str, bytes], want_moves: list[str]) -> bool:
    """Start on the damaged ``files``; return whether the damage was found."""
    for suffix, data in files.items():
        Path(f"{folder / 'journal.sqlite'}{suffix}").write_bytes(data)
    service = _open(folder)
    moves = [m.square for m in service.table.core.arbiter.moves]
    message = service.facade.snapshot("player")["message"]
    service.keeper.journal.close()
    kept = sorted(k for k in folder.glob("journal.sqlite.damaged-*")
                  if not k.name.endswith(("-wal", "-shm")))
    found = bool(kept)
    if found:
        (k,) = kept
        assert "was damaged" in message and "recovered" in message and str(k) in message
        for suffix, data in files.items():  # the evidence is the bytes found, untouched
            assert _sha(Path(f"{k}{suffix}").read_bytes()) == _sha(data), suffix
        assert moves == want_moves[: len(moves)] or "not recovered" in message
    else:
        assert moves == want_moves, "damage went unnoticed and changed the game"
    again = _open(folder)  # what the first start recovered starts again, cleanly
    assert not again.keeper.journal.recovery
    assert [m.square for m in again.table.core.arbiter.moves] == moves
    again.keeper.journal.close()
    return found


def _fresh(tmp_path: Path, name: str) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    return folder


@pytest.mark.parametrize("seed", range(6))
def test_twenty_bit_flips_past_the_first_page_never_stop_the_start(tmp_path, played, seed):
    rng = random.Random(seed)
    data = bytearray(played["clean"])
    for _ in range(20):
        at = rng.randrange(PAGE, len(data))
        data[at] ^= 1 << rng.randrange(8)
    _check(_fresh(tmp_path, "flips"), {"": bytes(data)}, played["moves"])


def test_single_bit_flips_at_many_offsets(tmp_path, played):
    clean = played["clean"]
    rng = random.Random(46)
    found = 0
    offsets = sorted(rng.sample(range(PAGE, len(clean)), 40))
    for n, at in enumerate(offsets):
        data = bytearray(clean)
        data[at] ^= 1 << rng.randrange(8)
        found += _check(_fresh(tmp_path, f"flip{n}"), {"": bytes(data)}, played["moves"])
    assert found > 0  # the offsets do reach the game's rows


def test_two_hundred_flipped_bytes(tmp_path, played):
    rng = random.Random(200)
    data = bytearray(played["clean"])
    for at in rng.sample(range(PAGE, len(data)), 200):
        data[at] = rng.randrange(256)
    assert _check(_fresh(tmp_path, "bytes"), {"": bytes(data)}, played["moves"])


@pytest.mark.parametrize("fraction", [0.15, 0.3, 0.5, 0.7, 0.9, 0.99])
def test_a_database_cut_short(tmp_path, played, fraction):
    clean = played["clean"]
    cut = max(PAGE + 1, int(len(clean) * fraction))
    _check(_fresh(tmp_path, "cut"), {"": clean[:cut]}, played["moves"])


@pytest.mark.parametrize("seed", range(4))
def test_flips_in_a_crashed_journal_keep_both_files_as_they_were(tmp_path, played, seed):
    rng = random.Random(100 + seed)
    files = dict(played["crashed"])
    data = bytearray(files[""])
    for _ in range(20):
        at = rng.randrange(PAGE, len(data))
        data[at] ^= 1 << rng.randrange(8)
    files[""] = bytes(data)
    _check(_fresh(tmp_path, "crashed"), files, played["moves"])


def test_a_row_whose_content_is_damaged_is_named_and_left_out(tmp_path, played):
    """A flip inside a row's JSON is no damage SQLite sees: the row's checksum finds it."""
    folder = _fresh(tmp_path, "row")
    data = bytearray(played["clean"])
    needle = b'"board":"'
    at = data.find(needle, PAGE)  # a journaled board, as stored
    assert at > 0
    data[at + len(needle) + 3] ^= 0x01  # '-' (0x2d) becomes ',' (0x2c): no board string
    (folder / "journal.sqlite").write_bytes(bytes(data))
    service = _open(folder)
    text = " ".join(service.keeper.journal.recovery)
    service.keeper.journal.close()
    assert "1 damaged journal entries, left out (seq " in text
    assert [m.square for m in service.table.core.arbiter.moves] == played["moves"]  # one frame less
    clean = tmp_path / "clean.sqlite"
    clean.write_bytes(played["clean"])
    before = Journal(clean, check=False)
    after = Journal(folder / "journal.sqlite")
    assert after._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] == (
        before._db.execute("SELECT COUNT(*) FROM entries").fetchone()[0] - 1)
    before.close()
    after.close()


def test_an_old_journal_without_checksums_is_opened_and_given_them(tmp_path):
    """A journal written before row checksums existed opens as it was; new rows get one."""
    import sqlite3

    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript("""
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO meta VALUES ('schema', '1');
        CREATE TABLE games (id TEXT PRIMARY KEY, started REAL NOT NULL, finished REAL,
                            info TEXT NOT NULL);
        CREATE TABLE entries (seq INTEGER PRIMARY KEY AUTOINCREMENT, game TEXT NOT NULL,
                              step INTEGER NOT NULL, kind TEXT NOT NULL, t REAL NOT NULL,
                              wall REAL NOT NULL, data TEXT NOT NULL);
        INSERT INTO games VALUES ('g', 1.0, NULL, '{}');
        INSERT INTO entries(game, step, kind, t, wall, data)
            VALUES ('g', 1, 'input', 0.0, 1.0, '{"obs":{"press":"white"}}');
    """)
    db.close()
    j = Journal(path)
    assert not j.recovery
    j.commit_step("g", 1.0, [("note", {"n": 1})])
    assert [e.kind for e in j.entries("g")] == ["input", "note"]
    crcs = [r[0] for r in j._db.execute("SELECT crc FROM entries ORDER BY seq")]
    assert crcs[0] is None and isinstance(crcs[1], int)
    j.close()
    assert not Journal(path).recovery


def test_every_row_is_written_with_its_checksum(tmp_path):
    from controller.service.rows import entry_crc

    j = Journal(tmp_path / "j.sqlite")
    g = j.new_game({"settings": {}}, wall=1_000_000.0)
    j.commit_step(g.id, 0.25, [("input", {"obs": {"press": "white"}})], wall=1_000_001.0)
    (row,) = j._db.execute("SELECT game, step, kind, t, wall, data, crc FROM entries")
    assert row[6] == entry_crc(*row[:6])
    j.close()
    shutil.copyfile(tmp_path / "j.sqlite", tmp_path / "copy.sqlite")
    assert not Journal(tmp_path / "copy.sqlite").recovery


#: A start that is killed at one moment of its recovery (os._exit: no clean-up runs).
_KILLED_START = r"""
import os, sys
from pathlib import Path
from controller.service import journal, salvage
phase, folder = sys.argv[1], Path(sys.argv[2])
real_replace, real_fault = os.replace, salvage.entry_fault
seen = {"rows": 0, "replace": 0}

def fault(*row):
    seen["rows"] += 1
    if phase == "salvaging" and seen["rows"] == 40:
        os._exit(9)
    return real_fault(*row)

def replace(src, dst):
    seen["replace"] += 1
    if phase == "moving" and seen["replace"] == 2:
        os._exit(9)  # the damaged file is aside, its -wal not yet
    if phase == "swapping" and str(src).endswith(".recovering"):
        os._exit(9)  # everything aside, the recovered journal not yet in place
    return real_replace(src, dst)

def moved(*args):
    if phase == "before_move":
        os._exit(9)
    return salvage.move_aside(*args)

def synced(folder_):
    if phase == "swapped":
        os._exit(9)

salvage.entry_fault = fault
os.replace = replace
journal.move_aside = moved
journal.sync_dir = synced
journal.Journal(folder / "journal.sqlite")
os._exit(0)
"""


@pytest.mark.parametrize("phase", ["salvaging", "before_move", "moving", "swapping",
                                   "swapped"])
def test_a_recovery_killed_at_any_moment_is_completed_by_the_next_start(
        tmp_path, played, phase):
    import subprocess
    import sys

    files = dict(played["crashed"])
    data = bytearray(files[""])
    needle = b'"board":"'
    at = data.find(needle, PAGE)
    data[at + len(needle) + 3] ^= 0x01  # one journaled board no longer a board
    files[""] = bytes(data)
    reference = _fresh(tmp_path, "reference")  # the same damage, recovered unkilled
    for suffix, content in files.items():
        Path(f"{reference / 'journal.sqlite'}{suffix}").write_bytes(content)
    unkilled = _open(reference)
    want = [m.square for m in unkilled.table.core.arbiter.moves]
    unkilled.keeper.journal.close()
    assert unkilled.keeper.journal.recovery and len(want) >= MOVES - 2

    folder = _fresh(tmp_path, "killed")
    for suffix, content in files.items():
        Path(f"{folder / 'journal.sqlite'}{suffix}").write_bytes(content)
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run([sys.executable, "-c", _KILLED_START, phase, str(folder)],
                          cwd=root, capture_output=True, text=True, timeout=60)
    assert done.returncode == 9, done.stderr  # killed where it was meant to be
    service = _open(folder)
    assert service.keeper.journal.recovery and "was damaged" in service.keeper.journal.recovery[-1]
    assert [m.square for m in service.table.core.arbiter.moves] == want
    service.keeper.journal.close()
    kept = [k for k in folder.glob("journal.sqlite.damaged-*")
            if not k.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1
    for suffix, content in files.items():
        assert _sha(Path(f"{kept[0]}{suffix}").read_bytes()) == _sha(content), suffix
    assert not list(folder.glob("*.recovering*"))
    again = _open(folder)
    assert not again.keeper.journal.recovery
    again.keeper.journal.close()


def test_a_row_whose_text_is_no_longer_utf8_is_named_and_left_out(tmp_path, played):
    """SQLite refuses to read such a row as text at all: it must cost that row only."""
    folder = _fresh(tmp_path, "utf8")
    data = bytearray(played["clean"])
    needle = b'"board":"'
    at = data.find(needle, PAGE)
    data[at + len(needle) + 5] = 0xFF  # never valid in UTF-8
    (folder / "journal.sqlite").write_bytes(bytes(data))
    service = _open(folder)
    text = " ".join(service.keeper.journal.recovery)
    service.keeper.journal.close()
    assert "1 damaged journal entries, left out (seq " in text
    assert [m.square for m in service.table.core.arbiter.moves] == played["moves"]


def test_kaeshi_run_on_a_journal_with_two_hundred_flipped_bytes_starts_every_time(
        tmp_path, played):
    """End to end: the first start says what it recovered; no start ever fails."""
    import subprocess
    import sys

    from controller.observation import Observation
    from controller.position import Position

    rng = random.Random(4600)
    data = bytearray(played["clean"])
    for at in rng.sample(range(PAGE, len(data)), 200):
        data[at] = rng.randrange(256)
    folder = _fresh(tmp_path, "e2e")
    (folder / "journal.sqlite").write_bytes(bytes(data))
    log = folder / "rest.jsonl"
    log.write_text(Observation(0.0, board=Position.start().board_string()).to_json() + "\n")
    cfg = folder / "k.toml"
    cfg.write_text(f'[source]\nkind = "sim"\nlog = "{log}"\n'
                   f'[journal]\npath = "{folder / "journal.sqlite"}"\n'
                   f'[games]\nfolder = "{folder / "games"}"\n[web]\nenabled = false\n')
    root = Path(__file__).resolve().parents[2]
    outputs = []
    for _ in range(3):
        done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config",
                               str(cfg)], cwd=root, capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        assert "Traceback" not in done.stderr
        outputs.append(done.stderr)
    assert "was damaged" in outputs[0] and "recovered" in outputs[0]
    assert "kept as" in outputs[0]
    assert not any("was damaged" in err for err in outputs[1:])
    kept = [k for k in folder.glob("journal.sqlite.damaged-*")
            if not k.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1 and kept[0].read_bytes() == bytes(data)
