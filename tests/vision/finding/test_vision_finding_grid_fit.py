"""Placing the grid exactly: on its lines past rows of discs, on the discs where no
line shows, and never on a lattice of the wrong size that the square model doubts."""

from __future__ import annotations

import numpy as np
import pytest

from controller.measure.evaluation import align_to_truth
from controller.synth.picture import Scene, render
from controller.vision.finding.disc_lattice import refine_on_discs
from controller.vision.finding.finder import BoardFit, _Candidate, _taken_on_sight
from controller.vision.finding.grid import refine_on_grid
from controller.vision.finding.grid_check import not_squares, square_doubts
from controller.vision.geometry import corners_of, homography_from_corners
from controller.vision.pipeline import DISC_HEIGHT, auto_setup
from controller.vision.reading.square_model import default_model

# rows of discs across the far half of a steeply seen board: their dark lower rims
# are stripes with felt beside them, right next to the far grid lines
FAR_ROWS = "------------XOOO----XOOXO---OXXXOO--XXOOXO----------------------"
# a late position, 56 discs: hardly a grid line shows between them
FULL = "XXOXXXOOXOXXXXOOXOXXXXOO-XOOXXXOX-OOXXX-OOOOX-O-OOOOOO-OXXXOOXOX"
DARK_FULL = Scene(tilt_deg=32, felt_tone=0.45, line_light=0.8, line_weight=0.6, light=0.5,
                  frame_style="wood", table="wood")


def _error(h: np.ndarray, truth: np.ndarray) -> float:
    """Largest corner error, in squares."""
    cell = float(np.linalg.norm(truth[1] - truth[0])) / 8
    return float(np.abs(corners_of(h) - truth).max()) / cell


@pytest.mark.parametrize("seed,tilt", [(0, 40), (0, 45), (2, 40), (2, 45)])
def test_rows_of_discs_do_not_pull_the_grid_off_its_lines(seed, tilt):
    r = render(FAR_ROWS, Scene(tilt_deg=tilt, line_light=0.5, line_weight=0.7), seed=seed)
    truth = np.asarray(r.corners, float)
    cell = float(np.linalg.norm(truth[1] - truth[0])) / 8
    start = truth.copy()
    start[:2, 1] -= 0.35 * cell  # the far edge a third of a square too far
    h, score = refine_on_grid(r.image, homography_from_corners(start))
    assert _error(h, truth) < 0.1
    assert score > 0.5


@pytest.mark.parametrize("seed", [0, 1])
def test_a_full_board_is_placed_by_its_discs(seed):
    r = render(FULL, DARK_FULL, seed=seed)
    truth = np.asarray(r.corners, float)
    cell = truth[1] - truth[0]
    start = truth.copy()
    start[1] += 0.7 * np.array([cell[1], -cell[0]]) / 8 + 0.2 * cell / 8  # one corner off
    before = _error(homography_from_corners(start), truth)
    h = refine_on_discs(r.image, homography_from_corners(start), DISC_HEIGHT)
    assert h is not None
    assert before > 0.5
    assert _error(h, truth) < 0.25


def test_a_board_without_discs_gives_no_placement_by_discs():
    r = render("-" * 64, DARK_FULL, seed=3)
    assert refine_on_discs(r.image, homography_from_corners(np.asarray(r.corners, float)),
                           DISC_HEIGHT) is None


def _sure(h: np.ndarray) -> _Candidate:
    """A candidate whose line cues alone would make it sure."""
    return _Candidate(BoardFit(corners_of(h), h, 1.0), corners_of(h), net=0.5, lattice=1.0,
                      edge=0.3, felt=0.5, framed=True)


def test_a_sure_lattice_is_still_asked_whether_its_squares_are_squares():
    assert default_model() is not None
    r = render(FULL, Scene(tilt_deg=20), seed=4)
    truth = np.asarray(r.corners, float)
    centre = truth.mean(axis=0)
    too_big = homography_from_corners(centre + 1.3 * (truth - centre))
    half_off = homography_from_corners(truth + 0.5 * (truth[1] - truth[0]) / 8)
    assert _taken_on_sight(r.image, _sure(homography_from_corners(truth)))
    assert not _taken_on_sight(r.image, _sure(too_big))
    assert not _taken_on_sight(r.image, _sure(half_off))


def test_squares_outside_the_picture_count_as_doubted():
    model = default_model()
    assert model is not None
    r = render(FULL, Scene(tilt_deg=10, board_fraction=0.6), seed=5)
    truth = np.asarray(r.corners, float)
    hanging = homography_from_corners(truth + np.array([0.7 * r.image.shape[1], 0.0]))
    assert not_squares(r.image, hanging, DISC_HEIGHT, model) is None
    doubts = square_doubts(r.image, hanging, DISC_HEIGHT, model)
    assert doubts is not None and (doubts == 1.0).sum() >= 16
    on_board = not_squares(r.image, homography_from_corners(truth), DISC_HEIGHT, model,
                           cut_off_doubted=True)
    assert on_board is not None and on_board < 0.3


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_white_disc_placed_a_quarter_square_off_is_not_taken_for_glare(seed):
    """Its edge shows in the top's pattern where the grid puts it; where its bright
    part is, the top is as even as any white disc's (the real photo has one)."""
    board = "".join({27: "O", 28: "X", 35: "X", 36: "O", 37: "O"}.get(i, "-") for i in range(64))
    shifts = {37: (0.25, -0.05)}  # f5, a quarter of a square to the right
    r = render(board, Scene(tilt_deg=25, noise=0.01, blur=0.6), seed=seed, shifts=shifts)
    setup = align_to_truth(auto_setup(r.image), np.asarray(r.corners, float))
    reading = setup.reader().read(r.image)
    assert reading.board[37] in "Oo", (reading.board[37], reading.reasons[37])
    assert reading.glare is not None and not reading.glare[37]


def _top_down_layout():
    """A layout seen straight from above: 40 pixels a square, no disc-top offset."""
    from controller.vision.sampling import make_layout

    h = np.array([[40.0, 0, 60], [0, 40.0, 60], [0, 0, 1]])
    return make_layout(h, (440, 440), DISC_HEIGHT)


def test_an_off_centre_white_top_is_judged_where_its_bright_part_is():
    from controller.vision.reading.glare import UNEVEN_TOP, _even_where_bright
    from controller.vision.sampling import CELL

    lay = _top_down_layout()
    side = lay.side
    ys, xs = np.divmod(np.arange(side * side), side)
    sq = 27
    cx, cy = lay.centres[sq]
    r = np.hypot(xs - (cx + 0.25 * CELL), ys - cy)
    grey = np.full(side * side, 60.0)
    grey[r <= 0.43 * CELL] = 200.0  # a white disc a quarter of a square right
    grey[(r > 0.36 * CELL) & (r <= 0.43 * CELL)] = 30.0  # ... and its dark bevel
    felt = grey == 60.0
    top = grey[lay.top[sq]][~felt[lay.top[sq]]]
    limit = np.array([UNEVEN_TOP * 200.0])
    assert np.percentile(top, 90) - np.percentile(top, 10) > limit[0]  # uneven at the centre
    assert _even_where_bright(lay, grey, felt, np.array([sq]), limit, np.array([200.0]))[0]
    # a reflection on a black disc in its square is uneven wherever it is looked at
    spot = np.full(side * side, 60.0)
    d = np.hypot(xs - cx, ys - cy)
    spot[d <= 0.43 * CELL] = 30.0 + 190.0 * np.exp(-(d[d <= 0.43 * CELL] / (0.15 * CELL)) ** 2)
    assert not _even_where_bright(lay, spot, spot == 60.0, np.array([sq]), limit,
                                  np.array([200.0]))[0]
