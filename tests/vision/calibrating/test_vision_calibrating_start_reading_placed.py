"""Calibration's last resort under a reflection over the middle of the board: a grid
that reads three start discs in place is taken though many squares stay unread,
and no grid whole squares off the board can read three."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import numpy as np
import pytest

import controller.vision.calibrating.judge as startjudge
import controller.vision.calibrating.search as startsearch
from controller.measure.evaluation import aligned_grid, corner_error, own_start_picture
from controller.position import START_BOARD
from controller.synth.picture import Rendered
from controller.vision.calibrating.fit import StartFit
from controller.vision.calibrating.start_reading import start_discs_right, start_of
from controller.vision.finding.finder import BoardNotFound
from controller.vision.finding.grid_check import CONFIRMED
from controller.vision.geometry import homography_from_corners

START_DISCS = start_of().discs

SWAPPED = {"X": "O", "O": "X"}


def _seen_through(dx: int, dy: int, turned: bool) -> str:
    """What a grid moved ``dx`` files and ``dy`` ranks off the board reads where
    every square shows what lies under it (off the board: nothing), its colours
    swapped when it is read a quarter turn round."""
    seen = []
    for i in range(64):
        file, rank = i % 8 + dx, i // 8 + dy
        disc = START_BOARD[rank * 8 + file] if 0 <= file < 8 and 0 <= rank < 8 else "-"
        seen.append(SWAPPED.get(disc, disc) if turned else disc)
    return "".join(seen)


@pytest.mark.parametrize("turned", [False, True])
def test_no_grid_whole_squares_off_reads_as_many_start_discs_as_are_asked(turned):
    assert start_discs_right(SimpleNamespace(board=_seen_through(0, 0, False))) == 4
    for dx, dy in itertools.product(range(-7, 8), repeat=2):
        if (dx, dy) == (0, 0):
            continue
        reading = SimpleNamespace(board=_seen_through(dx, dy, turned))
        assert start_discs_right(reading) < startsearch.PLACED_DISCS, (dx, dy)


@pytest.fixture(scope="module")
def reflection_over_the_middle() -> Rendered:
    """Own hard scene 160/157: a board cut off by the picture's edge under a lamp's
    reflection that covers half of it; three start discs show. On its own grid
    over 8 squares read ``?`` and the model's doubt sits just over ``CONFIRMED``."""
    return own_start_picture(160, 157)


def _own_grid_fit(start: Rendered, moved: tuple[int, int] = (0, 0),
                  a1_known: bool = True) -> StartFit:
    h = homography_from_corners(start.corners)
    h = h @ np.array([[1, 0, moved[0]], [0, 1, moved[1]], [0, 0, 1]], float)
    orient = (lambda g: aligned_grid(g, start.corners)) if a1_known else None
    return startjudge.fit_grid(start.image, h, orient, [])


def test_the_boards_own_grid_under_the_reflection_is_taken_by_its_discs(
        reflection_over_the_middle):
    start = reflection_over_the_middle
    fit = _own_grid_fit(start)
    assert fit.mismatches == []
    assert len(fit.unknown) > startjudge.MAX_UNREAD
    assert start_discs_right(fit.reading) >= startsearch.PLACED_DISCS
    assert CONFIRMED <= startjudge.grid_doubt(start.image, fit) < startsearch.PLACED_DOUBT
    assert startsearch._discs_placed(start.image, [fit]) is fit


def test_the_same_grid_moved_a_square_is_not_taken(reflection_over_the_middle):
    start = reflection_over_the_middle
    for moved in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (-1, -1)):
        fit = _own_grid_fit(start, moved, a1_known=False)  # free to be read turned
        assert startsearch._discs_placed(start.image, [fit]) is None, moved


def test_a_grid_the_model_doubts_more_is_not_taken(reflection_over_the_middle, monkeypatch):
    start = reflection_over_the_middle
    fit = _own_grid_fit(start)
    monkeypatch.setattr(startjudge, "grid_doubt", lambda image, f: startsearch.PLACED_DOUBT)
    assert startsearch._discs_placed(start.image, [fit]) is None


def test_calibration_ends_on_the_discs_when_every_other_way_refuses(
        reflection_over_the_middle, monkeypatch):
    start = reflection_over_the_middle
    own = homography_from_corners(start.corners)

    def nothing(image: np.ndarray, n: int = 8) -> tuple[np.ndarray, float]:
        raise BoardNotFound("no board in the image")

    monkeypatch.setattr(startsearch, "found_grid", nothing)
    monkeypatch.setattr(startsearch, "board_grids", lambda image, n=8: [own])
    monkeypatch.setattr(startsearch, "_settled", lambda *args: None)
    monkeypatch.setattr(startsearch, "disc_guesses", lambda image, n=8: [])
    orient = lambda h: aligned_grid(h, start.corners)  # noqa: E731
    fit = startsearch.fit_on_start(start.image, orient)
    assert fit.mismatches == [] and len(fit.unknown) > startjudge.MAX_UNREAD
    assert corner_error(fit.setup, start.corners) < 0.1
    monkeypatch.setattr(startsearch, "PLACED_DISCS", len(START_DISCS) + 1)
    with pytest.raises(BoardNotFound):
        startsearch.fit_on_start(start.image, orient)
