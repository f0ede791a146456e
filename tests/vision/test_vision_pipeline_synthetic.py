"""Board finding and square reading on rendered scenes with exact ground truth.

CI-sized versions of the figures ``make bench`` prints on 20,000+ squares.
"""

from __future__ import annotations

import numpy as np
import pytest

from controller import cli
from controller.measure.evaluation import (
    align_to_truth,
    calibrate_on_start,
    corner_error,
    random_position,
    shifts_with_room,
)
from controller.position import START_BOARD
from controller.symmetry import transform_board_string
from controller.synth.picture import Scene, random_scene, render
from controller.vision.calibrating.fit import fit_start_position
from controller.vision.cv import ImageError, decode_image, write_image
from controller.vision.finding.finder import BoardNotFound, find_board
from controller.vision.pipeline import auto_setup, recognize
from controller.vision.reading.scoring import Tally
from controller.vision.reading.uncentred import SHIFT_DOUBT, SHIFT_THRESHOLD, too_close


def test_clean_renders_are_read_without_error():
    rng = np.random.default_rng(11)
    tally = Tally()
    for n in range(12):
        scene = random_scene(rng, hard=False)
        board = random_position(rng, shifted=0.08)
        r = render(board, scene, seed=500 + n, shifts=shifts_with_room(board, rng))
        setup = align_to_truth(auto_setup(r.image), r.corners)
        tally.add(n, r.board, setup.reader().read(r.image).board)
    assert tally.squares == 12 * 64
    assert tally.wrong == 0, tally.mistakes
    assert tally.unknown_rate < 0.06


def test_hard_scenes_with_a_calibration():
    rng = np.random.default_rng(12)
    tally = Tally()
    for n in range(20):
        scene = random_scene(rng, hard=True, hand=False)
        board = random_position(rng, shifted=0.05)
        shifts = shifts_with_room(board, rng)
        setup, ok = calibrate_on_start(scene, 700 + n)
        if not ok:
            tally.skipped += 1
            continue
        r = render(board, scene, seed=700 + n, shifts=shifts)
        tally.add(n, r.board, setup.reader().read(r.image).board)
    assert tally.scenes >= 8
    assert tally.wrong_rate <= 0.01, tally.mistakes
    assert tally.unknown_rate < 0.35


def test_hands_never_give_a_wrong_definite_state():
    rng = np.random.default_rng(13)
    tally = Tally()
    for n in range(12):
        scene = random_scene(rng, hard=False, hand=True)
        board = random_position(rng)
        setup, ok = calibrate_on_start(scene, 900 + n)
        if not ok:
            tally.skipped += 1
            continue
        r = render(board, scene, seed=900 + n)
        reading = setup.reader().read(r.image)
        tally.add(n, r.board, reading.board)
        assert all(reading.board[i] == "?" for i in np.flatnonzero(r.occluded))
    assert tally.scenes >= 9
    assert tally.wrong == 0, tally.mistakes


def test_start_position_fits_the_colour_model():
    scene = Scene(tilt_deg=30, rotation_deg=-12, light=0.5, view_from_deg=40)
    r = render(START_BOARD, scene, seed=4)
    setup = align_to_truth(auto_setup(r.image), r.corners)
    fit = fit_start_position(setup, r.image, a1_fixed=True)
    assert fit.mismatches == [] and fit.unknown == []
    model = fit.setup.model
    assert model.fitted and model.black_log < 0 < model.white_log


@pytest.mark.parametrize("shift, expected", [
    ((0.40, 0.0), "x"), ((0.05, -0.03), "X"),
    # near the line, but on a frame that locates discs far more precisely than that
    ((0.36, 0.0), "x"), ((0.30, 0.0), "X"),
])
def test_a_shifted_disc_is_reported_as_shifted(shift, expected):
    board = START_BOARD[:20] + "X" + START_BOARD[21:]
    scene = Scene(tilt_deg=25, view_from_deg=10)
    r = render(board, scene, seed=2, shifts={20: shift})
    setup = align_to_truth(auto_setup(render(START_BOARD, scene, seed=2).image), r.corners)
    assert setup.reader().read(r.image).board[20] == expected


def test_board_found_in_oblique_rotated_cluttered_view():
    scene = Scene(tilt_deg=42, rotation_deg=25, view_from_deg=200, clutter=True,
                  light=0.45, shadow=True, noise=0.02, blur=1.0, jpeg_quality=60)
    r = render(random_position(np.random.default_rng(3)), scene, seed=8)
    fit = find_board(r.image)
    assert fit.score > 0.2
    setup = auto_setup(r.image)
    assert corner_error(setup, r.corners) < 0.1


def test_recognize_turns_a_rotated_board_upright():
    board = random_position(np.random.default_rng(5))
    straight = recognize(render(board, Scene(rotation_deg=20), seed=1).image).board
    turned = recognize(render(board, Scene(rotation_deg=70), seed=1).image).board
    assert straight == board
    assert turned != board
    assert any(transform_board_string(turned, t) == board for t in range(8))


def test_an_image_without_a_board(tmp_path, capsys):
    rng = np.random.default_rng(0)
    table = np.clip(rng.normal(90, 20, (480, 640, 3)), 0, 255).astype(np.uint8)
    table[..., 2] = np.clip(table[..., 2].astype(int) + 40, 0, 255)
    with pytest.raises(BoardNotFound, match="no board|no green"):
        find_board(table)
    path = tmp_path / "table.png"
    write_image(path, table)
    assert cli.main(["recognize", str(path)]) == 1
    err = capsys.readouterr().err
    assert "table.png" in err and "board" in err


def test_a_corrupt_image_gives_a_clear_error(tmp_path, capsys):
    bad = tmp_path / "broken.jpg"
    bad.write_bytes(b"\xff\xd8\xff\xe0 this is not really a JPEG")
    with pytest.raises(ImageError, match="broken.jpg"):
        decode_image(bad.read_bytes(), str(bad))
    good = tmp_path / "good.png"
    write_image(good, render(START_BOARD, Scene(), seed=1).image)
    assert cli.main(["recognize", str(bad), str(good)]) == 1
    captured = capsys.readouterr()
    assert "broken.jpg" in captured.err and "not a readable image" in captured.err
    assert "---OX---" in captured.out  # the good image was still read


def test_placed_or_shifted_is_left_open_only_within_the_frames_locating_noise():
    line = SHIFT_THRESHOLD
    # a frame that puts its placed discs 0.01 off: 0.02 from the line is decided
    assert not too_close(line + 0.02, 0.01) and not too_close(line - 0.02, 0.01)
    assert too_close(line + 0.005, 0.01)
    # a sloppy frame: the doubt widens with it, but never past the fixed margins
    assert too_close(line + 0.03, 0.05) and not too_close(line + 0.03, 0.02)
    assert not too_close(line + SHIFT_DOUBT[1] + 0.001, 0.5)
    # no placed disc to measure the noise on: the fixed margins
    assert too_close(line - SHIFT_DOUBT[0] + 0.001, float("nan"))
    assert not too_close(line - SHIFT_DOUBT[0] - 0.001, float("nan"))
