"""`kaeshi demo`: the real service on simulated players, ending by itself with a record."""

from __future__ import annotations

import os
import subprocess
import sys
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
