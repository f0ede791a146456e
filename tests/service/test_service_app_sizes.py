"""A 6x6 and a 10x10 game through the service: journaled, shown and recorded with their size."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path

import pytest

from controller.bitboard import bit_indices
from controller.errors import KaeshiError
from controller.observation import Observation, write_observations
from controller.position import Position
from controller.records import load_games
from controller.service.app import Service
from controller.service.config import ConfigError, defaults, parse_config
from controller.service.display import render
from controller.service.journal import Journal
from controller.squares import Color, square_name


def clock_log(size: int, seed: int) -> tuple[list[Observation], list[str]]:
    """A whole random game on a ``size`` board, each move shown twice and pressed."""
    rng = random.Random(seed)
    pos, t, obs, played = Position.start(size), 0.0, [], []

    def frame(board: str) -> None:
        nonlocal t
        for _ in range(2):
            obs.append(Observation(round(t, 3), board=board))
            t += 0.1

    frame(pos.board_string())
    obs.append(Observation(round(t, 3), press=Color.WHITE))
    while not pos.is_game_over():
        t += 0.5
        me = pos.to_move
        if not pos.legal_moves():
            pos = pos.pass_turn()
        else:
            sq = rng.choice(bit_indices(pos.legal_moves()))
            played.append(square_name(sq, size))
            pos = pos.play(sq)
            frame(pos.board_string())
        obs.append(Observation(round(t, 3), press=me))
        t += 0.1
    return obs, played


def _config(tmp: Path, size: int, log: Path):
    return defaults().replace(**{
        "game.mode": "home", "game.size": size, "source.kind": "sim", "source.log": str(log),
        "source.speed": 500.0, "journal.path": str(tmp / "journal.sqlite"),
        "games.folder": str(tmp / "games"), "web.enabled": False, "leds.driver": "web",
        "clock.resume": "continue"})


def _write(tmp: Path, obs: list[Observation]) -> Path:
    log = tmp / "game.jsonl"
    with open(log, "w") as f:
        write_observations(obs, f)
    return log


@pytest.mark.parametrize("size", [6, 10])
def test_a_whole_game_of_another_size_is_played_journaled_and_recorded(tmp_path, size):
    obs, played = clock_log(size, size)
    service = Service(_config(tmp_path, size, _write(tmp_path, obs)))
    service.open()
    assert asyncio.run(service.run()) == 0
    journal = Journal(tmp_path / "journal.sqlite", writer=False)
    (game,) = journal.games()
    assert game.info["settings"]["size"] == size
    events = [e.data for e in journal.entries(game.id, ("event",))]
    assert [e["square"] for e in events if e["event"] == "move"] == played
    assert not [e for e in events if e["event"] == "irregularity"]
    (ggf,) = (tmp_path / "games").glob("*.ggf")
    text = ggf.read_text()
    assert f"TY[{size}]" in text and f"BO[{size} " in text
    (rec,) = load_games(ggf)
    assert rec.start == Position.start(size) and rec.transcript_moves() == played
    (js,) = (tmp_path / "games").glob("*.json")
    assert json.loads(js.read_text())["games"][0]["start"]["size"] == size
    (txt,) = (tmp_path / "games").glob("*.txt")
    assert f"\n{size}x{size} " in txt.read_text()
    snap = service.facade.snapshot("arbiter")
    assert snap["size"] == size and len(snap["board"]) == size * size
    lines = render(snap, colour=False)
    assert lines[1].split() == list("abcdefghij"[:size])
    assert lines[1 + size].startswith(f"{size:>2}  ")


def test_a_log_of_another_size_than_the_game_stops_start_up(tmp_path):
    obs, _ = clock_log(6, 1)
    with pytest.raises(KaeshiError, match="board string has 36 squares, an 8x8 board has 64"):
        Service(_config(tmp_path, 8, _write(tmp_path, obs))).open()


@pytest.mark.parametrize(("text", "message"), [
    ("[game]\nsize = 7\n", "game.size must be one of 6, 8, 10; got 7"),
    ("[game]\nsize = 6\nhandicap = 2\n", "line 3: game.handicap needs the 8x8 board"),
    ("[game]\nsize = 10\n[source]\nkind = \"camera\"\n", "the camera reads 8x8 boards only"),
    ("[game]\nsize = 10\n[source]\nkind = \"hall\"\n", "too few for game.size 10"),
])
def test_sizes_the_table_cannot_play_are_refused_at_start_up(text, message):
    with pytest.raises(ConfigError, match=message):
        parse_config(text)


def test_a_six_by_six_game_on_the_sensor_board_is_accepted():
    assert parse_config("[game]\nsize = 6\n[source]\nkind = \"hall\"\n")["game.size"] == 6


def test_a_strip_under_an_eight_by_eight_board_leaves_a_six_by_six_overlay_to_the_page(
        tmp_path, caplog):
    """The WS2812 strip covers an 8x8 board: a 6x6 game's overlay goes to the page only
    (no SPI is opened), and the service says so."""
    from controller.leds import WebLeds

    obs, _ = clock_log(6, 2)
    config = _config(tmp_path, 6, _write(tmp_path, obs)).replace(**{"leds.driver": "ws2812"})
    service = Service(config)
    service.open()
    with caplog.at_level("WARNING", logger="kaeshi.service"):
        assert asyncio.run(service.run()) == 0
    assert isinstance(service.outputs.leds, WebLeds)
    assert "covers an 8x8 board, the game is 6x6" in caplog.text
    snap = service.facade.snapshot("arbiter")
    assert snap["size"] == 6
