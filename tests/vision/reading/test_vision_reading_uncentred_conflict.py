"""A square's two looks disagreeing on the colour: the centred one and the search
for a disc off its centre. The square is `?` (the learned model may settle it),
not the colour the search saw."""

from __future__ import annotations

import numpy as np

from controller.measure.evaluation import (
    aligned_grid,
    corner_error,
    fit_on_picture,
    own_start_picture,
)
from controller.squares import parse_square
from controller.vision.calibrating.judge import fit_grid
from controller.vision.pipeline import found_grid

#: Own hard set 255, scene 109: a lamp's reflection over d5, and the search for an
#: off-centre disc on e4 takes in its light, seeing a white disc pushed off centre
#: where the centred look sees the black one plainly darker than the felt.
LIT_BESIDE = (255, 109)


def test_a_black_disc_the_off_centre_search_sees_white_is_not_read_white():
    start = own_start_picture(*LIT_BESIDE)
    h, _ = found_grid(start.image)
    fit = fit_grid(start.image, h, lambda g: aligned_grid(g, start.corners), [])
    e4 = parse_square("e4")
    assert np.isfinite(fit.reading.log_ratio[e4]) and fit.reading.log_ratio[e4] < 0
    assert fit.reading.board[e4] in "X?"
    assert fit.mismatches == []


def test_so_a_right_set_up_is_not_refused_for_a_disc_of_the_other_colour():
    start = own_start_picture(*LIT_BESIDE)
    fit = fit_on_picture(start)
    assert fit is not None and fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 1 / 3
