"""The learned second opinion on squares the rules leave '?': what it reads, what it
refuses, and that the reader works the same without it."""

from __future__ import annotations

import numpy as np
import pytest

import controller.vision.reading.square_model as square_model
from controller.measure.evaluation import align_to_truth, random_position
from controller.synth.picture import Scene, random_scene, render
from controller.vision.cv import cv2
from controller.vision.geometry import homography_from_corners
from controller.vision.pipeline import DISC_HEIGHT, auto_setup
from controller.vision.reading.square_model import SquareModel, patch_index, patches
from controller.vision.sampling import make_layout, smoothed, warp_to_canvas
from training.square_data import OTHER, scene_examples

MODEL = square_model.default_model()
needs_model = pytest.mark.skipif(MODEL is None, reason="controller/vision/models/squares.onnx "
                                 "is missing: the shipped network must be in the tree")


def test_the_network_ships_with_kaeshi():
    assert square_model.MODEL_FILE.is_file()
    assert MODEL is not None
    assert square_model.MODEL_FILE.stat().st_size < 1_000_000


def _canvas(image: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, object]:
    layout = make_layout(h, (image.shape[1], image.shape[0]), DISC_HEIGHT)
    return smoothed(warp_to_canvas(image, layout)), layout


@needs_model
def test_sure_answers_on_fresh_rendered_scenes_are_right():
    """Scenes of a seed the network was not trained on, every square asked: it is
    sure of most and wrong on almost none of those."""
    rng = np.random.default_rng(2024)
    sure = wrong = total = 0
    for i in range(12):
        scene = random_scene(rng, hard=i % 2 == 0, hand=False)
        r = render(random_position(rng), scene, seed=500 + i)
        canvas, layout = _canvas(r.image, homography_from_corners(r.corners))
        keep = np.flatnonzero(~layout.outside)
        states, _ = MODEL.decide(patches(canvas, patch_index(layout), keep))
        truth = np.array(list(r.board))[keep]
        total += len(keep)
        sure += int((states != "?").sum())
        wrong += int(((states != "?") & (states != truth)).sum())
    assert sure >= 0.75 * total
    assert wrong <= 0.002 * sure


@needs_model
def test_a_grid_half_a_square_off_is_not_read_with_confidence():
    scene = Scene(tilt_deg=15, rotation_deg=4)
    r = render(random_position(np.random.default_rng(3)), scene, seed=4)
    off = np.array([[0.5, 0.5], [8.5, 0.5], [8.5, 8.5], [0.5, 8.5]])
    h = homography_from_corners(r.corners) @ homography_from_corners(off)
    canvas, layout = _canvas(r.image, h)
    states, _ = MODEL.decide(patches(canvas, patch_index(layout)))
    assert (states != "?").sum() <= 6


@needs_model
def test_the_reader_only_fills_squares_the_rules_left_unknown():
    rng = np.random.default_rng(77)
    changed = 0
    for i in range(10):
        scene = random_scene(rng, hard=True)
        r = render(random_position(rng), scene, seed=900 + i)
        setup = auto_setup(r.image, corners=r.corners)  # where the board is
        rules = setup.reader()
        rules.square_model = None
        both = setup.reader()
        a, b = rules.read(r.image), both.read(r.image)
        for sq in range(64):
            if a.board[sq] != "?":
                assert b.board[sq] == a.board[sq]
            elif b.board[sq] != "?":
                changed += 1
                assert sq in b.learned
                assert a.reasons[sq] in ("ambiguous", "glare", "occluded")
                assert a.foreign[sq] <= 0.02  # never under a hand
        assert set(b.learned) == {s for s in range(64) if a.board[s] == "?" != b.board[s]}
    assert changed > 0  # hard scenes leave the rules unsure somewhere


def _pools(image: np.ndarray, h: np.ndarray, side: float, squares: list[str]) -> np.ndarray:
    """``image`` with a soft pool of lamp light on each of ``squares`` (empty felt):
    bright enough at its middle for the rules to take it for a white disc."""
    from controller.squares import parse_square
    from controller.vision.geometry import apply_homography

    out = image.copy()
    for name in squares:
        i = parse_square(name)
        x, y = apply_homography(h, np.array([[i % 8 + 0.5, i // 8 + 0.5]]))[0]
        for radius, weight in ((0.38, 60 / 255), (0.3, 60 / 255), (0.2, 50 / 255)):
            lit = out.copy()
            cv2.circle(lit, (int(x), int(y)), int(radius * side), (255, 255, 255), -1)
            out = cv2.addWeighted(lit, weight, out, 1 - weight, 0)
    return out


def test_squares_doubtful_since_calibration_read_no_phantom_disc_and_keep_real_ones():
    """Calibration leaves unread an empty square whose felt the rules take for a disc
    where the model sees felt; the set-up keeps it, and in play the model has the last
    word there: the pool never reads as a disc, a real disc on such a square still does."""
    from dataclasses import replace

    from controller.position import START_BOARD
    from controller.squares import parse_square

    r = render(START_BOARD, Scene(), seed=3)
    setup = auto_setup(r.image, corners=r.corners)
    side = float(np.linalg.norm(np.subtract(r.corners[1], r.corners[0]))) / 8
    pooled = _pools(r.image, setup.homography, side, ["c3", "f6", "b7"])
    c3, f6, d4 = (parse_square(n) for n in ("c3", "f6", "d4"))
    plain = setup.reader().read(pooled)
    assert plain.board[c3] in "Oo" and plain.board[f6] in "Oo"  # the phantoms
    kept = replace(setup, doubtful=(c3, f6, d4))
    doubting = kept.reader().read(pooled)
    assert doubting.board[c3] in "-?" and doubting.board[f6] in "-?"
    assert doubting.board[d4] == "O" == START_BOARD[d4]  # the disc really there
    assert [doubting.board[i] for i in range(64) if i not in (c3, f6)] == [
        plain.board[i] for i in range(64) if i not in (c3, f6)]
    again = type(setup).from_dict(kept.to_dict())  # what the calibration file keeps
    assert again.doubtful == (c3, f6, d4) and kept.to_dict()["doubtful_squares"] == [
        "c3", "f6", "d4"]
    with pytest.raises(ValueError, match="doubtful_squares"):
        type(setup).from_dict(kept.to_dict() | {"doubtful_squares": ["k9"]})


def test_without_its_file_the_reader_works_on_the_rules_alone(monkeypatch, tmp_path):
    monkeypatch.setattr(square_model, "MODEL_FILE", tmp_path / "missing.onnx")
    square_model.default_model.cache_clear()
    try:
        assert square_model.default_model() is None
        r = render(random_position(np.random.default_rng(5)), Scene(tilt_deg=10), seed=5)
        setup = align_to_truth(auto_setup(r.image), r.corners)
        reader = setup.reader()
        assert reader.square_model is None
        reading = reader.read(r.image)
        assert reading.learned == ()
        assert sum(a == b for a, b in zip(reading.board, r.board, strict=True)) >= 60
    finally:
        square_model.default_model.cache_clear()


def test_a_damaged_model_file_is_refused_with_its_name(tmp_path):
    bad = tmp_path / "squares.onnx"
    bad.write_bytes(b"not a network")
    with pytest.raises(cv2.error):
        SquareModel(bad)


def test_training_examples_are_reproducible_and_labelled_from_the_truth():
    a = scene_examples(3, 41, misplaced=0.0)
    b = scene_examples(3, 41, misplaced=0.0)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.y, b.y)
    assert a.x.shape[1:] == (3, square_model.INPUT, square_model.INPUT)
    # with the grid where the board is, every label is the truth's state, or other
    # for a hand or a shifted disc
    want = ["-XO".index(ch) if ch in "-XO" else OTHER for ch in a.board]
    assert a.y.tolist() == [want[sq] for sq in a.squares]
    assert {0, 1, 2} <= set(a.y.tolist())


def test_a_misplaced_grid_labels_its_off_centre_squares_other():
    counts = [np.bincount(scene_examples(i, 41, misplaced=1.0).y, minlength=4)[OTHER]
              for i in range(4)]
    clean = [np.bincount(scene_examples(i, 41, misplaced=0.0).y, minlength=4)[OTHER]
             for i in range(4)]
    assert sum(counts) > sum(clean) + 40


def test_patches_take_the_felt_as_their_zero():
    """Exposure and white balance drop out: the same board twice as bright, or with
    a blue cast, gives nearly the same inputs."""
    r = render(random_position(np.random.default_rng(8)), Scene(), seed=8)
    canvas, layout = _canvas(r.image, homography_from_corners(r.corners))
    idx = patch_index(layout)
    x = patches(canvas, idx)
    cast = np.clip(canvas.astype(np.float32) * np.array([1.3, 0.9, 0.8]), 0, 255)
    y = patches(cast.astype(np.uint8), idx)
    felt = np.abs(x).mean()
    assert np.abs(x - y).mean() < 0.25 * felt


@needs_model
def test_the_finder_trusts_squares_it_recognises_and_no_grid_off_them():
    """A full board on a dark felt whose lines the discs hide: the model's doubt is
    low on the board's own grid, and high half a square off or on the table."""
    from controller.vision.finding.finder import LEARNED_DOUBT, squares_doubt

    rng = np.random.default_rng(12)
    board = "".join(rng.choice(["X", "O"], 64))
    scene = Scene(tilt_deg=20, rotation_deg=6, felt_tone=0.5, line_weight=0.5,
                  line_light=0.5, board_fraction=0.45, offset=(-0.3, 0.0))
    r = render(board, scene, seed=12)
    h = homography_from_corners(r.corners)
    assert squares_doubt(r.image, h) < LEARNED_DOUBT
    half = np.array([[0.5, 0.5], [8.5, 0.5], [8.5, 8.5], [0.5, 8.5]])
    assert squares_doubt(r.image, h @ homography_from_corners(half)) > LEARNED_DOUBT
    table = r.corners - r.corners.mean(axis=0) + np.array([470.0, 240.0])
    assert squares_doubt(r.image, homography_from_corners(table)) > LEARNED_DOUBT


@needs_model
def test_the_picture_marks_what_the_learned_model_named():
    from controller.vision.annotate import annotate
    from controller.vision.reading.board_reading import Reading

    r = render(random_position(np.random.default_rng(6)), Scene(tilt_deg=10), seed=6)
    setup = auto_setup(r.image, corners=r.corners)
    reading = setup.reader().read(r.image)
    marked = Reading(**{**reading.__dict__, "learned": (0,)})
    plain = annotate(r.image, setup.homography, reading)
    starred = annotate(r.image, setup.homography, marked)
    # the two pictures differ only round a1's label, where the star is drawn
    diff = np.argwhere((plain != starred).any(axis=2))
    centre = setup.homography @ np.array([0.5, 0.5, 1.0])
    centre = centre[:2] / centre[2]
    assert len(diff) and np.abs(diff[:, ::-1] - centre).max() < 40


@needs_model
def test_a_grid_found_a_square_off_is_moved_back_when_the_user_names_a1(monkeypatch):
    """The whole-square check must survive relabelling the corners by ``--a1``."""
    import controller.vision.pipeline as pipeline
    from controller.vision.finding.finder import BoardFit
    from controller.vision.geometry import corners_of

    r = render(random_position(np.random.default_rng(4)),
               Scene(tilt_deg=10, frame_style="black", board_fraction=0.7), seed=4)
    off = r.homography @ np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1]], float)  # a column off
    monkeypatch.setattr(pipeline, "locate", lambda image, corners=None, n=8: BoardFit(
        corners_of(off), off, 0.5))
    cell = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 8
    for a1 in ("top-left", "bottom-right"):
        setup = pipeline.auto_setup(r.image, a1=a1)
        found = corners_of(setup.homography)
        d = np.linalg.norm(found[:, None] - r.corners[None], axis=2).min(axis=1).max()
        assert d < 0.2 * cell, a1
