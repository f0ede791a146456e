"""`kaeshi demo`: the real service on simulated players, leaving a record; it ends by
itself with no terminal, and keeps its page up until Ctrl-C from one."""

from __future__ import annotations

import os
import subprocess
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from controller.records import load_games
from controller.service.demo import DEMO_GAME, DEMO_SEED, build_demo, load_one_game

ROOT = Path(__file__).resolve().parents[2]


def test_demo_game_has_one_forgotten_flip_corrected_by_the_opponent(data_dir):
    wthor = data_dir / "games" / "wthor" / "WTH_2001.wtb"
    demo = build_demo(wthor, seconds=75)
    assert demo.seed == DEMO_SEED  # the pinned seed still gives the wanted story
    (inj,) = demo.simulation.injected
    assert list(inj.flags) == ["forgotten_flip"] and inj.fix == "opponent"
    duration = demo.simulation.observations[-1].t
    assert duration / demo.speed <= 80  # the replay fits the demo's two minutes
    assert demo.record.black and demo.record.white  # real names from WTHOR.JOU
    assert demo.record.transcript_moves() == load_one_game(wthor, DEMO_GAME).transcript_moves()


@pytest.mark.parametrize(
    ("board", "seconds", "shown"),
    [
        ("sim", "12", "board: the simulated sensor board"),
        ("log", "6", "board: the replayed observations"),
    ],
)
def test_kaeshi_demo_runs_and_leaves_the_record(tmp_path, data_dir, board, seconds, shown):
    env = {**os.environ, "KAESHI_SHARED": str(data_dir.parent)}
    out = tmp_path / "games"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.cli",
            "demo",
            "--out",
            str(out),
            "--seconds",
            seconds,
            "--board",
            board,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert shown in text
    # Only the injected fault is flagged: nothing lost between board, driver and arbiter.
    assert text.count("FLAG ") == 1
    assert "web page: http://127.0.0.1:" in text
    assert "the demo ends with the game" in text  # no terminal: it ends by itself
    assert "FLAG forgotten flip by black: f4" in text
    assert "corrected forgotten flip: f4" in text
    assert "game over" in text and "Traceback" not in proc.stderr
    (json_file,) = out.glob("*.json")
    rec = load_games(json_file)[0]
    assert rec.black == "Vinar Matt" and rec.result is not None
    assert any("did not turn the disc on f4" in m.comment and "put right" in m.comment
               for m in rec.moves)
    assert (out / "demo-observations.jsonl").is_file()
    # reviewed by Kaeshi's own engine: no third-party engine needed
    assert "review (score after each move" in text and "engine: Kaeshi2" in text
    assert len(list((out / "reviews").glob("*.ggf"))) == 1


@contextmanager
def _demo_in_a_terminal(tmp_path: Path, data_dir: Path, *extra: str):
    """``kaeshi demo`` with a pseudo-terminal as its standard input and output, as
    ``make demo`` run by a person; gives the process and a function that waits for a
    text on the terminal (returning all shown so far). On leaving, a process still up is
    killed and the terminal closed, whatever the test found."""
    import pty
    import threading
    import time

    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["KAESHI_SHARED"] = str(data_dir.parent)
    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "demo", "--out", str(tmp_path / "games"),
         "--seconds", "6", "--board", "log", "--no-review", *extra],
        cwd=tmp_path, env=env, stdin=slave, stdout=slave, stderr=subprocess.PIPE, text=True)
    os.close(slave)
    shown: list[str] = []

    def drain() -> None:  # the live view redraws often: keep the terminal read
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:
                return
            if not chunk:
                return
            shown.append(chunk.decode("utf-8", "replace"))

    threading.Thread(target=drain, daemon=True).start()

    def wait_for(text: str, timeout: float = 60.0) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if text in "".join(shown):
                return "".join(shown)
            if proc.poll() is not None:
                break
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not shown; the terminal shows:\n{''.join(shown)[-2000:]}")

    try:
        yield proc, wait_for
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


def test_from_a_terminal_the_demo_page_stays_up_until_ctrl_c(tmp_path, data_dir):
    import re
    import signal
    import time
    import urllib.request

    with _demo_in_a_terminal(tmp_path, data_dir) as (proc, wait_for):
        text = wait_for("press Ctrl-C to stop")
        url = re.search(r"web page: (http://127\.0\.0\.1:\d+)", text)
        assert url is not None
        wait_for("the replay has ended; the page stays up at ")
        wait_for("game over")  # drawn as the last readings are judged
        time.sleep(1.0)
        assert proc.poll() is None  # still up after the game: nobody pressed Ctrl-C
        with urllib.request.urlopen(url.group(1), timeout=10) as page:
            assert page.status == 200
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0, proc.stderr.read()
        assert "Traceback" not in proc.stderr.read()
        assert list((tmp_path / "games").glob("*.json"))


def test_with_a_duration_the_demo_ends_by_itself_even_from_a_terminal(tmp_path, data_dir):
    with _demo_in_a_terminal(tmp_path, data_dir, "--duration", "0.5") as (proc, wait_for):
        wait_for("the demo ends 0.5 s after the game")
        assert proc.wait(timeout=60) == 0, proc.stderr.read()
        assert list((tmp_path / "games").glob("*.json"))


def test_demo_and_simulate_number_the_games_of_a_file_alike(data_dir, capsys, tmp_path):
    from controller import cli
    from controller.commands.demo import game_index
    from controller.commands.simulate import pick_game

    wthor = data_dir / "games" / "wthor" / "WTH_2001.wtb"
    for number in (1, 3, 10):
        demo_game = load_one_game(wthor, game_index(number))
        assert demo_game.transcript_moves() == pick_game(str(wthor), number).transcript_moves()
    assert game_index(DEMO_GAME + 1) == DEMO_GAME  # the default, said as game 3
    out = ["--out", str(tmp_path / "games")]
    assert cli.main(["demo", "--game", "0", "--wthor", str(wthor), *out]) == 1
    assert "--game counts from 1" in capsys.readouterr().err
    assert cli.main(["demo", "--game", "9999", "--wthor", str(wthor), *out]) == 1
    assert "no game 9999: the file holds" in capsys.readouterr().err
