"""Crash resume: kill -9 the service at random moments; the game must come out whole.

The service runs as a real subprocess on a replayed observation log, with its
journal in a temporary folder. It is killed with SIGKILL several times at seeded
random moments and restarted each time; the record it finally writes must equal
what the pure arbiter makes of the same log — no move lost, none doubled, same
position — and every clock state it journaled must be reproduced by replay.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from service_scripts import scripted_log

from controller.arbiter import Arbiter, ArbiterConfig
from controller.observation import write_observations
from controller.records import load_games
from controller.service.core import GameCore, GameSettings
from controller.service.demo import load_one_game
from controller.service.journal import Journal

ROOT = Path(__file__).resolve().parents[2]


def _config(tmp: Path, log: Path, speed: float) -> Path:
    cfg = tmp / "kaeshi.toml"
    cfg.write_text(
        f"""
[game]
mode = "home"
black = "Black Player"
white = "White Player"
[clock]
resume = "continue"
[source]
kind = "sim"
log = "{log}"
speed = {speed}
[journal]
path = "{tmp / "journal.sqlite"}"
[games]
folder = "{tmp / "games"}"
[web]
enabled = false
[log]
level = "warning"
"""
    )
    return cfg


def _entries(path: Path) -> int:
    """Rows in the journal so far (read beside the running service, as WAL allows)."""
    if not path.exists():
        return 0
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)
    try:
        return db.execute("SELECT COUNT(*) FROM entries").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0
    finally:
        db.close()


def _kill_until_finished(cfg: Path, games_dir: Path, rng: random.Random, kill_times: int,
                         max_runs: int, pause: float) -> int:
    """Run ``kaeshi run`` until it writes the game, SIGKILLing the first ``kill_times``
    runs at a random moment once each has journaled readings of its own (mid-step,
    mid-move or between moves); returns the number of kills. No run may print a
    traceback, and the last must end cleanly."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    stderr = cfg.parent / "stderr.txt"
    journal = cfg.parent / "journal.sqlite"
    kills, runs = 0, 0
    while not list(games_dir.glob("*.json")):
        runs += 1
        assert runs <= max_runs, "the service never finished the game"
        with open(stderr, "a") as err:
            proc = subprocess.Popen(
                [sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=err,
            )
            if kills < kill_times:
                seen = _entries(journal)
                deadline = time.monotonic() + 30
                while (_entries(journal) <= seen + 2
                       and proc.poll() is None and time.monotonic() < deadline):
                    time.sleep(0.01)
                time.sleep(rng.uniform(0.0, pause))
                if proc.poll() is None:
                    proc.send_signal(signal.SIGKILL)
                    kills += 1
                proc.wait(timeout=30)
            else:
                assert proc.wait(timeout=60) == 0, stderr.read_text()
    assert "Traceback" not in stderr.read_text()
    return kills


def test_sigkill_at_random_moments_loses_and_doubles_nothing(tmp_path, data_dir):
    game = load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)
    log = scripted_log(game, forgotten_at=9)
    log_path = tmp_path / "log.jsonl"
    with open(log_path, "w") as f:
        write_observations(log, f)
    cfg = _config(tmp_path, log_path, speed=15)
    games_dir = tmp_path / "games"
    kills = _kill_until_finished(cfg, games_dir, random.Random(20011), kill_times=8,
                                 max_runs=40, pause=0.5)
    assert kills >= 6, "the service ended before it could be killed often enough"

    # The record the service wrote equals the pure arbiter's verdict on the same log.
    written = load_games(next(games_dir.glob("*.json")))[0]
    pure = Arbiter(ArbiterConfig(clock=True))
    for obs in log:
        pure.feed(obs)
    expected = pure.record()
    assert [(m.player, m.square) for m in written.moves] == [
        (m.player, m.square) for m in expected.moves
    ]
    assert written.transcript_moves() == game.transcript_moves()
    assert written.final_position() == expected.final_position()
    assert written.result == expected.result == game.result
    assert written.black == "Black Player"
    assert "Black did not turn the disc on" in written.moves[8].comment
    assert "It was pointed out and put right." in written.moves[8].comment

    # Each event was journaled exactly once, and replay reproduces every clock state.
    journal = Journal(tmp_path / "journal.sqlite")
    (row,) = journal.games()
    assert row.finished is not None
    moves = [e.data for e in journal.entries(row.id, ("event",)) if e.data["event"] == "move"]
    assert [m["square"] for m in moves] == game.transcript_moves()
    core = GameCore(GameSettings.from_dict(row.info["settings"]))
    checked = 0
    pending_t = None
    for entry in journal.entries(row.id):
        if entry.kind == "input":
            core.apply(entry.t, entry.data)
            pending_t = entry.t
        elif entry.kind == "clock":
            assert entry.t == pending_t
            assert core.clocks(entry.t) == entry.data
            checked += 1
    assert checked >= 60
    final = json.loads(json.dumps(core.clocks(core.t)))
    assert final["black"] < 1200 and final["white"] < 1200 and final["paused"]


def test_sigterm_stops_the_service_cleanly(tmp_path):
    cfg = tmp_path / "kaeshi.toml"
    cfg.write_text(
        f"""
[source]
kind = "hall"
device = "{tmp_path / 'no-board'}"
[journal]
path = "{tmp_path / 'journal.sqlite'}"
[games]
folder = "{tmp_path / 'games'}"
[web]
host = "127.0.0.1"
port = 0
"""
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 20
    journal = tmp_path / "journal.sqlite"
    while time.monotonic() < deadline and _entries(journal) < 2:  # up, board missed
        time.sleep(0.1)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0, err
    assert "sensor lost" in err and "no-board" in err and "Traceback" not in err


def test_sigkill_in_a_timed_game_ends_as_the_uninterrupted_game(tmp_path, data_dir):
    """A flag falls mid-game (10 s main, 1 s Fischer increment); kills before and
    after the fall must not change who lost, when, or any move."""
    game = load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)
    log = scripted_log(game, think=1.6)  # about 2 s a move: 1 s more than the increment
    presses = [i for i, o in enumerate(log) if o.press is not None]
    log = log[: presses[30] + 1]
    log_path = tmp_path / "log.jsonl"
    with open(log_path, "w") as f:
        write_observations(log, f)
    cfg = _config(tmp_path, log_path, speed=20)
    cfg.write_text(cfg.read_text().replace('[clock]\n', '[clock]\nmain = 10\nincrement = 1\n'))

    settings = GameSettings(mode="home", main=10.0, increment=1.0)
    pure = GameCore(settings)
    for obs in log:
        pure.apply(obs.t, {"obs": obs.to_dict()})
    pure.apply(log[-1].t, {"action": "finish"})
    assert pure.over_by_time is not None  # the script does run out of time
    expected = pure.record()

    games_dir = tmp_path / "games"
    kills = _kill_until_finished(cfg, games_dir, random.Random(7), kill_times=5,
                                 max_runs=30, pause=0.4)
    assert kills >= 3
    written = load_games(next(games_dir.glob("*.json")))[0]
    assert [(m.player, m.square) for m in written.moves] == [
        (m.player, m.square) for m in expected.moves]
    assert written.result == expected.result and written.result_note == "time"
    assert written.comments == expected.comments  # the same side lost on time
    journal = Journal(tmp_path / "journal.sqlite")
    (row,) = journal.games()
    events = [e.data for e in journal.entries(row.id, ("event",))]
    assert [m["square"] for m in events if m["event"] == "move"] == [
        m.square for m in expected.moves if m.square]  # each move journaled once
    (over,) = [e for e in journal.entries(row.id, ("event",)) if e.data["event"] == "game_over"]
    assert over.data["t"] == pytest.approx(pure.over_by_time.t, abs=1e-6)


def _journaled_events(path: Path) -> list[dict]:
    journal = Journal(path, writer=False)
    (row,) = journal.games()
    events = [e.data for e in journal.entries(row.id, ("event",))]
    journal.close()
    return events


def test_sigkill_in_an_untimed_game_keeps_every_time_to_the_millisecond(tmp_path, data_dir):
    """Without a clock a move is judged when the next one begins (or once its board has
    stood): killed and resumed, the game has the same events at the same instants, and
    the same move times in its record, as the game played through."""
    game = load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)
    log = [o for o in scripted_log(game, think=0.8) if o.press is None][:700]
    runs = {}
    for name, kill_times in (("through", 0), ("killed", 6)):
        folder = tmp_path / name
        folder.mkdir()
        log_path = folder / "log.jsonl"
        with open(log_path, "w") as f:
            write_observations(log, f)
        cfg = _config(folder, log_path, speed=15)
        cfg.write_text(cfg.read_text().replace('[clock]\n', '[clock]\nenabled = false\n'))
        kills = _kill_until_finished(cfg, folder / "games", random.Random(606), kill_times,
                                     max_runs=30, pause=0.5)
        assert kills == kill_times or name == "killed" and kills >= 4
        record = load_games(next((folder / "games").glob("*.json")))[0]
        runs[name] = (record, _journaled_events(folder / "journal.sqlite"))
    (through, through_events), (killed, killed_events) = runs["through"], runs["killed"]
    assert len([m for m in through.moves if m.square]) >= 20
    assert [(m.player, m.square, m.time) for m in killed.moves] == [
        (m.player, m.square, m.time) for m in through.moves]
    assert killed_events == through_events  # every event, at the same instant


def test_sigkill_during_recovery_never_leaves_a_partial_journal(tmp_path):
    """A journal big enough that its check and recovery take a while, with one damaged
    row: `kaeshi run` is killed at random moments while it starts, then let run. The
    journal it ends with holds every whole row, once; the damaged file is kept once,
    exactly as it was found."""
    import hashlib

    from controller.observation import Observation
    from controller.position import Position
    from controller.service.rows import entry_crc

    path = tmp_path / "journal.sqlite"
    journal = Journal(path)
    game = journal.new_game({"settings": {"mode": "home"}}, wall=1_000_000.0)
    rows = 60_000
    journal._db.execute("BEGIN")
    for i in range(rows):  # written in bulk: the rows matter here, not their syncing
        text = json.dumps({"n": i, "pad": "x" * 100}, separators=(",", ":"))
        journal._db.execute(
            "INSERT INTO entries(game, step, kind, t, wall, data, crc) VALUES (?,?,?,?,?,?,?)",
            (game.id, i + 1, "note", i * 0.01, 1_000_000.0, text,
             entry_crc(game.id, i + 1, "note", i * 0.01, 1_000_000.0, text)))
    journal._db.execute("COMMIT")
    journal.close()
    data = bytearray(path.read_bytes())
    at = data.find(b'"n":30000,')
    data[at + 5] ^= 0x01  # one row's content: only its checksum can tell
    path.write_bytes(bytes(data))
    original = hashlib.sha256(bytes(data)).hexdigest()

    log = tmp_path / "log.jsonl"
    log.write_text(Observation(0.0, board=Position.start().board_string()).to_json() + "\n")
    cfg = _config(tmp_path, log, speed=1)
    rng = random.Random(4601)
    kills = mid_recovery = 0
    for _ in range(12):
        proc = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.3, 2.5))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills += 1
        proc.wait(timeout=30)
        # the fresh journal was being built beside the damaged one when the kill came
        mid_recovery += bool(list(tmp_path.glob("journal.sqlite.recovering*")))
        if mid_recovery >= 2:
            break
    done = subprocess.run([sys.executable, "-m", "controller.cli", "run", "--config", str(cfg)],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    assert kills >= 2 and mid_recovery >= 1
    kept = [k for k in tmp_path.glob("journal.sqlite.damaged-*")
            if not k.name.endswith(("-wal", "-shm"))]
    assert len(kept) == 1
    assert hashlib.sha256(kept[0].read_bytes()).hexdigest() == original
    assert not list(tmp_path.glob("*.recovering*"))
    after = Journal(path, writer=False)
    notes = [e.data["n"] for e in after.entries(game.id, ("note",)) if "n" in e.data]
    after.close()
    assert notes == [n for n in range(rows) if n != 30000]  # every whole row, once
