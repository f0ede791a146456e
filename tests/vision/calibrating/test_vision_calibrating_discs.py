"""Calibration's cue from the start discs: a board guessed round the four discs of
the start position, and none where the picture shows no start discs."""

from __future__ import annotations

import numpy as np
import pytest

import controller.vision.calibrating.judge as startjudge
import controller.vision.calibrating.search as startsearch
from controller.measure.evaluation import (
    aligned_grid,
    corner_error,
    grid_error,
    own_start_picture,
)
from controller.position import START_BOARD
from controller.synth.picture import Rendered, Scene, render
from controller.vision.calibrating.discs import disc_clusters, disc_guesses, start_disc_centres
from controller.vision.calibrating.start_reading import SURE, start_discs_right, start_of
from controller.vision.finding.felt import green_chroma
from controller.vision.finding.finder import BoardNotFound
from controller.vision.geometry import apply_homography, homography_from_corners

START_DISCS = start_of().discs
DISCS = start_disc_centres()

#: An oblique view: an affine map from the discs alone leaves corners a square off.
SCENE = Scene(tilt_deg=35, rotation_deg=12, light=0.6, view_from_deg=150, distance=10)
EMPTY = "-" * 64


@pytest.fixture(scope="module")
def start() -> Rendered:
    return render(START_BOARD, SCENE, seed=5)


def test_the_likeliest_cluster_lies_on_the_start_discs(start):
    clusters = disc_clusters(start.image, green_chroma(start.image))
    assert clusters
    truth = homography_from_corners(start.corners)
    found = apply_homography(np.linalg.inv(truth), apply_homography(clusters[0], DISCS))
    # each disc found within a third of a square of one of the four disc centres
    # (the discs' tops stand a little off their squares' centres in an oblique view)
    near = np.linalg.norm(found[:, None] - DISCS[None], axis=2).min(axis=1)
    assert near.max() < 0.35


def test_the_felt_edges_put_the_guess_nearer_the_board_than_the_discs_alone(start):
    clusters = disc_clusters(start.image, green_chroma(start.image))
    guesses = disc_guesses(start.image)
    assert guesses
    # this board's felt goes on a little past its outer lines, which the edges follow
    assert grid_error(guesses[0], start.corners) < 1.0 < grid_error(clusters[0], start.corners)


def test_calibration_takes_the_disc_guess_when_nothing_else_offers_a_board(start, monkeypatch):
    def nothing(image: np.ndarray, n: int = 8) -> tuple[np.ndarray, float]:
        raise BoardNotFound("no board in the image")

    monkeypatch.setattr(startsearch, "found_grid", nothing)
    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: [])
    monkeypatch.setattr(startsearch, "_settled", lambda *args: None)
    fit = startsearch.fit_on_start(start.image, lambda h: aligned_grid(h, start.corners))
    assert fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 0.25


def test_an_empty_board_offers_no_guess_that_reads_a_start_position(monkeypatch):
    empty = render(EMPTY, SCENE, seed=5)
    near = 0
    for h in disc_guesses(empty.image):
        # a glint on the felt can start a guess, and the felt's edges then pull it
        # near the board; but a guess is only a proposal, and on the board's own
        # squares it finds no disc to read
        fit = startjudge.fit_grid(empty.image, h, lambda g: aligned_grid(g, empty.corners), [])
        if grid_error(h, empty.corners) < 1.0:
            near += 1
            assert start_discs_right(fit.reading) == 0
            assert set(fit.mismatches) == set(START_DISCS)
    assert near  # the premise: some guess lies near the board
    _disc_path_only(monkeypatch)
    with pytest.raises(BoardNotFound):  # refused: no grid is taken for the start position
        startsearch.fit_on_start(empty.image, lambda g: aligned_grid(g, empty.corners))


@pytest.fixture(scope="module")
def lamp_over_the_board() -> Rendered:
    """Own hard scene 102/78: a dim room, a lamp's reflection over a corner of the
    board, the four start discs plain; more than ``MAX_UNREAD`` squares unread on the
    board's own grid, and no outline the finder or the lattice offers near it."""
    return own_start_picture(102, 78)


def _disc_path_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def nothing(image: np.ndarray, n: int = 8) -> tuple[np.ndarray, float]:
        raise BoardNotFound("no board in the image")

    monkeypatch.setattr(startsearch, "found_grid", nothing)
    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: [])
    monkeypatch.setattr(startsearch, "_settled", lambda *args: None)


def test_a_disc_guess_reading_the_four_discs_in_place_is_taken_under_a_reflection(
        lamp_over_the_board, monkeypatch):
    _disc_path_only(monkeypatch)
    start = lamp_over_the_board
    fit = startsearch.fit_on_start(start.image, lambda h: aligned_grid(h, start.corners))
    assert fit.mismatches == []
    assert len(fit.unknown) > startjudge.MAX_UNREAD  # not taken for reading every square
    assert start_discs_right(fit.reading) == 4
    assert corner_error(fit.setup, start.corners) < 0.25


def test_a_disc_guess_the_model_is_not_sure_of_is_not_taken(lamp_over_the_board, monkeypatch):
    _disc_path_only(monkeypatch)
    monkeypatch.setattr(startjudge, "grid_doubt", lambda image, fit: SURE)
    # the last resort after it takes such a grid on three discs (see
    # test_vision_calibrating_start_reading_placed.py); this rule alone must not
    monkeypatch.setattr(startsearch, "_discs_placed", lambda image, made: None)
    start = lamp_over_the_board
    with pytest.raises(BoardNotFound):
        startsearch.fit_on_start(start.image, lambda h: aligned_grid(h, start.corners))


def test_a_start_cluster_ranked_behind_glints_is_still_offered():
    """Own hard scene 281/66: a lamp's reflection lights one black start disc, so
    the discs' cluster ranks behind glints on the frame and the table; the felt's
    outline is cut by the reflection and nothing else offers a grid near the board."""
    r = own_start_picture(281, 66)
    clusters = disc_clusters(r.image, green_chroma(r.image))
    # the premise: the two likeliest clusters lie squares off the board
    assert min(grid_error(a, r.corners) for a in clusters[:2]) > 3
    assert min(grid_error(h, r.corners) for h in disc_guesses(r.image)) < 0.5
