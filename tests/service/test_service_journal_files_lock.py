"""One journal, one writer: a second service on the same journal is refused, naming the
process that holds it, before it reads, checks or moves anything."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from service_scripts import scripted_log
from test_service_lifecycle_crash import _entries

from controller.observation import write_observations
from controller.records import GameRecord, load_games
from controller.service.demo import load_one_game
from controller.service.journal import Journal, JournalError
from controller.service.journal_files import lock_path

ROOT = Path(__file__).resolve().parents[2]


def test_a_second_writer_in_the_same_process_is_refused_and_the_lock_is_released(tmp_path):
    path = tmp_path / "j.sqlite"
    first = Journal(path)
    game = first.new_game({}, wall=1_000_000.0)
    with pytest.raises(JournalError, match=rf"in use by process {os.getpid()}\b"):
        Journal(path)
    reader = Journal(path, writer=False)  # reading beside the writer stays possible
    assert reader.unfinished_game().id == game.id
    reader.close()
    first.close()
    again = Journal(path)  # closed: the next writer may open it
    assert again.unfinished_game().id == game.id
    again.close()


def _config(tmp: Path, name: str, log: Path, journal: Path, speed: float) -> Path:
    cfg = tmp / f"{name}.toml"
    cfg.write_text(f"""
[game]
mode = "home"
[clock]
resume = "continue"
[source]
kind = "sim"
log = "{log}"
speed = {speed}
[journal]
path = "{journal}"
[games]
folder = "{tmp / ('games-' + name)}"
[web]
enabled = false
[log]
level = "warning"
""")
    return cfg


def _log(path: Path, game: GameRecord) -> Path:
    with open(path, "w") as f:
        write_observations(scripted_log(game), f)
    return path


def _run(config: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
        cwd=ROOT, capture_output=True, text=True, timeout=60)


@contextmanager
def _first_service(config: Path, journal: Path) -> Iterator[subprocess.Popen[str]]:
    """``kaeshi run`` on ``config``, holding ``journal`` and well into its game (20 journal
    entries) while the body tries a second service; then it is let finish its game, which
    must end cleanly. Killed if the body fails."""
    first = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while _entries(journal) < 20 and first.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        assert first.poll() is None, "the first service ended before the second could try"
        yield first
        _, err = first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 0, err


def _only_the_first_wrote(tmp: Path, game: GameRecord) -> GameRecord:
    """The refused second service left no game; the first wrote its game once, whole."""
    assert not (tmp / "games-second").exists()
    (written,) = [load_games(p)[0] for p in (tmp / "games-first").glob("*.json")]
    assert written.transcript_moves() == game.transcript_moves()  # each move once
    return written


@pytest.mark.parametrize("same_log", [True, False])
def test_two_services_on_one_journal_the_second_is_refused(tmp_path, data_dir, same_log):
    wthor = data_dir / "games" / "wthor" / "WTH_2001.wtb"
    game = load_one_game(wthor, 0)
    logs = [_log(tmp_path / f"log{n}.jsonl", g)
            for n, g in enumerate((game, game if same_log else load_one_game(wthor, 1)))]
    journal = tmp_path / "journal.sqlite"
    second_cfg = _config(tmp_path, "second", logs[1], journal, speed=15)
    first_cfg = _config(tmp_path, "first", logs[0], journal, speed=15)
    with _first_service(first_cfg, journal) as first:
        before = journal.stat().st_size
        second = _run(second_cfg)
        assert second.returncode == 1
        assert f"in use by process {first.pid}" in second.stderr
        assert str(lock_path(journal)) in second.stderr
        assert "Traceback" not in second.stderr
        assert journal.stat().st_size >= before  # not moved aside, not "repaired"
        assert not list(tmp_path.glob("journal.sqlite.damaged-*"))
    written = _only_the_first_wrote(tmp_path, game)
    assert written.result == game.result


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_another_name_of_the_same_journal_is_refused_in_process(tmp_path, link):
    path = tmp_path / "j.sqlite"
    first = Journal(path)
    first.new_game({}, wall=1_000_000.0)
    other = tmp_path / "elsewhere" / "other.sqlite"
    other.parent.mkdir()
    (other.symlink_to if link == "symlink" else other.hardlink_to)(path)
    with pytest.raises(JournalError, match="in use by"):
        Journal(other)
    assert not list(tmp_path.rglob("*.damaged-*")) and len(first.games()) == 1
    first.close()
    again = Journal(other)  # the first writer gone: the other name may write
    again.close()


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_a_second_kaeshi_run_on_a_linked_journal_path_is_refused(tmp_path, data_dir, link):
    wthor = data_dir / "games" / "wthor" / "WTH_2001.wtb"
    game = load_one_game(wthor, 0)
    log = _log(tmp_path / "log.jsonl", game)
    journal = tmp_path / "journal.sqlite"
    linked = tmp_path / "other" / "linked.sqlite"
    linked.parent.mkdir()
    with _first_service(_config(tmp_path, "first", log, journal, speed=15), journal):
        (linked.symlink_to if link == "symlink" else linked.hardlink_to)(journal)
        second = _run(_config(tmp_path, "second", log, linked, speed=15))
        assert second.returncode == 1, second.stderr
        assert "in use by" in second.stderr and "Traceback" not in second.stderr
        assert not list(tmp_path.rglob("*.damaged-*"))
    _only_the_first_wrote(tmp_path, game)
