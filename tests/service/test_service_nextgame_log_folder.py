"""``kaeshi run`` replaying a day: a folder of observation logs, one game each, in a row.

Three real WTHOR games as logs in one folder: the service plays them one after the
other (each its own journaled game, record and moves), resumes the right log after
a stop in the middle of the second, and refuses to replay the day once it is done.
With ``hub.wait_for_pairing`` each log waits for the hub's next game and is played
with that order's players and time.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from service_scripts import scripted_log

from controller.errors import KaeshiError
from controller.observation import write_observations
from controller.records import load_games
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.journal import Journal
from controller.service.lifecycle import ReplayDone


@pytest.fixture(scope="module")
def day(data_dir):
    return load_games(data_dir / "games" / "wthor" / "WTH_2001.wtb")[:3]


def _folder(tmp: Path, games: list) -> Path:
    folder = tmp / "logs"
    folder.mkdir()
    for i, game in enumerate(games, 1):
        with open(folder / f"round-{i}.jsonl", "w") as f:
            write_observations(scripted_log(game), f)
    (folder / "notes.txt").write_text("not a log\n")  # other files are left alone
    return folder


def _config(tmp: Path, **extra: Any):
    values = {
        "game.mode": "home", "source.kind": "sim", "source.speed": 400.0,
        "journal.path": str(tmp / "journal.sqlite"), "games.folder": str(tmp / "games"),
        "web.enabled": False, "leds.driver": "none", "clock.resume": "continue",
    }
    values.update(extra)
    return defaults().replace(**values)


def _played(journal: Journal) -> list[tuple[str, list[str]]]:
    """(log file name, squares played) of every journaled game, in order."""
    out = []
    for g in journal.games():
        moves = [e.data["square"] for e in journal.entries(g.id, ("event",))
                 if e.data["event"] == "move"]
        out.append((Path(g.info["log"]["path"]).name, moves))
    return out


def test_a_folder_of_logs_is_played_game_after_game(tmp_path, day) -> None:
    folder = _folder(tmp_path, day)
    service = Service(_config(tmp_path, **{"source.log": str(folder)}))
    service.open()
    assert asyncio.run(service.run()) == 0
    journal = Journal(tmp_path / "journal.sqlite", writer=False)
    assert _played(journal) == [(f"round-{i}.jsonl", g.transcript_moves())
                                for i, g in enumerate(day, 1)]
    assert all(g.finished is not None for g in journal.games())
    assert len(list((tmp_path / "games").glob("*.ggf"))) == 3
    with pytest.raises(ReplayDone):  # the whole day was replayed
        Service(_config(tmp_path, **{"source.log": str(folder)})).open()


def test_a_stop_mid_day_resumes_the_game_in_play_from_its_own_log(tmp_path, day) -> None:
    folder = _folder(tmp_path, day[:2])
    # slow enough that the replay keeps its pace and waits between readings, so the
    # stop is heard inside game two (a replay behind its pace does not wait)
    cfg = _config(tmp_path, **{"source.log": str(folder), "source.speed": 60.0})
    first = Service(cfg, exit_when_done=False)
    first.open()

    def stop_in_game_two(events: list) -> None:
        games = first.keeper.journal.games() if first.keeper.journal is not None else []
        core = first.table.core
        if len(games) == 2 and core is not None and len(core.arbiter.moves) >= 10:
            first.stop()

    first.on_step = stop_in_game_two
    asyncio.run(first.run())
    journal = Journal(tmp_path / "journal.sqlite", writer=False)
    games = journal.games()
    assert len(games) == 2 and games[1].finished is None  # stopped inside game two
    again = Service(cfg)
    again.open()
    assert again.table.game is not None and again.table.game.id == games[1].id
    asyncio.run(again.run())
    assert _played(Journal(tmp_path / "journal.sqlite", writer=False)) == [
        ("round-1.jsonl", day[0].transcript_moves()),
        ("round-2.jsonl", day[1].transcript_moves())]


def test_a_folder_without_logs_or_with_a_bad_one_is_named(tmp_path, day) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(KaeshiError, match="holds no"):
        Service(_config(tmp_path, **{"source.log": str(empty)})).open()
    folder = _folder(tmp_path, day[:1])
    (folder / "round-2.jsonl").write_text('{"t": 0.0, "board": "short"}\n')
    with pytest.raises(KaeshiError, match="round-2.jsonl"):
        Service(_config(tmp_path, **{"source.log": str(folder)})).open()


class _Hall:
    """The table's hub link as far as the service sees it (no broker needed here)."""

    def __init__(self) -> None:
        self.rounds: dict[str, int] = {}

    def changed(self) -> None:
        pass

    def stop(self) -> None:
        pass


def test_with_wait_for_pairing_each_log_waits_for_the_hubs_next_game(tmp_path, day) -> None:
    folder = _folder(tmp_path, day[:2])
    cfg = _config(tmp_path, **{"source.log": str(folder), "hub.wait_for_pairing": True,
                               "game.mode": "tournament"})
    service = Service(cfg, exit_when_done=False)
    service.open()
    service.outputs.hub = _Hall()  # type: ignore[assignment]
    seen: list[tuple[str, int]] = []  # (what, moves journaled) while a log was held

    def moves() -> int:
        assert service.keeper.journal is not None
        return sum(1 for g in service.keeper.journal.games()
                   for e in service.keeper.journal.entries(g.id, ("event",))
                   if e.data["event"] == "move")

    async def hub_side() -> None:
        for black, white in (("Ann", "Bo"), ("Cy", "Di")):
            while service.next_games.held_log is None:
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)  # held: nothing is replayed meanwhile
            seen.append((service.next_games.held_log.name, moves()))
            service.lifecycle.order({"black": black, "white": white, "main": 900.0})
            assert service.next_games.play_held_log()
        while service.table.core is None or not service.table.core.game_over:
            await asyncio.sleep(0.01)
        service.stop()

    async def both() -> None:
        driver = asyncio.create_task(hub_side())
        await service.run()
        await driver

    asyncio.run(asyncio.wait_for(both(), 60))
    assert seen == [("round-1.jsonl", 0), ("round-2.jsonl", len(day[0].transcript_moves()))]
    journal = Journal(tmp_path / "journal.sqlite", writer=False)
    played = [(g.info["settings"]["black"], g.info["settings"]["white"],
               g.info["settings"]["main"], moves) for g, (_, moves)
              in zip(journal.games(), _played(journal), strict=True) if moves]
    assert played == [("Ann", "Bo", 900.0, day[0].transcript_moves()),
                      ("Cy", "Di", 900.0, day[1].transcript_moves())]
