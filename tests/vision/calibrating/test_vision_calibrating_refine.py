"""Pulling a near-miss grid onto the start position with the learned square model:
the last resort of a calibration that no offered grid reads."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest
from reflections import band_over, reflection_over

import controller.vision.calibrating.judge as startjudge
import controller.vision.calibrating.search as startsearch
from calibration.camera import calibrate_image
from controller.measure.evaluation import (
    aligned_grid,
    corner_error,
    grid_error,
    own_scenes,
    own_start_picture,
)
from controller.position import START_BOARD
from controller.synth.picture import Rendered, Scene, render
from controller.vision.calibrating.fit import StartFit
from controller.vision.calibrating.refine import start_likelihood
from controller.vision.finding.finder import BoardNotFound, lattice_outlines
from controller.vision.geometry import (
    apply_homography,
    homography_from_corners,
    moved_by_squares,
)
from controller.vision.pipeline import DISC_HEIGHT
from controller.vision.reading.square_model import default_model

SCENE = Scene(tilt_deg=20, rotation_deg=-8, light=0.9, view_from_deg=200)


@pytest.fixture(scope="module")
def start() -> Rendered:
    return render(START_BOARD, SCENE, seed=11)


def _scaled(r: Rendered, f: float) -> np.ndarray:
    """The grid grown (or shrunk) about the board's middle: an outline that took in
    the frame, or stopped short of the board's edge."""
    middle = r.corners.mean(axis=0)
    return homography_from_corners(middle + (r.corners - middle) * f)


def test_the_board_looks_more_like_the_start_position_than_grids_off_it(start):
    model = default_model()
    image = reflection_over(start, 9, sigma=1.6, peak=2.5)
    on = start_likelihood(image, start.homography, model, DISC_HEIGHT)
    for off in (moved_by_squares(start.homography, 1, 0),
                moved_by_squares(start.homography, 0.5, -0.5),
                _scaled(start, 1.15), _scaled(start, 0.88)):
        assert start_likelihood(image, off, model, DISC_HEIGHT) < on - 0.5


def test_a_grid_taking_in_the_frame_is_moved_onto_the_board(start, monkeypatch):
    image = reflection_over(start, 9, sigma=1.6, peak=2.5)
    big = _scaled(start, 1.15)
    monkeypatch.setattr(startsearch, "found_grid", _not_found)
    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: [big])
    fit = startsearch.fit_on_start(image, lambda h: aligned_grid(h, start.corners))
    assert corner_error(fit.setup, start.corners) < 0.3
    assert fit.mismatches == []


def _not_found(image: np.ndarray, n: int = 8) -> tuple[np.ndarray, float]:
    raise BoardNotFound("no board in the image")


def test_a_wrong_start_disc_on_a_plainly_found_board_is_refused_without_moving_grids(
        monkeypatch):
    board = START_BOARD[:27] + "X" + START_BOARD[28:]  # d4 black: not the start position
    r = render(board, SCENE, seed=11)
    moved: list[np.ndarray] = []
    monkeypatch.setattr(startsearch, "settle_on_start",
                        lambda image, h, *args, **kw: moved.append(h) or h)
    fit = startsearch.fit_on_start(r.image, lambda h: aligned_grid(h, r.corners))
    assert fit.mismatches == [27]
    assert moved == []


@pytest.mark.parametrize("guessing", [True, False])
def test_a_board_a_band_of_light_cuts_short_is_found_from_the_felt_outlines_guesses(
        start, monkeypatch, guessing):
    image = band_over(start, -0.5, 2.5)
    monkeypatch.setattr(startsearch, "found_grid", _not_found)
    if not guessing:  # the premise: no grid the cues offer leads to the board
        monkeypatch.setattr(startsearch, "outline_guesses", lambda image: [])
        with pytest.raises(BoardNotFound):
            startsearch.fit_on_start(image, lambda h: aligned_grid(h, start.corners))
        return
    said: list[str] = []
    fit = startsearch.fit_on_start(image, lambda h: aligned_grid(h, start.corners), said.append)
    assert corner_error(fit.setup, start.corners) < 0.25
    assert fit.mismatches == []
    assert said == [startsearch.SEARCHING]  # the user hears why it takes seconds


@pytest.fixture(scope="module")
def dim_start() -> Rendered:
    return render(START_BOARD, replace(SCENE, light=0.4, noise=0.05, blur=1.2), seed=11)


@pytest.mark.parametrize("doubling", [True, False])
def test_a_lattice_read_at_half_its_spacing_is_found_from_the_doubled_guesses(
        dim_start, monkeypatch, doubling):
    # a reflection over the first four rows of a dim board leaves three of the seven
    # inner row lines: lines half a square apart, every other one through the
    # squares' middles, outscore them
    image = band_over(dim_start, -0.5, 3.5)
    off = [grid_error(homography_from_corners(q), dim_start.corners)
           for q in lattice_outlines(image)]
    assert min(off) > 1.0  # the premise: the lattice's own outlines miss the board
    monkeypatch.setattr(startsearch, "found_grid", _not_found)
    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: [])
    monkeypatch.setattr(startsearch, "outline_guesses", lambda image: [])
    orient = lambda h: aligned_grid(h, dim_start.corners)  # noqa: E731
    if not doubling:
        monkeypatch.setattr(startsearch, "lattice_outlines", lambda image, doubled, n=8: [])
        with pytest.raises(BoardNotFound):
            startsearch.fit_on_start(image, orient)
        return
    fit = startsearch.fit_on_start(image, orient)
    assert corner_error(fit.setup, dim_start.corners) < 0.25
    assert fit.mismatches == []


def test_a_grid_moved_short_of_an_edge_is_put_on_the_printed_lines(start, monkeypatch):
    # where the model's look leaves the a1-h1 edge a third of a square inside the
    # board, the felt goes on past it; the printed lines are within reach
    inside = np.array([[0, 0.35], [8, 0.35], [8, 8], [0, 8]])
    short = homography_from_corners(apply_homography(start.homography, inside))
    orient = lambda h: aligned_grid(h, start.corners)  # noqa: E731
    assert startjudge.fit_grid(start.image, short, orient, []).short_edges == ["a1-h1"]  # premise
    monkeypatch.setattr(startsearch, "found_grid", _not_found)
    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: [_scaled(start, 1.15)])
    monkeypatch.setattr(startsearch, "outline_guesses", lambda image: [])
    monkeypatch.setattr(startsearch, "lattice_outlines", lambda image, doubled, n=8: [])
    monkeypatch.setattr(startsearch, "settle_on_start", lambda image, h, *args, **kw: short)
    fit = startsearch.fit_on_start(start.image, orient)
    assert corner_error(fit.setup, start.corners) < 0.1
    assert fit.mismatches == []


def _own_hard_start(seed: int, number: int) -> Rendered:
    """The start position in scene ``number`` of the project's own hard set ``seed``,
    drawn as the benchmark draws it."""
    own = next(itertools.islice(own_scenes(seed, hard=True), number, None))
    return render(START_BOARD, own.scene, seed=own.render_seed)


def test_a_start_reading_grid_the_model_doubts_is_not_taken_at_once(monkeypatch):
    # a small board under a lamp: a grid round it reads the table as empty felt and
    # the board, all glare, as unread, so it reads the start position; the model
    # sees the table's squares are no board's
    r = _own_hard_start(63, 4)
    fit = startsearch.fit_on_start(r.image)
    assert corner_error(fit.setup, r.corners) < 0.5
    assert fit.mismatches == [] and fit.doubt is None
    monkeypatch.setattr(startsearch, "DOUBTED", 1.0)  # the premise: taken at once without
    table = startsearch.fit_on_start(r.image)
    assert corner_error(table.setup, r.corners) > 2
    assert table.mismatches == []


def test_a_doubted_grid_no_other_betters_is_kept_and_the_user_told():
    r = _own_hard_start(63, 69)
    result = calibrate_image(r.image)
    assert result.fit.doubt is not None and result.fit.doubt > startsearch.DOUBTED
    assert result.calibration.start_position_ok
    assert any("the learned model doubts that its squares are the board's" in w
               for w in result.warnings)


def _placings(monkeypatch) -> list[StartFit | None]:
    """What each grid the search tries to place gives (None: not taken), in order."""
    placed = startsearch.placed
    taken: list[StartFit | None] = []

    def recorded(image, h, orient, made, whole=False, n=8):
        fit = placed(image, h, orient, made, whole, n)
        taken.append(fit)
        return fit

    monkeypatch.setattr(startsearch, "placed", recorded)
    return taken


@pytest.mark.parametrize(("seed", "number", "placings"), [
    # the likeliest, moved all the way, strays; moved coarsely, it reads it
    (135, 74, [False, True]),
    # dim, a lamp over the a1 corner: the likeliest reads it neither way, nor the
    # next moved coarsely; the third, moved coarsely, reads it on the board, and
    # moved all the way it leans a square and a half off at a1, the table there read
    # as empty felt, and reads it too: the less doubted, the coarse one, is kept
    (13, 131, [False, False, False, True, True]),
    # a dark board under a lamp: no grid moved reads it (the likeliest moved all the
    # way, then the six and the likeliest place's second grid moved coarsely), the
    # felt outline's guess as it is does
    (19, 132, [False] * (2 + startsearch.SHORT_TRIES) + [True]),
])
def test_the_search_takes_what_reads_the_start_position_where_it_used_to_refuse(
        monkeypatch, seed, number, placings):
    r = _own_hard_start(seed, number)
    # the outlines the picture's edges close, offered since these were chosen, take
    # 19/132 at the first placing: left out, so that the steps after stay exercised
    monkeypatch.setattr(startsearch, "contour_outlines", lambda image: [])
    taken = _placings(monkeypatch)
    said: list[str] = []
    fit = startsearch.fit_on_start(r.image, None, said.append)
    assert said == [startsearch.SEARCHING]  # no grid offered was taken at once
    assert corner_error(fit.setup, r.corners) < 0.5
    assert fit.mismatches == []
    # the placings tried up to the one taken: the exact sequence is the renders' (it
    # has differed between builds of the image libraries); the last is taken, or
    # the last two, a grid moved coarsely and the same moved all the way, of which
    # the one the model doubts less is kept
    assert taken and taken[-1] is not None and len(taken) <= len(placings)
    assert all(f is None for f in taken[:-2])
    kept = [f for f in taken[-2:] if f is not None]
    assert fit is min(kept, key=lambda f: startjudge.grid_doubt(r.image, f))


def test_of_two_grids_taken_the_one_the_model_doubts_less_is_kept(start):
    image = start.image
    on, off = (startjudge.fit_grid(image, h, None, []) for h in
               (start.homography, moved_by_squares(start.homography, 0.5, 0.5)))
    assert startjudge.grid_doubt(image, on) < startjudge.grid_doubt(image, off)  # premise
    assert startsearch._less_doubted(image, off, on) is on
    assert startsearch._less_doubted(image, on, off) is on
    assert startsearch._less_doubted(image, off, off) is off


def test_the_finders_grid_kept_when_nothing_reads_the_start_carries_the_models_doubt():
    # own hard scene 312/68: a reflection over two thirds of the board; the finder's
    # grid is a strip of its left third, contradicting nothing with 38 squares unread,
    # and no grid the search tries is taken
    r = own_start_picture(312, 68)
    result = calibrate_image(r.image)
    assert corner_error(result.fit.setup, r.corners) > 2  # the premise
    assert result.fit.doubt is not None and result.fit.doubt > startsearch.DOUBTED
    assert any("the learned model doubts that its squares are the board's" in w
               for w in result.warnings)
