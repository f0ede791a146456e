"""A disc whose grey falls between the colour model's levels, judged by the frame's
own discs: a black disc catching some light reads black when it stays far nearer
the frame's plain black discs than its white ones, and `?` when it is about as near
to both.

The light is painted onto one black disc of a clean render (its dark pixels made
brighter, the felt round it untouched), so the test knows what lies under it.
"""

from __future__ import annotations

import numpy as np
import pytest

from controller.measure.evaluation import calibrate_on_start
from controller.synth.picture import Rendered, Scene, render
from controller.vision.reading.board_reading import AMBIGUOUS
from controller.vision.reading.squarestats import FRAME_CLUSTER, frame_edges, side_by_frame

DISCS = {10: "O", 11: "O", 12: "X", 18: "O", 19: "X", 20: "O", 21: "X", 26: "O", 27: "O",
         28: "X", 29: "X", 35: "X", 36: "O", 37: "X", 42: "X", 43: "O", 45: "O"}
BOARD = "".join(DISCS.get(i, "-") for i in range(64))
SCENE = Scene(tilt_deg=20, rotation_deg=4, noise=0.01, blur=0.5)
LIT = 28  # the black disc that catches the light


def _lit(r: Rendered, square: int, gain: float) -> np.ndarray:
    """The render with the dark pixels of ``square``'s disc ``gain`` times brighter."""
    px = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 8
    cx, cy = r.square_centre(square)
    h, w = r.image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w]
    out = r.image.astype(np.float32)
    sel = (np.hypot(xs - cx, ys - cy) < 0.45 * px) & (out.max(axis=2) < 90)
    out[sel] *= gain
    return np.clip(out, 0, 255).astype(np.uint8)


@pytest.fixture(scope="module")
def calibrated():
    setup, ok = calibrate_on_start(SCENE, 5)
    assert ok
    return setup, render(BOARD, SCENE, seed=5)


def test_a_black_disc_catching_light_reads_black_beside_the_frames_blacks(calibrated):
    setup, r = calibrated
    reading = setup.reader().read(_lit(r, LIT, 2.0))
    model = setup.model
    # the colour model's levels alone leave it undecided ...
    assert abs(reading.log_ratio[LIT] - model.cut) < model.band
    # ... the frame's own discs do not
    assert reading.board[LIT] == "X"
    assert reading.board == BOARD


def test_a_grey_about_as_near_white_as_black_stays_ambiguous(calibrated):
    setup, r = calibrated
    rules = setup.reader()
    rules.square_model = None
    image = _lit(r, LIT, 3.0)
    reading = rules.read(image)
    assert reading.board[LIT] == "?"
    assert reading.reasons[LIT] == AMBIGUOUS
    assert all(c == BOARD[i] for i, c in enumerate(reading.board) if i != LIT)
    # the learned second opinion, seeing the whole disc, may name it, never as white
    learned = setup.reader().read(image)
    assert learned.board[LIT] in "?X"
    assert all(c == BOARD[i] for i, c in enumerate(learned.board) if i != LIT)


def test_a_frame_with_too_few_plain_discs_decides_nothing():
    ratios = np.array([-0.8] * FRAME_CLUSTER + [1.0] * (FRAME_CLUSTER - 1) + [-0.5, 0.8])
    black, white = ratios < -0.6, ratios > 0.9
    assert frame_edges(ratios, black, white) is None
    assert not side_by_frame(ratios, None).any()
    white[-1] = True  # one more plain white disc: now the frame can judge
    edges = frame_edges(ratios, black, white)
    assert edges == (-0.8, 0.8)
    assert side_by_frame(np.array([-0.5, 0.0, 0.5]), edges).tolist() == [-1, 0, 1]
