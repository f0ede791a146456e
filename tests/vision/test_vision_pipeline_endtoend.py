"""End-to-end counting of the camera path, and the reasons a square reads '?'."""

from __future__ import annotations

import json

import numpy as np
import pytest

from calibration.advice import picture_hint, what_to_change
from calibration.camera import calibrate_image
from controller import cli
from controller.measure.evaluation import (
    align_to_truth,
    evaluate_folder,
    load_labelled,
)
from controller.position import START_BOARD
from controller.synth.picture import Scene, render
from controller.vision.calibrating.fit import fit_start_position
from controller.vision.cv import write_image
from controller.vision.finding.finder import BoardNotFound, find_board
from controller.vision.geometry import moved_by_squares
from controller.vision.pipeline import auto_setup, two_clusters
from controller.vision.reading.scoring import EndToEnd

BOARD = "-" * 19 + "XXO" + "-" * 5 + "OXX" + "-" * 5 + "XOOO" + "-" * 4 + "XO" + "-" * 19


def test_a_board_not_found_counts_every_square_wrong():
    t = EndToEnd()
    t.add_not_found("a", START_BOARD)
    t.add("b", START_BOARD, "?" + "x" + START_BOARD[2:], ["occluded", ""] + [""] * 62)
    assert t.scenes == 2 and t.found == 1 and t.squares == 128
    assert t.wrong == 64 + 1  # 'x' on an empty square is wrong ...
    assert t.unknown == 1 and t.reasons["occluded"] == 1 and t.right == 62
    t.add("c", START_BOARD[:27] + "o" + START_BOARD[28:], START_BOARD)
    assert t.wrong == 66  # ... and a centred disc where the truth marks a shifted one
    lines = "\n".join(t.lines("set"))
    assert "found in 2" in lines and "occluded 1" in lines


def test_a_misplaced_board_is_counted():
    t = EndToEnd()
    truth = np.array([[0, 0], [80, 0], [80, 80], [0, 80]], float)
    t.check_corners(truth[[1, 2, 3, 0]] + 3, truth)  # any corner order, a few pixels off
    assert t.misplaced == 0
    t.check_corners(truth + [10, 0], truth)  # a whole square off
    assert t.misplaced == 1


def test_a_labelled_folder_is_measured_end_to_end(tmp_path):
    scene = Scene(tilt_deg=15, rotation_deg=4)
    r = render(BOARD, scene, seed=5)
    write_image(tmp_path / "board.png", r.image)
    write_image(tmp_path / "table.png", np.full((240, 320, 3), 90, np.uint8))
    rows = [BOARD[i : i + 8] for i in range(0, 64, 8)]
    labels = {"board.png": {"board": rows, "style": {"corners": r.corners.tolist()}},
              "table.png": {"board": rows}}
    (tmp_path / "labels.json").write_text(json.dumps(labels))
    assert [p.name for p, _, _ in load_labelled(tmp_path)] == ["board.png", "table.png"]
    t = evaluate_folder(tmp_path)
    assert t.scenes == 2 and t.found == 1 and t.misplaced == 0
    assert t.not_found == ["table.png"]
    assert t.wrong == 64 and t.right + t.unknown == 64
    (tmp_path / "labels.json").write_text("{not json")
    with pytest.raises(ValueError, match="labels.json"):
        load_labelled(tmp_path)


def test_black_discs_spread_under_a_lamp_are_split_from_the_white_ones():
    black = np.linspace(-0.6, 0.3, 20)  # a shiny black disc can be as bright as the felt
    white = np.linspace(0.95, 1.1, 12)
    split = two_clusters(np.concatenate([black, white]))
    assert split is not None and 0.3 < split.cut < 0.95
    assert split.gap == pytest.approx(0.65)
    assert two_clusters(np.linspace(-0.8, 0.2, 30)) is None  # one colour only


def test_a_hand_reads_occluded():
    scene = Scene(tilt_deg=10)
    r = render(BOARD[:30] + "??" + BOARD[32:], scene, seed=3)
    setup = align_to_truth(auto_setup(render(START_BOARD, scene, seed=3).image), r.corners)
    reading = setup.reader().read(r.image)
    hidden = np.flatnonzero(r.occluded)
    assert len(hidden) >= 2
    assert all(reading.board[i] == "?" for i in hidden)
    assert {reading.reasons[i] for i in hidden} == {"occluded"}
    assert all(reading.reasons[i] == "" for i in range(64) if reading.board[i] != "?")


def test_squares_outside_the_picture_say_so_and_calibration_names_the_corner():
    scene = Scene(board_fraction=0.9, offset=(1.0, 1.0), overhang=0.12)
    r = render(START_BOARD, scene, seed=2)
    h, w = r.image.shape[:2]
    assert r.corners[2][0] > w or r.corners[2][1] > h  # h8 is off the picture
    setup = auto_setup(r.image, corners=r.corners)
    reading = setup.reader().read(r.image)
    assert reading.board[63] == "?" and reading.reasons[63] == "outside"
    fit = fit_start_position(setup, r.image, a1_fixed=True)
    advice = " ".join(what_to_change(r.image, fit))
    assert "lower-right corner is outside the picture" in advice


def test_a_wrong_grid_past_the_picture_does_not_send_the_user_to_move_the_camera():
    """A refused grid hanging past the picture's edge where the board itself stays
    clear of it names no corner; green all round says the outline cannot be told."""
    r = render(START_BOARD, Scene(board_fraction=0.6, offset=(0.5, 0.0)), seed=2)
    h, w = r.image.shape[:2]
    corners = np.asarray(r.corners, float)
    assert corners[:, 0].max() < w - 20  # the board stays clear of the right edge
    wide = corners.copy()
    wide[[1, 2], 0] += w  # the grid's right-hand corners past it
    fit = fit_start_position(auto_setup(r.image, corners=wide), r.image, a1_fixed=True)
    assert fit.mismatches
    advice = " ".join(what_to_change(r.image, fit))
    assert "outside the picture" not in advice
    green = r.image.copy()
    green[:] = (40, 140, 40)  # green to every edge: the table as green as the felt
    assert "green reaches across the whole picture" in " ".join(what_to_change(green, fit))


def test_calibration_in_the_dark_says_too_dark():
    dark = render(START_BOARD, Scene(light=0.1, noise=0.01), seed=1).image
    try:
        result = calibrate_image(dark)
    except BoardNotFound as exc:
        assert "too dark" in str(exc)
    else:
        assert any("too dark" in w for w in result.warnings), result.warnings
    assert "too dark" in picture_hint(np.full((48, 64, 3), 8, np.uint8))


def test_recognize_json_names_why_squares_are_unknown(tmp_path, capsys):
    r = render(BOARD[:30] + "??" + BOARD[32:], Scene(tilt_deg=10), seed=3)
    path = tmp_path / "hand.png"
    write_image(path, r.image)
    assert cli.main(["recognize", "--json", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["unknown"] and set(out["unknown"].values()) <= {
        "occluded", "glare", "ambiguous", "outside"}
    assert sorted(out["unknown"]) == sorted(
        f"{'abcdefgh'[i % 8]}{i // 8 + 1}" for i, c in enumerate(out["board"]) if c == "?")


def test_a_dark_dull_board_with_faint_thin_lines_is_found():
    scene = Scene(tilt_deg=20, rotation_deg=8, line_weight=0.4, line_light=0.5,
                  felt_tone=0.5, felt_grey=0.4, noise=0.02, light=0.6)
    r = render(BOARD, scene, seed=9)
    find_board(r.image)  # finds it, and by the grid rather than a guess (below)
    cell = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 8
    ordered = align_to_truth(auto_setup(r.image), r.corners)
    from controller.vision.geometry import corners_of

    assert np.abs(corners_of(ordered.homography) - r.corners).max() < 0.2 * cell


@pytest.mark.parametrize("seed", [4, 5, 6, 7])
def test_a_grid_a_whole_row_off_the_board_is_moved_back(seed):
    """By the felt stopping at the frame, or, where a strip of felt runs on past the
    outer line (some of these boards have one), by the learned square check."""
    from controller.vision.finding.finder import nudge_onto_board
    from controller.vision.finding.grid_check import settle_whole_squares
    from controller.vision.geometry import corners_of
    from controller.vision.pipeline import DISC_HEIGHT
    from controller.vision.reading.square_model import default_model

    def checked(h: np.ndarray) -> np.ndarray:
        return settle_whole_squares(r.image, nudge_onto_board(r.image, h), DISC_HEIGHT,
                                    default_model())

    r = render(BOARD, Scene(tilt_deg=10, frame_style="black", board_fraction=0.7), seed=seed)
    for dx, dy in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        off = moved_by_squares(r.homography, dx, dy)
        assert np.abs(corners_of(checked(off)) - r.corners).max() < 1.0
    assert np.abs(corners_of(checked(r.homography)) - r.corners).max() < 1.0


def test_calibrated_scenes_count_refusals_and_read_every_square():
    from controller.measure.evaluation import evaluate_rendered

    t = evaluate_rendered(3, 31, hard=False, calibrated=True)
    assert t.calibrated == 3 and t.scenes == 3
    assert t.refused + t.unfitted <= 3
    assert t.right + t.wrong + t.unknown == t.squares == 3 * 64
    assert "calibration refused in" in "\n".join(t.lines("set"))
