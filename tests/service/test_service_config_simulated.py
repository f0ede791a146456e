"""The ready simulated table (deploy/kaeshi.simulated.toml): it loads through the
service's configuration reader, replays its log to game over, and keeps the game-over
page up until stopped (a person at a terminal presses Ctrl-C) or for ``linger`` seconds."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest

from controller.observation import read_log
from controller.service.app import Service
from controller.service.config import load_config
from controller.service.states import State

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "deploy" / "kaeshi.simulated.toml"


def _config(tmp_path: Path):
    """The shipped configuration, as loaded by ``kaeshi run --config``, with its
    relative paths taken from the project's folder (where docs/service.md runs it),
    its journal and records in ``tmp_path``, a free port and a fast replay."""
    config = load_config(CONFIG)
    return config.replace(**{
        "source.log": str(ROOT / config["source.log"]),
        "source.speed": 1000.0,
        "journal.path": str(tmp_path / "journal.sqlite"),
        "games.folder": str(tmp_path / "games"),
        "web.port": 0,
        "display.terminal": False,
    })


def test_the_simulated_table_config_is_a_replay_ready_to_run():
    config = load_config(CONFIG)
    assert config["source.kind"] == "sim" and config["web.host"] == "127.0.0.1"
    log = ROOT / config["source.log"]
    with log.open(encoding="utf-8") as f:
        header, observations = read_log(f)
        assert sum(1 for _ in observations) > 1000  # the whole game, every line valid
    assert header is None  # a simulator's log: judged at each press
    # the command the configuration's own comment and docs/service.md give
    command = ".venv/bin/kaeshi run --config deploy/kaeshi.simulated.toml"
    assert command in CONFIG.read_text(encoding="utf-8")
    assert command in (ROOT / "docs" / "service.md").read_text(encoding="utf-8")


async def _until(predicate, timeout: float = 30.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.02)


def test_a_finished_replay_keeps_its_game_over_page_up_until_stopped(tmp_path, caplog):
    service = Service(_config(tmp_path), linger=None)

    async def scenario() -> int:
        run = asyncio.create_task(service.run())
        await _until(lambda: any("the replay has ended" in r.getMessage()
                                 for r in caplog.records))
        assert service.table.states.state is State.GAME_OVER and service.lifecycle.finished_files
        await asyncio.sleep(0.5)
        assert not run.done()  # nobody stopped it: the page stays
        async with httpx.AsyncClient() as client:
            page = await client.get(service.outputs.url, timeout=10)
            snapshot = await client.get(f"{service.outputs.url}/api/state", timeout=10)
        assert page.status_code == 200
        assert snapshot.status_code == 200 and "game_over" in snapshot.text
        service.stop()  # what Ctrl-C does
        return await asyncio.wait_for(run, 30)

    with caplog.at_level("WARNING", logger="kaeshi.service"):
        assert asyncio.run(scenario()) == 0
    said = [r.getMessage() for r in caplog.records if "the replay has ended" in r.getMessage()]
    assert len(said) == 1 and re.search(r"page stays up at http://127\.0\.0\.1:\d+: press "
                                        "Ctrl-C to stop", said[0])


@pytest.mark.parametrize("linger", [0.0, 0.3])
def test_with_linger_the_replay_ends_by_itself(tmp_path, linger):
    service = Service(_config(tmp_path), linger=linger)

    async def scenario() -> int:
        return await asyncio.wait_for(service.run(), 30)

    assert asyncio.run(scenario()) == 0
    assert service.table.states.state is State.GAME_OVER and service.lifecycle.finished_files
