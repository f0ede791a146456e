"""A lamp's reflection on rendered boards: `?` only where it truly hides a square.

The reflections are painted onto a clean render (see ``reflections.py``), so each
test knows exactly what lies under the spot.
"""

from __future__ import annotations

import numpy as np
import pytest
from reflections import reflection_over

from controller.measure.evaluation import align_to_truth, calibrate_on_start
from controller.synth.picture import Scene, render
from controller.vision.pipeline import auto_setup
from controller.vision.reading.glare import washed_felt, white_tint

DISCS = {10: "O", 11: "O", 12: "X", 18: "O", 19: "X", 20: "O", 21: "X", 26: "O", 27: "O",
         28: "X", 29: "X", 35: "X", 36: "O", 37: "X", 42: "X", 43: "O", 45: "O"}
BOARD = "".join(DISCS.get(i, "-") for i in range(64))
SCENE = Scene(tilt_deg=20, rotation_deg=4, noise=0.01, blur=0.5)


@pytest.fixture(scope="module")
def calibrated():
    setup, ok = calibrate_on_start(SCENE, 5)
    assert ok
    return setup.reader(), render(BOARD, SCENE, seed=5)


def _wrong(board: str) -> list[tuple[int, str, str]]:
    return [(i, BOARD[i], c) for i, c in enumerate(board) if c != "?" and c.upper() != BOARD[i]]


def test_a_white_disc_under_a_partial_reflection_reads_white(calibrated):
    reader, r = calibrated
    reading = reader.read(reflection_over(r, 27, sigma=0.6, peak=0.7))
    assert reading.board[27] == "O"
    assert _wrong(reading.board) == []


def test_a_black_disc_under_a_small_reflection_is_never_read_white(calibrated):
    reader, r = calibrated
    for sigma, peak in ((0.5, 0.5), (0.6, 0.7), (0.8, 0.9)):
        reading = reader.read(reflection_over(r, 28, sigma=sigma, peak=peak))
        assert reading.board[28] in "X?", (sigma, peak)
        assert _wrong(reading.board) == [], (sigma, peak)


@pytest.mark.parametrize(("square", "sigma", "peak"), [(28, 0.5, 1.6), (28, 0.6, 1.6),
                                                    (33, 0.6, 1.3), (33, 0.8, 1.3)])
def test_a_small_reflection_that_clips_a_top_white_names_nothing_there(calibrated, square, sigma,
                                                                        peak):
    # a spot no wider than a disc clips a black disc's top (28) or the felt (33)
    # white and leaves the ring round it unclipped: the square then looks like a
    # white disc, so neither the rules nor the learned model may name it
    reader, r = calibrated
    reading = reader.read(reflection_over(r, square, sigma=sigma, peak=peak))
    assert reading.board[square] == "?"
    assert _wrong(reading.board) == []


def test_squares_the_reflection_clips_entirely_read_glare(calibrated):
    reader, r = calibrated
    reading = reader.read(reflection_over(r, 28, sigma=1.5, peak=2.5))
    for sq in (27, 28, 35, 36):
        assert reading.board[sq] == "?" and reading.reasons[sq] == "glare"
    assert _wrong(reading.board) == []
    # far from the spot the board still reads
    assert reading.board[:8] == BOARD[:8] and reading.board[56:] == BOARD[56:]


def test_white_discs_a_green_light_tints_alike_read_white():
    # every white disc greenish: that is the light, not felt washed out by a lamp
    scene = Scene(tilt_deg=15, rotation_deg=3, noise=0.01, blur=0.8, cast=(0.86, 1.14, 0.86))
    r = render(BOARD, scene, seed=3)
    reading = align_to_truth(auto_setup(r.image), r.corners).reader().read(r.image)
    assert reading.board == BOARD


def test_white_discs_on_a_felt_nearly_as_bright_read_white():
    # an exposure that clips the white discs leaves them little brighter than the
    # felt: the ring round each is then felt at the felt's own level, not glare
    scene = Scene(tilt_deg=20, rotation_deg=4, noise=0.01, blur=0.8, felt_tone=1.25, light=2.4)
    r = render(BOARD, scene, seed=7)
    setup = align_to_truth(auto_setup(r.image), r.corners)
    assert setup.model.white_log < 0.6  # the white discs are under twice the felt's grey
    assert setup.reader().read(r.image).board == BOARD


def test_white_discs_in_a_dim_bluish_room_are_not_felt():
    # dim light and a blue cast give white discs the felt's hue; the felt must
    # still be told from them by its brightness, and read as empty
    scene = Scene(tilt_deg=25, rotation_deg=8, noise=0.035, blur=1.2, light=0.32,
                  warmth=-0.5, felt_tone=0.72)
    r = render(BOARD, scene, seed=4)
    reading = align_to_truth(auto_setup(r.image), r.corners).reader().read(r.image)
    assert _wrong(reading.board) == []
    assert all(reading.board[sq] == "O" for sq, ch in DISCS.items() if ch == "O")
    assert reading.board.count("?") <= 4


def test_washed_out_felt_keeps_green_a_white_disc_does_not():
    grey = np.array([200.0, 200.0, 120.0])
    lead = np.array([30, 6, 2])  # washed felt, a faintly tinted white disc, a grey disc
    assert washed_felt(lead, grey, plain=50.0, white=None).tolist() == [True, False, False]
    # where the light tints white discs as green as that, it is not felt
    assert not washed_felt(lead, grey, plain=50.0, white=(0.12, 0.14))[0]


def test_the_white_discs_tint_needs_enough_plain_discs():
    tint = np.full(64, 4.0)
    grey = np.full(64, 200.0)
    tops = np.full((64, 10, 3), 200, np.uint8)
    plain = np.zeros(64, bool)
    plain[:2] = True
    assert white_tint(tint, grey, tops, plain) is None
    plain[:5] = True
    med, hi = white_tint(tint, grey, tops, plain)
    assert med == pytest.approx(0.02) and hi == pytest.approx(0.02)
    tops[:5] = 250  # clipped: no measure of their tint, unless every one is
    assert white_tint(tint, grey, tops, plain) is None
    assert white_tint(tint, grey, tops, plain, clipped_too=True) is not None


@pytest.mark.parametrize("offset", [-0.2, 0.0])
def test_a_band_of_light_over_a_corner_square_between_shadows_reads_felt(offset):
    # blinds: the corner square's felt lit, its neighbours in shade; its own felt
    # corners, not only the darker ones round it, say how bright felt is there
    from controller.measure.evaluation import aligned_grid
    from controller.position import START_BOARD
    from controller.vision.calibrating.search import fit_on_start

    r = render(START_BOARD, SCENE, seed=5)
    cx, cy = r.square_centre(63)
    d = np.array([cx, cy]) - r.corners.mean(axis=0)
    d /= np.linalg.norm(d)
    px = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 8
    ys, xs = np.mgrid[0:r.image.shape[0], 0:r.image.shape[1]]
    along = ((xs - cx) * d[0] + (ys - cy) * d[1]) / px
    lit = (along > offset) & (along < offset + 0.8)
    image = (r.image * np.where(lit, 1.0, 0.45)[..., None]).astype(np.uint8)
    fit = fit_on_start(image, lambda h: aligned_grid(h, r.corners))
    assert fit.mismatches == []
    assert fit.reading.board[63] == "-"
