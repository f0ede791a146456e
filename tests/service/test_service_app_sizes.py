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
    columns = lines.index("    " + " ".join("abcdefghij"[:size]))  # under the heading
    assert lines[columns + size].startswith(f"{size:>2}  ")


def test_a_log_of_another_size_than_the_game_stops_start_up(tmp_path):
    obs, _ = clock_log(6, 1)
    with pytest.raises(KaeshiError, match="board string has 36 squares, an 8x8 board has 64"):
        Service(_config(tmp_path, 8, _write(tmp_path, obs))).open()


@pytest.mark.parametrize(("text", "message"), [
    ("[game]\nsize = 7\n", "game.size must be one of 6, 8, 10; got 7"),
    ("[game]\nsize = 6\nhandicap = 2\n", "line 3: game.handicap needs the 8x8 board"),
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


@pytest.mark.parametrize("kind", ["camera", "browser"])
def test_a_camera_watches_a_game_of_any_size(kind):
    assert parse_config(f"[game]\nsize = 10\n[source]\nkind = \"{kind}\"\n")["game.size"] == 10


def _camera_config(tmp: Path, size: int, setup_file: Path, video: str = "0"):
    return defaults().replace(**{
        "game.mode": "home", "game.size": size, "source.kind": "camera",
        "source.camera": video, "source.camera_setup": str(setup_file),
        "source.lost_after": 30.0, "journal.path": str(tmp / "journal.sqlite"),
        "games.folder": str(tmp / "games"), "web.enabled": False, "leds.driver": "web"})


@pytest.mark.parametrize(("made", "game"), [(8, 6), (10, 8), (6, 10)])
def test_a_camera_set_up_made_on_another_board_than_the_game_stops_start_up(tmp_path, made,
                                                                            game):
    """Every square would be misnamed: the service refuses to open, naming both sizes,
    the option that says the game's and both ways out."""
    import numpy as np

    from controller.boardsize import a_label
    from controller.vision.calibration_file import CameraCalibration, save_calibration
    from controller.vision.setup import CameraSetup

    path = tmp_path / "camera.json"
    setup = CameraSetup((400, 300), np.array([[30.0, 0, 20], [0, 25, 15], [0, 0, 1]]),
                        size=made)
    save_calibration(path, CameraCalibration(setup, start_position_ok=True))
    with pytest.raises(KaeshiError) as refused:
        Service(_camera_config(tmp_path, game, path)).open()
    text = str(refused.value)
    assert f"{path} was made on {a_label(made)} board, not {a_label(game)} one" in text
    assert f"game.size = {game}" in text and f"set game.size = {made}" in text
    assert f"kaeshi calibrate camera --size {game}" in text
    assert not (tmp_path / "journal.sqlite").exists()  # refused before anything
    # the same file for a game of its own size opens
    Service(_camera_config(tmp_path, made, path)).open()


@pytest.mark.parametrize("size", [6, 10])
def test_the_service_reads_a_game_of_its_size_from_a_camera_video(tmp_path, monkeypatch, size):
    """A short 6x6 or 10x10 game filmed (hands over the discs being turned included),
    read by the service's camera source on a set-up of that size, each press right
    after the frames its player's hand left: the moves are the game's."""
    from service_scripts import scripted_log

    from controller.records.model import GameRecord
    from controller.service.sources import CameraSource
    from controller.synth.picture import Scene, render_observations, write_video
    from controller.vision.setup import CameraSetup

    start = Position.start(size)
    pos, opening = start, []
    for _ in range(3):
        sq = pos.legal_squares()[-1]
        opening.append(sq)
        pos = pos.play(sq)
    log = scripted_log(GameRecord.from_squares(opening, start), repeats=3)
    boards = [o for o in log if o.board is not None]
    presses: dict[int, list] = {}
    frame = 0
    for o in log:
        if o.board is not None:
            frame += 1
        else:
            presses.setdefault(frame, []).append(o.press)
    scene = Scene(width=400, height=300)
    renders = [r for _, r in render_observations(boards, scene, seed=3)]
    assert any(r.occluded.any() for r in renders)  # hands over the board
    video = tmp_path / "game.avi"
    write_video(renders, video, fps=10)
    setup_file = tmp_path / "camera.json"
    setup = CameraSetup((scene.width, scene.height), renders[0].homography, size=size)
    setup_file.write_text(json.dumps(setup.to_dict()))
    service = Service(_camera_config(tmp_path, size, setup_file, str(video)),
                      exit_when_done=True)
    service.open()
    real_open = CameraSource._open
    loops: list[asyncio.AbstractEventLoop] = []

    def open_with_clock(self):
        source, frames = real_open(self)

        def with_presses():
            for k, f in enumerate(frames):
                for color in presses.get(k, []):
                    loops[0].call_soon_threadsafe(service.intake.press, color)
                yield f
            for color in presses.get(len(boards), []):
                loops[0].call_soon_threadsafe(service.intake.press, color)

        return source, with_presses()

    monkeypatch.setattr(CameraSource, "_open", open_with_clock)

    async def main():
        loops.append(asyncio.get_running_loop())
        return await asyncio.wait_for(service.run(), 60)

    assert asyncio.run(main()) == 0
    assert [m.square for m in service.table.core.arbiter.moves] == opening
    assert service.table.core.arbiter.position.board_string() == pos.board_string()
    assert not [e for e in service.table.events if e["event"] == "irregularity"]


def test_a_set_up_replaced_by_one_of_another_board_is_refused_by_the_running_source(tmp_path):
    """The file is read again whenever the camera's source opens: one of another board
    written there while the service runs is refused by the camera's and the phone's
    source alike (the link goes down with the message), never read as the game's."""
    import numpy as np

    from controller.browser.source import BrowserSource
    from controller.browser.view import unseen
    from controller.service.sources import CameraSource
    from controller.vision.calibration_file import CalibrationError
    from controller.vision.setup import CameraSetup

    path = tmp_path / "camera.json"
    homography = np.array([[30.0, 0, 20], [0, 25, 15], [0, 0, 1]])
    path.write_text(json.dumps(CameraSetup((400, 300), homography, size=8).to_dict()))
    image = np.zeros((300, 400, 3), np.uint8)
    watchers = (CameraSource("0", 10, str(path), size=6)._watcher,
                BrowserSource(10, str(path), game_size=6).view._watcher)
    for watcher in watchers:
        with pytest.raises(CalibrationError, match="made on an 8x8 board, not a 6x6 one"):
            watcher(image)
    path.write_text(json.dumps(CameraSetup((400, 300), homography, size=6).to_dict()))
    for watcher in (CameraSource("0", 10, str(path), size=6)._watcher,
                    BrowserSource(10, str(path), game_size=6).view._watcher):
        assert watcher(image).reader.n == 6
    assert unseen(6) == "?" * 36 and unseen(10) == "?" * 100
