"""The camera set-up's estimates: colour levels that follow the light, and a
calibration grid that stops short of the board."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from controller.measure.evaluation import align_to_truth, random_position
from controller.position import START_BOARD
from controller.synth.picture import Scene, render
from controller.vision.calibrating.fit import fit_start_position
from controller.vision.colour import ColourModel
from controller.vision.geometry import homography_from_corners
from controller.vision.pipeline import auto_setup
from controller.vision.setup import CameraSetup


def test_levels_move_a_step_toward_the_discs_seen():
    m = ColourModel(black_log=-1.0, white_log=1.0, fitted=True)
    f = m.follow(np.array([-0.6, -0.5, -0.4]), np.array([0.4, 0.6, 0.5, np.nan]), rate=0.5)
    assert f.black_log == -0.75 and f.white_log == 0.75
    assert f.fitted


def test_levels_need_enough_discs_of_both_colours_well_apart():
    m = ColourModel(black_log=-1.0, white_log=1.0, fitted=True)
    assert m.follow(np.array([-0.5, -0.5]), np.array([0.5, 0.5, 0.5])) is m
    assert m.follow(np.array([-0.2] * 5), np.array([0.2] * 5)) is m  # not two colours


def test_a_model_never_fitted_takes_the_first_clear_board_at_once():
    m = ColourModel()
    assert not m.fitted
    f = m.follow(np.array([-0.9, -0.8, -0.7]), np.array([0.9, 1.0, 1.1]))
    assert f.fitted and f.black_log == -0.8 and f.white_log == 1.0


def test_a_grid_short_of_the_board_is_refused_at_calibration():
    scene = Scene(tilt_deg=20, rotation_deg=5)
    r = render(START_BOARD, scene, seed=3)
    good = align_to_truth(auto_setup(r.image), r.corners)
    assert fit_start_position(good, r.image, a1_fixed=True).mismatches == []
    # the same grid with its left and top edges pulled in by most of a square: the
    # start discs still land on the middle squares, but felt goes on past two edges
    board_corners = np.array([[0.7, 0.7], [8, 0.7], [8, 8], [0.7, 8]])
    squeezed = good.homography @ homography_from_corners(board_corners)
    short = CameraSetup(good.image_size, squeezed, good.disc_height, good.model)
    fit = fit_start_position(short, r.image, a1_fixed=True)
    assert fit.short_edges == ["a1-h1", "a1-a8"]
    assert set(range(0, 8)) <= set(fit.mismatches)  # the top edge
    assert set(range(0, 64, 8)) <= set(fit.mismatches)  # the left edge



def test_the_watcher_fits_the_levels_in_play_when_calibration_could_not():
    from controller.vision.watching.watcher import BoardWatcher

    scene = Scene(tilt_deg=25, rotation_deg=6, light=0.6)
    start = render(START_BOARD, scene, seed=9)
    fitted = fit_start_position(
        align_to_truth(auto_setup(start.image), start.corners), start.image, a1_fixed=True
    ).setup
    # the same set-up as if glare had hidden the start discs: default levels
    unfitted = CameraSetup(fitted.image_size, fitted.homography, fitted.disc_height)
    rng = np.random.default_rng(4)
    board = random_position(rng)
    while min(board.count("X"), board.count("O")) < 8:
        board = random_position(rng)
    game = render(board, scene, seed=10)
    watcher = BoardWatcher(unfitted.reader())
    for k in range(3):
        watcher.feed(k * 0.1, game.image)
    model = watcher.reader.model
    assert model.fitted
    assert abs(model.black_log - fitted.model.black_log) < 0.25
    assert abs(model.white_log - fitted.model.white_log) < 0.25
    assert any("fitted on the board in play" in m for m in watcher.stats.messages)
    read = watcher.reader.read(game.image).board
    assert all(r in ("?", t) for r, t in zip(read, game.board, strict=True))


def test_white_discs_under_a_warm_cast_are_not_taken_for_a_hand():
    # a warm lamp and a wrong white balance make white discs orange; without the
    # measured cast they all read '?' as if a hand covered them
    board = random_position(np.random.default_rng(5))
    r = render(board, Scene(warmth=0.9, cast=(0.88, 0.92, 1.0), tilt_deg=20), seed=1)
    setup = align_to_truth(auto_setup(r.image), r.corners)
    assert setup.model.balance is not None and setup.model.balance[0] > 1.1
    reading = setup.reader().read(r.image)
    assert not reading.hand
    unbalanced = replace(setup, model=replace(setup.model, balance=None))
    assert unbalanced.reader().read(r.image).hand  # what the cast alone does
    wrong = [i for i, (t, s) in enumerate(zip(board, reading.board, strict=True))
             if s != "?" and s != t]
    assert wrong == [] and reading.board.count("?") <= 4


def test_the_colour_cast_is_saved_with_the_set_up():
    m = ColourModel(balance=(1.2, 1.0, 0.8))
    assert ColourModel.from_dict(m.to_dict()).balance == (1.2, 1.0, 0.8)
    assert ColourModel.from_dict(ColourModel().to_dict()).balance is None
