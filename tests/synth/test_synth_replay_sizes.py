"""6x6 and 10x10 boards through the camera: rendered, calibrated, watched, judged.

A random legal game on the board is filmed by the project's renderer in small
frames, written as a folder of images, read by ``kaeshi watch --size N`` with a
calibration made on the rendered start position, its presses merged in by time,
and judged by ``kaeshi arbitrate --size N``: the events must be the game's own, as
the arbiter gives them for the log the game was filmed from.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path

import pytest

from controller.arbiter import ArbiterConfig, arbitrate
from controller.boardsize import board_size
from controller.cli import main as cli_main
from controller.observation import LogHeader, read_log
from controller.position import Position
from controller.synth.gamevideo import GameVideo
from controller.synth.picture import render
from controller.synth.replay import calibrate_synthetic, default_scene, random_game
from controller.vision.calibration_file import (
    CameraCalibration,
    load_calibration,
    save_calibration,
)
from controller.vision.cv import write_image

FPS = 10.0
STEP = 0.6  # seconds from one move's board to its press, and from the press to the next


def _scene() -> object:
    return replace(default_scene(), width=320, height=240)  # small frames: a short test


def _content(lines: str) -> list[dict]:
    return [{k: v for k, v in json.loads(line).items() if k != "t"}
            for line in lines.splitlines() if line.strip()]


def _cli(*args: str) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cli_main(list(args)) == 0
    return out.getvalue()


@pytest.mark.parametrize("size,moves,seed", [(6, 14, 1), (10, 12, 2)])
def test_a_rendered_game_watched_and_judged_gives_the_games_events(tmp_path: Path, size: int,
                                                                  moves: int, seed: int):
    game = random_game(size, seed, moves, STEP)
    scene = _scene()
    setup = calibrate_synthetic(scene, seed=7, size=size)
    cal = tmp_path / "camera-calibration.json"
    save_calibration(cal, CameraCalibration(setup, source="rendered", start_position_ok=True))
    assert load_calibration(cal).setup.size == size  # the calibration records its size
    frames = tmp_path / "frames"
    frames.mkdir()
    video = GameVideo(game, scene, FPS, seed=7, tail=1.0)
    for k, frame in enumerate(video.frames()):
        write_image(frames / f"{k:05d}.png", frame.image)
    watched = tmp_path / "watched.jsonl"
    _cli("watch", "--images", str(frames), "--fps", str(FPS), "--calibration", str(cal),
         "--size", str(size), "--out", str(watched))

    with watched.open(encoding="utf-8") as f:
        header, lines = read_log(f, size)
        camera = list(lines)
    assert isinstance(header, LogHeader) and header.fps == FPS
    assert all(o.board is not None and len(o.board) == board_size(size).squares
               for o in camera)
    # the frame was taken before the press that follows it at the same moment
    merged = sorted(camera + [o for o in game if o.press is not None], key=lambda o: o.t)
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join([header.to_json(), *(o.to_json() for o in merged)]) + "\n",
                   encoding="utf-8")
    judged = _content(_cli("arbitrate", str(log), "--size", str(size)))

    truth = [{k: v for k, v in e.to_dict().items() if k != "t"}
             for e in arbitrate(game, ArbiterConfig(start=Position.start(size)))]
    assert sum(e["event"] == "move" for e in truth) >= moves - 1
    assert judged == truth


def test_a_calibration_of_another_size_is_refused_by_watch(tmp_path: Path, capsys):
    setup = calibrate_synthetic(_scene(), seed=7, size=6)
    cal = tmp_path / "six.json"
    save_calibration(cal, CameraCalibration(setup, start_position_ok=True))
    frames = tmp_path / "frames"
    frames.mkdir()
    write_image(frames / "0.png", render(Position.start(6).board_string(), _scene(), 7).image)
    out = tmp_path / "log.jsonl"
    assert cli_main(["watch", "--images", str(frames), "--calibration", str(cal),
                     "--size", "8", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "six.json was made on a 6x6 board, not an 8x8 one as --size 8 says" in err
    assert "kaeshi calibrate camera --size 8" in err and "give --size 6" in err
    assert not out.exists()  # refused before anything was written


@pytest.mark.parametrize("size", [6, 10])
def test_the_renderer_draws_the_boards_squares_where_its_truth_puts_them(size: int):
    board = Position.start(size).play(Position.start(size).legal_squares()[0]).board_string()
    r = render(board, _scene(), seed=3)
    assert r.board == board and len(r.occluded) == board_size(size).squares
    # the corners are the playing area's: a square's centre lies inside them
    for i in (0, size - 1, size * size - 1):
        x, y = r.square_centre(i)
        assert r.corners[:, 0].min() < x < r.corners[:, 0].max()
        assert r.corners[:, 1].min() < y < r.corners[:, 1].max()
    hidden = render(board[:-1] + "?", _scene(), seed=3)  # a hand over the last square
    assert hidden.occluded[-1] and hidden.board[-1] == "?"


@pytest.mark.parametrize("size", [6, 8, 10])
def test_clutter_lies_beside_the_board_of_its_size_never_on_it(size: int):
    """Trays, pens, piles of discs and cups are laid out round the board's own edges:
    never on the board or its frame, never further from it than beside an 8x8 board,
    and on every side over a few scenes."""
    import numpy as np

    from controller.synth.board import BOARD_THICKNESS
    from controller.synth.clutter import draw_clutter
    from controller.synth.scene import _camera
    from controller.synth.textures import FRAME_WIDTH

    sides: set[str] = set()
    for seed in range(12):
        scene = replace(default_scene(), tilt_deg=10.0, view_from_deg=30.0 * seed,
                        distance=30.0, clutter=True)
        canvas = np.zeros((scene.height, scene.width, 3), np.float32)
        boxes = draw_clutter(canvas, _camera(scene, size), np.random.default_rng(seed),
                             np.array([1.0, 0.0]), 40.0, BOARD_THICKNESS, scene.frame_style,
                             size)
        frame = FRAME_WIDTH[scene.frame_style]
        assert boxes
        for lo, hi in boxes:
            # the box keeps a quarter square round the object
            beyond = np.concatenate([-hi, lo - size]) + frame  # > 0: past that side's frame
            assert beyond.max() > 0, (lo, hi)  # off the board and its frame
            out = np.maximum(-(lo + 0.25), (hi - 0.25) - size).max() - frame
            assert out < 5.0, (lo, hi)  # beside it, as near as beside an 8x8 board
            sides |= {name for name, b in zip(("left", "top", "right", "bottom"), beyond,
                                              strict=True) if b > 0}
    assert sides == {"left", "top", "right", "bottom"}


@pytest.mark.parametrize("size", [6, 10])
def test_kaeshi_calibrate_camera_records_the_boards_size(tmp_path: Path, size: int):
    start = render(Position.start(size).board_string(), _scene(), seed=3)
    image = tmp_path / "start.png"
    write_image(image, start.image)
    cal = tmp_path / "camera-calibration.json"
    printed = _cli("calibrate", "camera", "--image", str(image), "--size", str(size),
                   "--a1", "top-left", "--out", str(cal))
    assert json.loads(cal.read_text(encoding="utf-8"))["board_size"] == size
    rows = printed.splitlines()[:size]
    assert "".join(rows) == Position.start(size).board_string()  # read from a1, row by row


@pytest.mark.parametrize("size", [6, 10])
def test_kaeshi_recognize_size_finds_and_reads_a_board_of_that_size(tmp_path: Path, size: int):
    """Without a calibration ``--size N`` looks for an N x N board: the photo of a 6x6
    or 10x10 position reads as N lines of N, its squares named on that board."""
    pos = Position.start(size)
    for _ in range(3):
        pos = pos.play(pos.legal_squares()[0])
    board = pos.board_string()
    image = tmp_path / "board.png"
    write_image(image, render(board, _scene(), seed=5).image)
    printed = _cli("recognize", "--size", str(size), str(image)).splitlines()
    assert printed[:size] == [board[r * size:(r + 1) * size] for r in range(size)]
    assert printed[size].startswith("confidence")
    data = json.loads(_cli("recognize", "--size", str(size), "--json", str(image)))
    assert data["board"] == board and len(data["rows"]) == size
    assert len(data["corners"]) == 4


def test_kaeshi_recognize_reads_a_calibrations_size_and_refuses_another(tmp_path: Path,
                                                                        capsys):
    setup = calibrate_synthetic(_scene(), seed=7, size=10)
    cal = tmp_path / "ten.json"
    save_calibration(cal, CameraCalibration(setup, start_position_ok=True))
    image = tmp_path / "start.png"
    write_image(image, render(Position.start(10).board_string(), _scene(), 7).image)
    rows = _cli("recognize", "--calibration", str(cal), str(image)).splitlines()[:10]
    assert "".join(rows) == Position.start(10).board_string()  # from a1, as calibrated
    assert cli_main(["recognize", "--calibration", str(cal), "--size", "6", str(image)]) == 1
    err = capsys.readouterr().err
    assert "ten.json was made on a 10x10 board, not a 6x6 one as --size 6 says" in err
    assert "kaeshi calibrate camera --size 6" in err and "give --size 10" in err


@pytest.mark.slow
@pytest.mark.parametrize("size,seed", [(6, 2), (10, 2)])
def test_a_game_with_hands_and_faults_through_the_camera_is_judged_as_its_log(size: int,
                                                                             seed: int):
    """A simulated game with a quarter of its moves faulty, hands over the discs being
    turned (a new pose in every frame) and presses as prompt as people make them,
    filmed on a 6x6 or 10x10 board, read by the ``watch`` loop and judged with the
    frame rate's wait: the events are those of the log it was filmed from."""
    from controller.arbiter.presswait import press_wait
    from controller.records.model import GameRecord
    from controller.simulator.game import SimOptions, simulate_game
    from controller.simulator.prompt import prompt_presses
    from controller.simulator.random_games import random_game as record_of
    from controller.synth.gamevideo import watch_game_video

    start = Position.start(size)
    moves = [m.square for m in record_of(size, seed).moves][:12]
    sim = simulate_game(GameRecord.from_squares(moves, start),
                        SimOptions(errors=0.25, seed=seed, hand=True))
    log = prompt_presses(sim.observations, seed)
    truth = [{k: v for k, v in e.to_dict().items() if k != "t"}
             for e in arbitrate(sim.observations, ArbiterConfig(start=start))]
    judged = [e for e in arbitrate(log, ArbiterConfig(start=start, press_wait=0.4))
              if e.event == "move"]
    cut = [o for o in log if o.t <= judged[13].t]  # up to the press of the 14th move
    scene = _scene()
    setup = calibrate_synthetic(scene, seed=7, size=size)
    messages: list[str] = []
    camera = watch_game_video(cut, setup, scene, FPS, seed=7, log=messages.append, tail=1.0,
                              moving_hands=True)
    assert any("?" in (o.board or "") for o in camera)  # the hands were seen as hands
    seen = [{k: v for k, v in e.to_dict().items() if k != "t"}
            for e in arbitrate(camera, ArbiterConfig(start=start, press_wait=press_wait(FPS)))]
    assert sum(e["event"] == "move" for e in seen) >= 14
    assert sum(e["event"] == "irregularity" for e in seen) >= 2
    assert seen == truth[: len(seen)], messages


@pytest.mark.parametrize("size", [6, 10])
def test_a_log_played_through_the_simulated_camera_reads_on_its_own_board(size: int):
    """``kaeshi simulate --via camera``: the camera is calibrated on the board the
    log's boards show, so a 6x6 or 10x10 log comes back on that board, as it was."""
    from controller.synth.replay import observations_via_camera

    game = random_game(size, 3, 4, STEP)
    back = observations_via_camera(game, _scene(), seed=7)
    assert [(o.t, o.board, o.press) for o in back] == [(o.t, o.board, o.press) for o in game]
