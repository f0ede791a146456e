"""Which way round the board is when no start disc reads: the learned model's plain
sight of a disc's colour settles the quarter turn, and nothing else does."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from controller.measure.evaluation import own_start_picture
from controller.position import START_BOARD
from controller.squares import parse_square
from controller.synth.picture import Rendered, Scene, render
from controller.vision.calibrating.fit import StartFit, fit_start_position, turn
from controller.vision.calibrating.start_reading import start_of, unread
from controller.vision.calibrating.turn import BY_DISCS, BY_MODEL, UNSETTLED, settle_turn
from controller.vision.geometry import corners_of, homography_from_corners
from controller.vision.pipeline import setup_on_grid
from controller.vision.reading.board_reading import GLARE
from controller.vision.reading.square_model import CLASSES

START_DISCS = start_of().discs

SCENE = Scene(tilt_deg=22, rotation_deg=6, light=0.8, view_from_deg=30)


@pytest.fixture(scope="module")
def start() -> Rendered:
    return render(START_BOARD, SCENE, seed=5)


def _fit(start: Rendered, quarter_turns: int) -> StartFit:
    h = turn(homography_from_corners(start.corners), quarter_turns)
    return fit_start_position(setup_on_grid(start.image, h), start.image, a1_fixed=True)


def _discs_unread(fit: StartFit) -> StartFit:
    """The fit as a reflection over the middle leaves it: no start disc read, and so
    nothing contradicting the start position."""
    return replace(fit, reading=unread(fit.reading, list(START_DISCS), GLARE), mismatches=[],
                   contradicting=[])


def _a1_corner(fit: StartFit, start: Rendered) -> int:
    """The true corner (0 is the renderer's a1) nearest the fit's a1."""
    a1 = corners_of(fit.setup.homography)[0]
    return int(np.argmin(np.linalg.norm(np.asarray(start.corners) - a1, axis=1)))


def test_discs_read_in_their_colours_settle_it_themselves(start):
    fit = _fit(start, 0)
    assert fit.mismatches == []
    assert settle_turn(fit, start.image).by == BY_DISCS


def test_the_model_keeps_a_turn_whose_discs_it_sees_in_their_colours(start):
    settled = settle_turn(_discs_unread(_fit(start, 0)), start.image)
    assert settled.by == BY_MODEL and settled.seen
    assert _a1_corner(settled.fit, start) in (0, 2)


def test_the_model_turns_a_grid_a_quarter_off_back(start):
    off = _discs_unread(_fit(start, 1))
    assert _a1_corner(off, start) in (1, 3)
    settled = settle_turn(off, start.image)
    assert settled.by == BY_MODEL and settled.fit.mismatches == []
    assert _a1_corner(settled.fit, start) in (0, 2)
    # the discs it names are start discs of the turned board, in their colours there
    assert settled.seen and all(settled.fit.reading.board[i] == START_BOARD[i]
                                for i in settled.seen)


def test_nothing_seen_plainly_leaves_the_turn_unsettled(start, monkeypatch):
    fit = _discs_unread(_fit(start, 0))
    model = fit.setup.reader().square_model
    unsure = np.full(len(CLASSES), 1 / len(CLASSES))
    monkeypatch.setattr(type(model), "probabilities",
                        lambda self, x, flips=False: np.tile(unsure, (len(x), 1)))
    settled = settle_turn(fit, start.image)
    assert settled.by == UNSETTLED and settled.fit is fit


def test_discs_read_against_the_brighter_diagonal_turn_the_grid_to_their_colours():
    # own hard scene 308/151: a lamp's reflection beside d5's black disc makes its
    # diagonal the brighter, while the levels fitted on the discs read d5 and e5 in
    # their colours; taken by brightness alone, the calibration was refused for them
    start = own_start_picture(308, 151)
    h = homography_from_corners(start.corners)
    for quarter_turns in (0, 1):  # whichever way round the grid comes
        fit = fit_start_position(setup_on_grid(start.image, turn(h, quarter_turns)),
                                 start.image, a1_fixed=False)
        assert fit.mismatches == [], fit.mismatches
        assert _a1_corner(fit, start) in (0, 2)


def test_a_disc_of_the_other_colour_is_named_in_the_turn_it_contradicts_least():
    # d4 black: the brighter diagonal's turn contradicts the start position on d4
    # alone, the other turn on the three other discs; the set-up is refused either way
    board = list(START_BOARD)
    board[parse_square("d4")] = "X"
    wrong = render("".join(board), SCENE, seed=5)
    h = homography_from_corners(wrong.corners)
    for quarter_turns in (0, 1):
        fit = fit_start_position(setup_on_grid(wrong.image, turn(h, quarter_turns)),
                                 wrong.image, a1_fixed=False)
        assert len(fit.mismatches) == 1
