"""A black start disc a lamp lights up to white is excused as glare, but a white
disc set on a black start square is not: something must show the lamp."""

from __future__ import annotations

import numpy as np
import pytest

from controller.position import START_BOARD
from controller.vision.reading import GLARE, Reading
from controller.vision.startreading import ModelView, lit_black_unknown

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
