"""The running service's snapshot carries the game's irregularity history, the disc
graph and the result, and a restart rebuilds the history from the journal."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from service_scripts import scripted_log

from controller.service.app import Service
from controller.service.config import defaults
from controller.service.demo import load_one_game
from controller.service.sources import LogSource


@pytest.fixture(scope="module")
def real_game(data_dir: Path):
    return load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)


def config(tmp: Path, mode: str):
    return defaults().replace(**{
        "game.mode": mode, "game.black": "B. Player", "game.white": "W. Player",
        "source.kind": "sim", "source.speed": 400.0,
        "journal.path": str(tmp / "journal.sqlite"), "games.folder": str(tmp / "games"),
        "web.enabled": False,
    })


def test_the_snapshot_keeps_the_history_to_the_end(tmp_path: Path, real_game) -> None:
    service = Service(config(tmp_path, "tournament"),
                      source=LogSource(scripted_log(real_game, forgotten_at=9), speed=400.0))
    service.open()
    assert asyncio.run(service.run()) == 0
    arbiter = service.facade.snapshot("arbiter")
    (entry,) = arbiter["history"]
    assert (entry["n"], entry["player"], entry["kind"], entry["status"]) == (
        9, "black", "forgotten_flip", "corrected")
    assert entry["text"].startswith("Black did not turn the disc on")
    assert arbiter["result"]["black"] == real_game.result[0]
    assert arbiter["result"]["winner"] == "white"
    assert len(arbiter["graph"]) == len(arbiter["moves"]) + 1
    assert arbiter["graph"][0] == [2, 2] and arbiter["graph"][-1] == list(real_game.result)
    # the game is over: the players see the history and the result too (rule 21 ends)
    player = service.facade.snapshot("player")
    from controller.web.facade import for_view

    shown = for_view(player, "player")
    assert shown["history"] == arbiter["history"] and shown["result"] == arbiter["result"]
    assert "/" not in service.table.message.split(":")[1]  # no folder of the service on the page


def test_a_restart_rebuilds_the_history(tmp_path: Path, real_game) -> None:
    log = scripted_log(real_game, forgotten_at=9)
    cut = next(i for i, o in enumerate(log) if o.t > 14.0)  # a few moves after the flag
    first = Service(config(tmp_path, "tournament"), source=LogSource(log[:cut], speed=400.0),
                    exit_when_done=False)
    first.open()

    async def run_a_while() -> None:
        task = asyncio.create_task(first.run())
        await asyncio.sleep(0.5)
        first.stop()
        await task

    asyncio.run(run_a_while())
    before = first.facade.snapshot("arbiter")["history"]
    assert [e["status"] for e in before] == ["corrected"]
    again = Service(config(tmp_path, "tournament"), source=LogSource(log, speed=400.0))
    again.open()  # resumes the unfinished game from the journal
    assert again.facade.snapshot("arbiter")["history"] == before
