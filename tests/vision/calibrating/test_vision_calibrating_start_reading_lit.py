"""A black start disc a lamp lights up to white is excused as glare, but a white
disc set on a black start square is not: something must show the lamp. And a start
disc the reader leaves unread is named when the learned model surely sees it wrong."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from controller.measure.evaluation import corner_error, own_scenes
from controller.position import START_BOARD
from controller.synth.picture import render
from controller.vision.calibrating.search import fit_on_start
from controller.vision.calibrating.start_reading import (
    ModelView,
    against_start,
    lit_black_unknown,
    model_read,
)
from controller.vision.reading.board_reading import GLARE, Reading
from controller.vision.reading.square_model import CLASSES

E4 = 28  # a black start square


def _reading(glare_on_e4: bool = False) -> Reading:
    """The start position with a white disc read on e4."""
    zeros = np.zeros(64)
    glare = np.zeros(64, bool)
    glare[E4] = glare_on_e4
    return Reading(board=START_BOARD[:E4] + "O" + START_BOARD[E4 + 1:], confidence=np.ones(64),
                   felt_top=zeros, felt_base=zeros, log_ratio=zeros, foreign=zeros,
                   felt_grey=zeros + 80, felt_corners=zeros, blocked=np.zeros(64, bool),
                   glare=glare, reasons=("",) * 64)


def _model_sees(state: str) -> ModelView:
    return ModelView(doubt=0.02, seen={E4: state}, probabilities={})


def test_a_white_disc_the_model_sees_with_no_sign_of_a_lamp_stays_a_contradiction():
    r = lit_black_unknown(_reading(), (E4,), (), _model_sees("O"))
    assert r.board[E4] == "O"


@pytest.mark.parametrize("lamp", ["model sees black", "no model", "top clipped", "reader's glare",
                                  "other black disc lit"])
def test_a_sign_of_the_lamp_excuses_the_lit_disc(lamp):
    view = None if lamp == "no model" else _model_sees("X" if lamp == "model sees black" else "O")
    lit = (E4, 35) if lamp == "other black disc lit" else (E4,)
    washed = (E4,) if lamp == "top clipped" else ()
    r = lit_black_unknown(_reading(glare_on_e4=lamp == "reader's glare"), lit, washed, view)
    assert r.board[E4] == "?" and r.reasons[E4] == GLARE


def _unread_e4() -> Reading:
    """The start position with e4 left unread by the reader for glare."""
    r = _reading()
    return Reading(**{**r.__dict__, "board": START_BOARD[:E4] + "?" + START_BOARD[E4 + 1:],
                      "reasons": tuple(GLARE if i == E4 else "" for i in range(64))})


def _model_sure(state: str, p: float, doubt: float = 0.02) -> ModelView:
    row = np.full(len(CLASSES), (1 - p) / (len(CLASSES) - 1))
    row[CLASSES.index(state)] = p
    return ModelView(doubt=doubt, seen={E4: state}, probabilities={E4: row})


@pytest.mark.parametrize("state", ["O", "-"])
def test_an_unread_start_disc_the_model_surely_sees_otherwise_contradicts_the_start(state):
    r = model_read(_unread_e4(), _model_sure(state, 0.97), [E4])
    assert r.board[E4] == state and E4 in r.learned and r.reasons[E4] == ""
    assert against_start(r, []) == [E4]


@pytest.mark.parametrize("why", ["unsure", "sees the start's disc", "grid doubted",
                                 "excused for a lamp"])
def test_an_unread_start_disc_stays_unread_unless_the_model_is_sure_on_a_confirmed_grid(why):
    view = {"unsure": _model_sure("O", 0.8),
            "sees the start's disc": _model_sure("X", 0.99),
            "grid doubted": _model_sure("O", 0.99, doubt=0.5),
            "excused for a lamp": _model_sure("O", 0.99)}[why]
    unread_by_reader = [] if why == "excused for a lamp" else [E4]
    r = model_read(_unread_e4(), view, unread_by_reader)
    assert r.board[E4] == "?" and r.learned == ()


def test_a_black_disc_a_lamp_tints_still_shows_the_lamp_over_the_other():
    # own hard scene: a lamp mirrored in both black start discs tints part of e4's
    # top a colour the reader takes for something over it (e4 unread) and lifts d5
    # as bright as a white disc; e4, measured bright, shows the lamp
    own = next(itertools.islice(own_scenes(218, hard=True), 17, None))
    start = render(START_BOARD, own.scene, seed=own.render_seed)
    fit = fit_on_start(start.image)
    assert fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 0.5
    assert fit.reading.board[E4] == "?" and fit.reading.reasons[35] == GLARE
