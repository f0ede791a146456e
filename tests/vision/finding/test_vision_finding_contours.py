"""Outlines the picture's edges close: a board on a cloth the felt's own colour,
which the felt's outline cannot part from the table, is still outlined by its
frame; a flat picture, a round cup or a lamp's reflection give no outline."""

from __future__ import annotations

import numpy as np
import pytest

from controller.vision.cv import cv2
from controller.vision.finding.contours import contour_outlines
from controller.vision.finding.felt import outline_guesses
from controller.vision.geometry import upright_order

FELT = (40, 120, 30)  # BGR
# the playing area seen in perspective, and a wooden frame round it
BOARD = np.array([[220, 130], [430, 120], [500, 390], [150, 400]], np.float64)
FRAME = BOARD + np.array([[-16, -16], [16, -16], [18, 16], [-18, 16]])
SQUARE = 210 / 8  # the far side's squares, the smallest


def _off(quad: np.ndarray, truth: np.ndarray) -> float:
    """Farthest corner from the truth's, in the far side's squares."""
    return float(np.linalg.norm(upright_order(quad) - truth, axis=1).max()) / SQUARE


def _grain(image: np.ndarray, sd: float, seed: int = 0) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0.0, sd, image.shape)
    return np.clip(image + noise, 0, 255).astype(np.uint8)


def _framed_board_on_green_cloth() -> np.ndarray:
    image = np.full((480, 640, 3), FELT, np.uint8)  # a cloth the felt's own green
    cv2.fillPoly(image, [FRAME.astype(np.int32)], (40, 90, 150))  # wood
    cv2.fillPoly(image, [BOARD.astype(np.int32)], FELT)
    return _grain(image, 6.0)


def test_the_felt_outline_cannot_part_the_board_from_a_cloth_of_its_colour():
    # the premise: the felt's guesses all miss the board (else this tests nothing)
    guesses = outline_guesses(_framed_board_on_green_cloth())
    assert all(_off(q, BOARD) > 1.0 for q in guesses)


def test_the_frame_closes_outlines_round_the_board_and_round_the_playing_area():
    outlines = contour_outlines(_framed_board_on_green_cloth())
    assert min(_off(q, FRAME) for q in outlines) < 0.25
    assert min(_off(q, BOARD) for q in outlines) < 0.25


def test_outlines_come_largest_first_in_image_pixels():
    outlines = contour_outlines(_framed_board_on_green_cloth())
    areas = [cv2.contourArea(q.astype(np.float32)) for q in outlines]
    assert areas == sorted(areas, reverse=True)
    assert all(q.shape == (4, 2) for q in outlines)


def test_a_frameless_board_on_a_pale_table_is_outlined_at_any_resolution():
    image = np.full((960, 1280, 3), (190, 200, 205), np.uint8)
    cv2.fillPoly(image, [(BOARD * 2).astype(np.int32)], (20, 40, 15))  # a nearly black felt
    outlines = contour_outlines(_grain(image, 4.0))
    assert min(_off(q / 2, BOARD) for q in outlines) < 0.25


@pytest.mark.parametrize("what", ["flat", "cup", "reflection"])
def test_nothing_four_sided_gives_no_outline(what: str):
    image = np.full((480, 640, 3), (120, 140, 150), np.uint8)
    if what == "cup":
        cv2.circle(image, (320, 240), 60, (60, 60, 160), -1)
    elif what == "reflection":
        glow = np.zeros((480, 640), np.float32)
        cv2.circle(glow, (300, 220), 90, 1.0, -1)
        glow = cv2.GaussianBlur(glow, (0, 0), 25)[..., None]
        image = (image * (1 - glow) + 255 * glow).astype(np.uint8)
    assert contour_outlines(_grain(image, 5.0)) == []
