"""Calibration's board search: when the finder's grid does not show the start
position, the grid that does is found among the others the cues offer."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from reflections import reflection_over

import controller.vision.calibrating.judge as startjudge
import controller.vision.calibrating.search as startsearch
from calibration.camera import calibrate_image
from calibration.evaluation import wrong_start
from controller.measure.evaluation import (
    aligned_grid,
    corner_error,
    grid_error,
    own_scenes,
    own_start_picture,
)
from controller.position import START_BOARD
from controller.synth.picture import Rendered, Scene, render
from controller.vision.calibrating.start_reading import start_discs_right, start_of
from controller.vision.finding.felt import outline_guesses
from controller.vision.finding.finder import BoardNotFound, board_grids, lattice_outlines
from controller.vision.finding.grid_check import CONFIRMED
from controller.vision.geometry import corners_of, homography_from_corners, moved_by_squares
from controller.vision.pipeline import found_grid, setup_on_grid

START_DISCS = start_of().discs

SCENE = Scene(tilt_deg=20, rotation_deg=-8, light=0.9, view_from_deg=200)


@pytest.fixture(scope="module")
def start() -> Rendered:
    return render(START_BOARD, SCENE, seed=11)


def _half_board(r: Rendered) -> np.ndarray:
    """The grid over the board's first four rows only (a glare cut the felt there)."""
    c = r.corners
    return homography_from_corners(np.array([c[0], c[1], (c[1] + c[2]) / 2, (c[0] + c[3]) / 2]))


def _finder_says(monkeypatch: pytest.MonkeyPatch, h: np.ndarray | None) -> None:
    def found(image: np.ndarray, n: int = 8) -> tuple[np.ndarray, float]:
        if h is None:
            raise BoardNotFound("no board in the image")
        return h, 0.0

    monkeypatch.setattr(startsearch, "found_grid", found)


def _to_truth(r: Rendered) -> startjudge.Orient:
    return lambda h: aligned_grid(h, r.corners)


@pytest.mark.parametrize("wrong", ["one square off", "half the board"])
def test_a_finder_grid_that_misreads_the_start_gives_way_to_one_that_reads_it(
        start, monkeypatch, wrong):
    bad = (moved_by_squares(start.homography, 1, 0) if wrong == "one square off"
           else _half_board(start))
    _finder_says(monkeypatch, bad)
    fit = startsearch.fit_on_start(start.image, _to_truth(start))
    assert fit.mismatches == [] and fit.setup.model.fitted
    assert corner_error(fit.setup, start.corners) < 0.25


def test_a_board_the_finder_gave_up_on_is_still_found_by_its_start_position(start, monkeypatch):
    _finder_says(monkeypatch, None)
    fit = startsearch.fit_on_start(start.image, _to_truth(start))
    assert fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 0.25


def test_with_no_grid_reading_the_start_the_finders_contradictions_are_kept(monkeypatch):
    board = START_BOARD[:27] + "X" + START_BOARD[28:]  # d4 black: not the start position
    r = render(board, SCENE, seed=11)
    fit = startsearch.fit_on_start(r.image, _to_truth(r))
    assert 27 in fit.mismatches
    assert corner_error(fit.setup, r.corners) < 0.25  # the finder's grid, named to the user
    _finder_says(monkeypatch, None)
    with pytest.raises(BoardNotFound):  # nothing reads the start: the finder's reason
        startsearch.fit_on_start(r.image, _to_truth(r))


def test_calibration_uses_the_search_and_keeps_the_users_a1(start, monkeypatch):
    _finder_says(monkeypatch, moved_by_squares(start.homography, 0, -1))
    result = calibrate_image(start.image, a1="top-left")
    assert result.calibration.start_position_ok
    assert not any(w.startswith("calibration refused") for w in result.warnings)
    corners = result.calibration.setup.homography @ np.array([0.0, 0.0, 1.0])
    a1 = corners[:2] / corners[2]
    picture = np.array(start.image.shape[1::-1], float)
    assert a1[0] < picture[0] / 2 and a1[1] < picture[1] / 2  # a1 stays where the user said


def _past_the_picture(r: Rendered) -> np.ndarray:
    """A grid of squares larger than the picture's half, centred on it: every square
    hangs past an edge, while the white start discs' tops still land on felt."""
    height, width = r.image.shape[:2]
    centre = np.array([width / 2, height / 2])
    return homography_from_corners(centre + 200 * np.array([[-4, -4], [4, -4], [4, 4], [-4, 4]]))


def test_a_grid_hanging_past_the_picture_is_unread_not_an_error(start):
    fit = startjudge.fit_grid(start.image, _past_the_picture(start), None, [])
    assert len(fit.unknown) >= 60  # a fit that reads next to nothing, not an IndexError


def test_a_finder_grid_that_reads_nothing_gives_way_to_one_that_reads_the_start(
        start, monkeypatch):
    _finder_says(monkeypatch, _past_the_picture(start))
    fit = startsearch.fit_on_start(start.image, _to_truth(start))
    assert fit.mismatches == [] and len(fit.unknown) <= startjudge.MAX_UNREAD
    assert corner_error(fit.setup, start.corners) < 0.25


def _grids_offered(monkeypatch: pytest.MonkeyPatch, grids: list[np.ndarray]) -> None:
    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: grids)


def _no_guesses_of_its_own(monkeypatch: pytest.MonkeyPatch) -> None:
    """The picture offers no outline guesses: the felt's, its edges' and the lattice's."""
    monkeypatch.setattr(startsearch, "outline_guesses", lambda image: [])
    monkeypatch.setattr(startsearch, "contour_outlines", lambda image: [])
    monkeypatch.setattr(startsearch, "lattice_outlines", lambda image, doubled, n=8: [])


def test_a_grid_with_a_reflection_over_many_squares_is_taken_when_its_squares_are_recognised(
        start, monkeypatch):
    image = reflection_over(start, 9, sigma=1.6, peak=2.5)
    one_off = moved_by_squares(start.homography, 1, 0)
    half_off = moved_by_squares(start.homography, 0.5, 0)
    _finder_says(monkeypatch, None)
    _grids_offered(monkeypatch, [one_off, half_off, start.homography])
    fit = startsearch.fit_on_start(image, _to_truth(start))
    assert len(fit.unknown) > startjudge.MAX_UNREAD  # the reflection's squares
    assert fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 0.25


def test_grids_that_contradict_the_start_or_are_doubted_are_never_taken(start, monkeypatch):
    image = reflection_over(start, 9, sigma=1.6, peak=2.5)
    _finder_says(monkeypatch, None)
    # not moved onto the board either, and no guess of the picture's own offered
    monkeypatch.setattr(startsearch, "settle_on_start", lambda image, h, *args, **kw: h)
    _no_guesses_of_its_own(monkeypatch)
    # (the start discs, plain beside the reflection, would place the board itself)
    monkeypatch.setattr(startsearch, "disc_guesses", lambda image, n=8: [])
    _grids_offered(monkeypatch, [moved_by_squares(start.homography, 1, 0),
                                 moved_by_squares(start.homography, 0.5, 0)])
    with pytest.raises(BoardNotFound):
        startsearch.fit_on_start(image, _to_truth(start))


def test_the_start_discs_beside_a_reflection_place_the_board_when_the_grids_offered_are_off(
        start, monkeypatch):
    image = reflection_over(start, 9, sigma=1.6, peak=2.5)
    _finder_says(monkeypatch, None)
    monkeypatch.setattr(startsearch, "settle_on_start", lambda image, h, *args, **kw: h)
    _no_guesses_of_its_own(monkeypatch)
    _grids_offered(monkeypatch, [moved_by_squares(start.homography, 1, 0),
                                 moved_by_squares(start.homography, 0.5, 0)])
    fit = startsearch.fit_on_start(image, _to_truth(start))
    # more squares unread than a grid taken for reading nearly all of them may leave:
    # taken for its four discs read in place, on squares the model is sure of
    assert len(fit.unknown) > startjudge.MAX_UNREAD and fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 0.1


def test_of_grids_alike_the_one_likest_the_start_position_is_moved(start, monkeypatch):
    """A guess a fifth of a square from a grid already tried can look far more like
    the start position; it must stand for the two, not be dropped as the same."""
    from controller.measure.evaluation import grid_error
    from controller.vision.geometry import corners_of
    from controller.vision.reading.square_model import default_model

    tried_grid = moved_by_squares(start.homography, 0.2, 0)
    made: list = []
    tried = [startjudge.fit_grid(start.image, tried_grid, _to_truth(start), made)]
    # the guess: the board's own outline, its corners in the tried grid's order
    _no_guesses_of_its_own(monkeypatch)
    monkeypatch.setattr(startsearch, "outline_guesses", lambda image: [corners_of(
        aligned_grid(start.homography, corners_of(tried_grid)))])
    monkeypatch.setattr(startsearch, "settle_on_start", lambda image, h, *args, **kw: h)
    monkeypatch.setattr(startjudge, "refine_on_grid", lambda image, h, n=8: (h, 0.0))
    monkeypatch.setattr(startsearch, "start_likelihood",
                        lambda image, h, *args, **kw: -grid_error(h, start.corners))
    fit = startsearch._settled(start.image, tried, _to_truth(start), default_model(), made)
    assert fit is not None and fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 0.05


def test_the_likeliest_place_gets_a_second_grid_not_alike_the_first(start):
    h = start.homography
    grids = [(h, 0), (moved_by_squares(h, 0.1, 0), 0), (moved_by_squares(h, 2, 0), 0),
             (moved_by_squares(h, 0, 0.4), 0), (moved_by_squares(h, 0.5, 0.3), 0)]
    ranked = [0, 1, 2, 3, 4]  # likeliest first
    # 1 is the first pick's own grid a tenth of a square over; 2 is another place
    assert startsearch._second_try(grids, ranked, [0, 2]) == [3]
    assert startsearch._second_try(grids, [0, 1, 2, 4, 3], [0, 2]) == [4]
    assert startsearch._second_try(grids[:3], ranked[:3], [0, 2]) == []
    assert startsearch._second_try(grids, ranked, []) == []


def test_a_wrong_start_disc_on_the_boards_own_grid_is_the_positions_fault():
    board = START_BOARD[:27] + "X" + START_BOARD[28:]  # d4 black: not the start position
    r = render(board, SCENE, seed=11)
    fit = startjudge.fit_grid(r.image, r.homography, _to_truth(r), [])
    assert fit.mismatches == [27]
    assert startsearch._on_board(r.image, fit)  # no search: the user hears at once


@pytest.fixture(scope="module")
def cut_short() -> Rendered:
    """Own hard scene 174/55: a lamp's reflection over the middle of the board, and
    the finder's grid over its lower half only, which the model confirms."""
    return own_start_picture(174, 55)


def test_a_grid_cut_short_at_a_reflection_is_not_taken_for_the_board(cut_short):
    h, _ = found_grid(cut_short.image)
    assert corner_error(setup_on_grid(cut_short.image, h), cut_short.corners) > 2
    fit = startjudge.fit_grid(cut_short.image, h, _to_truth(cut_short), [])
    # what once passed for the board with the wrong discs on it ...
    assert fit.mismatches and set(fit.mismatches) <= set(START_DISCS)
    assert startjudge.grid_doubt(cut_short.image, fit) < CONFIRMED
    # ... reads none of them: its middle lies on empty felt
    assert start_discs_right(fit.reading) == 0
    assert not startsearch._on_board(cut_short.image, fit)


def test_calibration_searches_past_a_grid_cut_short_and_finds_the_board(cut_short):
    fit = startsearch.fit_on_start(cut_short.image, _to_truth(cut_short))
    assert fit.mismatches == []
    assert corner_error(fit.setup, cut_short.corners) < 0.5


def test_a_wrong_disc_on_the_boards_own_grid_is_not_passed_over_for_a_doubted_grid():
    """Own clean scene 5/34: a white disc set on e4, under a lamp's light pool. The
    board's own grid reads it white; a grid taking in the table round the board
    reads the start position, the learned model doubting its squares. The set-up
    is wrong, and calibration says so instead of taking that grid."""
    own = next(itertools.islice(own_scenes(5, hard=False), 34, None))
    board, kind = wrong_start(34)
    assert kind == "the other colour" and board[28] == "O"
    r = render(board, replace(own.scene, hand=False), seed=own.render_seed)
    fit = startsearch.fit_on_start(r.image, _to_truth(r))
    assert fit.mismatches == [28] and fit.doubt is None
    assert corner_error(fit.setup, r.corners) < 0.25


@pytest.fixture(scope="module")
def on_green_cloth() -> Rendered:
    """Own hard scene 235/159: a wood-framed board on a green cloth in a dim room, a
    lamp's reflection beside the start discs. The felt's colour runs into the
    cloth's, and no felt outline, lattice or finder grid lies near the board."""
    return own_start_picture(235, 159)


def test_a_board_whose_felt_runs_into_the_cloth_is_found_by_its_frames_outline(
        on_green_cloth):
    r = on_green_cloth
    # the premise: no other cue offers a grid within a square of the board
    others = ([corners_of(h) for h in board_grids(r.image)] + outline_guesses(r.image)
              + lattice_outlines(r.image, doubled=True))
    assert min(grid_error(homography_from_corners(q), r.corners) for q in others) > 1
    fit = startsearch.fit_on_start(r.image, _to_truth(r))
    assert fit.mismatches == []
    assert corner_error(fit.setup, r.corners) < 0.5


@pytest.fixture(scope="module")
def beside_a_teal_table() -> Rendered:
    """Own hard scene 276/45: a small board under a lamp, on a teal table that
    passes the felt's colour test; the finder's grid lies on the table beside it."""
    return own_start_picture(276, 45)


def test_a_finder_grid_reading_no_start_disc_is_not_kept_without_a_search(
        beside_a_teal_table):
    r = beside_a_teal_table
    # the premise: the finder's grid lies squares off the board, contradicts nothing
    # and reads none of the four discs
    h, _ = found_grid(r.image)
    assert grid_error(h, r.corners) > 2
    # whether that grid reads the start discs wrong or none of them (it has done both
    # with different builds of the image libraries), it must not be kept: the search
    # goes on to the board
    first = startjudge.fit_grid(r.image, h, _to_truth(r), [])
    assert first.mismatches or start_discs_right(first.reading) == 0
    fit = startsearch.fit_on_start(r.image, _to_truth(r))
    assert fit.mismatches == []
    assert corner_error(fit.setup, r.corners) < 0.5


def test_a_finder_grid_reading_a_start_disc_and_contradicting_nothing_is_kept(
        start, monkeypatch):
    _finder_says(monkeypatch, start.homography)
    monkeypatch.setattr(startsearch, "shows_start", lambda fit: False)  # too many unread

    def no_search(*args: object) -> None:
        raise AssertionError("searched past a grid that reads a start disc")

    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: [])
    monkeypatch.setattr(startsearch, "recognised_start", no_search)
    fit = startsearch.fit_on_start(start.image, _to_truth(start))
    assert corner_error(fit.setup, start.corners) < 0.25
