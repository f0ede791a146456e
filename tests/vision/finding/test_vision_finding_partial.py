"""Boards cut off by the picture's edge: found in the right place, cut squares
``outside``, the squares that are seen read right."""

from __future__ import annotations

import json

import numpy as np

from controller.measure.crop import best_symmetry, crop_board
from controller.measure.evaluation import align_to_truth, random_position
from controller.synth.picture import Scene, render
from controller.vision.cv import cv2, read_image
from controller.vision.finding.finder import find_board
from controller.vision.finding.partial import near_border, refit_cut_off
from controller.vision.geometry import apply_homography, corners_of
from controller.vision.pipeline import auto_setup
from controller.vision.reading.scoring import EndToEnd


def _outside(h: np.ndarray, width: int, height: int) -> list[int]:
    """Squares whose centre lies outside the picture."""
    centres = np.array([[i % 8 + 0.5, i // 8 + 0.5] for i in range(64)])
    p = apply_homography(h, centres)
    return [i for i in range(64)
            if not (0 <= p[i, 0] < width and 0 <= p[i, 1] < height)]


def test_a_rendered_board_cut_off_on_the_right_is_placed_and_read():
    board = random_position(np.random.default_rng(5))
    scene = Scene(tilt_deg=15, rotation_deg=4, board_fraction=0.8, offset=(1.0, 0.0),
                  overhang=0.15, frame_style="black")
    r = render(board, scene, seed=6)
    h, w = r.image.shape[:2]
    cut = _outside(r.homography, w, h)
    assert len(cut) >= 6  # most of a column at least lies past the picture's edge
    setup = align_to_truth(auto_setup(r.image), r.corners)
    cell = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 8
    assert np.abs(corners_of(setup.homography) - r.corners).max() < 0.3 * cell
    reading = setup.reader().read(r.image)
    wrong = [i for i in range(64) if reading.board[i] not in ("?", board[i], board[i].upper())]
    assert wrong == []
    assert all(reading.board[i] == "?" and reading.reasons[i] == "outside" for i in cut)


def test_a_board_inside_the_picture_is_left_alone():
    for fraction in (0.4, 0.75):  # far from the edges; with felt near them but not cut
        r = render(random_position(np.random.default_rng(2)),
                   Scene(tilt_deg=10, board_fraction=fraction), seed=3)
        fit = find_board(r.image)
        size = (r.image.shape[1], r.image.shape[0])
        assert near_border(fit.homography, size) == (fraction > 0.5)
        assert refit_cut_off(r.image, fit.homography) is fit.homography


def test_the_real_photo_cut_off_reads_no_square_wrong_in_its_own_orientation(data_dir):
    labels = json.loads((data_dir / "photos/lavox/labels.json").read_text())
    rows = labels["images"]["sample.jpg"]["board"]
    truth = "".join(rows).replace("B", "X").replace("W", "O").replace(".", "-")
    image = read_image(data_dir / "photos/lavox/sample.jpg")
    f = 1200 / max(image.shape[:2])
    image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    corners = find_board(image).corners
    for side, share in (("right", 0.2), ("top", 0.1)):
        cropped = crop_board(image, corners, side, share)
        reading = auto_setup(cropped).reader().read(cropped)
        # printed as the photo shows it, like the whole photo (row 1 at the top)
        assert best_symmetry(reading.board, truth) == 0
        tally = EndToEnd()
        tally.add(side, truth, reading.board, list(reading.reasons))
        assert tally.wrong == 0, (side, reading.rows)
        # the squares cut off are outside: the whole last column (first row) and
        # part of its neighbour, where the slanting edge crosses it; no others
        lost = {i for i in range(64) if reading.reasons[i] == "outside"}
        edge = set(range(7, 64, 8)) if side == "right" else set(range(8))
        near = set(range(6, 64, 8)) if side == "right" else set(range(8, 16))
        assert edge <= lost <= edge | near, (side, sorted(lost))
        assert tally.right >= 40, (side, reading.rows)  # what is seen is read
