"""The game video: an observation log rendered frame by frame."""

from __future__ import annotations

import numpy as np

from controller.observation import Observation, board_observation
from controller.squares import Color
from controller.synth.picture import START_BOARD, Scene, main, render_observations, write_video
from controller.vision.cv import cv2


def game_log() -> list[Observation]:
    after = list(START_BOARD)
    after[19] = "X"  # d3
    after[27] = "X"  # d4 turned
    mid = list(START_BOARD)
    mid[19], mid[27], mid[26] = "?", "?", "?"
    shifted = list(after)
    shifted[19] = "x"
    return [
        board_observation(0.0, START_BOARD),
        Observation(0.5, press=Color.WHITE),
        board_observation(1.0, START_BOARD),
        board_observation(2.0, "".join(mid)),
        board_observation(3.0, "".join(shifted)),
        board_observation(3.5, "".join(after)),
        Observation(4.0, press=Color.BLACK),
    ]


def test_one_frame_per_board_observation_with_matching_truth():
    log = game_log()
    frames = list(render_observations(log, Scene(tilt_deg=30, rotation_deg=5), seed=3))
    assert [obs for obs, _ in frames] == [o for o in log if o.board is not None]
    for obs, r in frames:
        assert r.board == obs.board
        assert list(np.flatnonzero(r.occluded)) == [i for i, c in enumerate(obs.board) if c == "?"]
    # The camera never moves.
    for _, r in frames:
        assert np.array_equal(r.homography, frames[0][1].homography)


def test_scene_stays_fixed_between_frames_and_hands_come_and_go():
    frames = [r for _, r in render_observations(game_log(), Scene(tilt_deg=20, clutter=True), 5)]
    # Two readings of the same position are the same picture (no noise in this scene).
    assert np.array_equal(frames[0].image, frames[1].image)
    # The hand frame differs, and only around the hidden squares and the arm.
    diff = np.abs(frames[2].image.astype(int) - frames[1].image.astype(int)).max(axis=2)
    assert diff.max() > 50
    changed = diff > 30
    assert 0.005 < changed.mean() < 0.5
    # The shifted disc shows in its own frame only.
    assert not np.allclose(frames[3].shift[19], 0) and np.allclose(frames[4].shift[19], 0)


def test_noise_changes_from_frame_to_frame_but_not_between_runs():
    scene = Scene(noise=0.03)
    a = [r.image for _, r in render_observations(game_log(), scene, 1)]
    b = [r.image for _, r in render_observations(game_log(), scene, 1)]
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], a[1])


def test_video_file_holds_every_frame(tmp_path):
    path = tmp_path / "game.avi"
    n = write_video((r for _, r in render_observations(game_log(), Scene(), 0)), path, fps=5)
    assert n == 5
    cap = cv2.VideoCapture(str(path))
    count = 0
    while True:
        ok, frame = cap.read()
        if not ok:
            break
        assert frame.shape == (480, 640, 3)
        count += 1
    cap.release()
    assert count == 5


def test_command_line_renders_a_log_as_video(tmp_path, capsys):
    log = tmp_path / "game.jsonl"
    log.write_text("\n".join(o.to_json() for o in game_log()) + "\n")
    out = tmp_path / "game.avi"
    assert main(["--observations", str(log), "--out", str(out), "--tilt-deg", "25"]) == 0
    assert out.stat().st_size > 10_000
    assert "5 frames" in capsys.readouterr().out
    log.write_text('{"t": 0, "board": "XO"}\n')
    assert main(["--observations", str(log), "--out", str(out)]) == 1
    assert "line 1" in capsys.readouterr().err


def test_unwritable_video_path_is_named(tmp_path):
    frames = [r for _, r in render_observations(game_log()[:1], Scene(width=64, height=48), 0)]
    bad = tmp_path / "missing-dir" / "game.avi"
    try:
        write_video(frames, bad)
    except OSError as exc:
        assert "game.avi" in str(exc)
    else:
        raise AssertionError("writing into a missing directory should fail")


def test_dataset_pictures_match_their_truth_lines(tmp_path):
    import json

    out = tmp_path / "set"
    assert main(["--count", "3", "--hard", "--seed", "2", "--width", "160", "--height", "120",
                 "--out", str(out)]) == 0
    lines = [json.loads(x) for x in (out / "truth.jsonl").read_text().splitlines()]
    assert [x["file"] for x in lines] == ["00000.png", "00001.png", "00002.png"]
    for x in lines:
        image = cv2.imread(str(out / x["file"]))
        assert image.shape == (120, 160, 3)
        assert len(x["board"]) == 64 and set(x["board"]) <= set("-XO?xo")
        assert np.array(x["corners"]).shape == (4, 2) and x["scene"]["width"] == 160
    assert main(["--count", "-1", "--out", str(out)]) == 1
