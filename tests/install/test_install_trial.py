"""The guide's trial run (docs/install-pi.md, step 3) with its own files: a simulated
game from deploy/trial-game.txt through `kaeshi run` with deploy/kaeshi.trial.toml."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from controller.records import load_games

ROOT = Path(__file__).resolve().parents[2]
TRIAL_FOLDER = "/var/lib/kaeshi/trial"


def _kaeshi(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "controller.cli", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_the_trial_game_plays_through_the_service_and_is_recorded(tmp_path: Path) -> None:
    config = (ROOT / "deploy" / "kaeshi.trial.toml").read_text(encoding="utf-8")
    assert config.count(TRIAL_FOLDER) == 3  # log, journal, games: all in the trial folder
    (tmp_path / "kaeshi.trial.toml").write_text(config.replace(TRIAL_FOLDER, str(tmp_path)),
                                               encoding="utf-8")
    log = tmp_path / "observations.jsonl"
    made = _kaeshi("simulate", str(ROOT / "deploy" / "trial-game.txt"), "--out", str(log),
                   cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    run = _kaeshi("run", "--config", str(tmp_path / "kaeshi.trial.toml"), cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "game over: 64-0, winner black" in run.stderr  # what the guide says to expect
    (record,) = load_games(next((tmp_path / "games").glob("*.json")))
    assert record.black == "Trial Black" and len(record.moves) == 9
    assert not [m for m in record.moves if m.comment]  # a clean game: nothing flagged
