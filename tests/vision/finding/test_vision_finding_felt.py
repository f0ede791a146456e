"""The felt's outline when a lamp's reflection washes out part of it: the cut
across a corner can be a longer straight run than the side it shortened, and a
cut right across the board looks like a side, so the outline's quad is not the
board's, but one of the guessed outlines is near it. So too when a dim room's
noise speckles felt and table alike."""

from __future__ import annotations

import numpy as np

import controller.vision.finding.felt as finder_felt
from controller.measure.evaluation import grid_error
from controller.synth.picture import START_BOARD, Rendered, Scene, render
from controller.vision.cv import components, cv2
from controller.vision.finding.felt import coarse_quads, outline_guesses
from controller.vision.geometry import homography_from_corners, upright_order

# a board seen in perspective: its far side is half its near side
BOARD = np.array([[200, 100], [440, 100], [560, 420], [80, 420]], np.float64)
SQUARE = 240 / 8  # the far side's squares, the smallest


def _felt_with_glare_on_a_corner() -> np.ndarray:
    image = np.full((480, 640, 3), (150, 170, 190), np.uint8)  # a beige table
    frame = BOARD + np.array([[-14, -12], [14, -12], [18, 12], [-18, 12]])
    cv2.fillPoly(image, [frame.astype(np.int32)], (30, 30, 30))
    cv2.fillPoly(image, [BOARD.astype(np.int32)], (40, 120, 30))
    # the reflection, clipped white in its middle, over the far left corner
    cv2.circle(image, (200, 100), 120, (250, 250, 250), -1)
    return image


def _off(quad: np.ndarray) -> float:
    """Farthest corner from the board's, in the far side's squares."""
    return float(np.linalg.norm(upright_order(quad) - BOARD, axis=1).max()) / SQUARE


def test_the_four_longest_runs_miss_a_corner_a_reflection_washed_out():
    # the premise: the outline's own quad cuts the corner (else this tests nothing)
    assert min(_off(q) for q in coarse_quads(_felt_with_glare_on_a_corner())) > 1.5


def test_a_guess_from_the_outline_runs_restores_the_washed_out_corner():
    guesses = outline_guesses(_felt_with_glare_on_a_corner())
    assert min(_off(q) for q in guesses) < 0.2


def test_no_felt_no_guesses():
    assert outline_guesses(np.full((480, 640, 3), (150, 170, 190), np.uint8)) == []


def _felt_under_a_band_of_light() -> np.ndarray:
    """The reflection lies right across the board's far part: the felt's outline
    stops at a straight cut that it takes for the far side."""
    image = np.full((480, 640, 3), (150, 170, 190), np.uint8)
    cv2.fillPoly(image, [BOARD.astype(np.int32)], (40, 120, 30))
    cv2.rectangle(image, (0, 60), (639, 230), (250, 250, 250), -1)
    return image


def test_a_side_pushed_out_guesses_felt_a_band_of_light_hides():
    image = _felt_under_a_band_of_light()
    assert min(_off(q) for q in coarse_quads(image)) > 2.0  # the premise
    assert min(_off(q) for q in outline_guesses(image)) < 1.0


def test_felt_regions_are_labelled_whatever_their_number():
    mask = np.zeros((800, 800), np.uint8)
    mask[::3, ::3] = 1  # 71,289 specks: more than 16-bit labels hold
    n, labels, stats, _ = components(mask)
    assert n == 1 + 71_289 and labels.max() == 71_289
    mask[:] = 0
    mask[100:200, 300:500] = 1
    n, labels, stats, _ = components(mask)
    assert n == 2 and stats[1, cv2.CC_STAT_AREA] == 100 * 200


# a dim room: the sensor's noise passes or fails single pixels of felt and cloth alike
DIM = Scene(tilt_deg=30, rotation_deg=-5, light=0.3, light_gradient=0.2, shadow=True,
            glare=True, noise=0.05, blur=1.6, board_fraction=0.7, table="cloth",
            vignette=0.35, warmth=-0.4)


def _nearest(guesses: list[np.ndarray], r: Rendered) -> float:
    """Squares the nearest guess lies off the board at its worst corner."""
    return min(grid_error(homography_from_corners(q), r.corners) for q in guesses)


def test_a_noisy_dim_felt_is_guessed_where_green_pixels_are_dense(monkeypatch):
    r = render(START_BOARD, DIM, seed=3)
    with monkeypatch.context() as m:  # the premise: the hue and chroma masks miss it
        m.setattr(finder_felt, "_dense_regions", lambda small: [])
        assert _nearest(outline_guesses(r.image), r) > 1.5
    assert _nearest(outline_guesses(r.image), r) < 0.5
