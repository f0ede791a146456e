"""Hands over the board: the '?' truth agrees with the skin actually drawn, on every
board size (a hand is the same size in squares on each)."""

from __future__ import annotations

import numpy as np
import pytest

from controller.boardsize import SIZES, board_size, size_of_board_string
from controller.position import Position
from controller.synth.hand import MAX_STRAY, square_coverage
from controller.synth.picture import START_BOARD, Rendered, Scene, render
from controller.vision.cv import cv2

RES = 24


def skin_share(r: Rendered) -> np.ndarray:
    """Share of each square showing skin, measured on the picture itself.

    The picture is warped back to a top-down board (through the truth's homography)
    and skin is told from felt (green), discs (grey) and grid (dark) by its colour:
    red above green above blue.
    """
    n = size_of_board_string(r.board)
    t = np.array([[1 / RES, 0, 0.5 / RES], [0, 1 / RES, 0.5 / RES], [0, 0, 1]])
    top = cv2.warpPerspective(
        r.image,
        r.homography @ t,
        (n * RES, n * RES),
        flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
    )
    b, g, rr = (top[..., k].astype(int) for k in range(3))
    skin = (rr > g + 12) & (g > b + 8) & (rr > 45)
    return skin.reshape(n, RES, n, RES).mean(axis=(1, 3)).reshape(n * n)


def with_hidden(board: str, squares: list[int]) -> str:
    b = list(board)
    for s in squares:
        b[s] = "?"
    return "".join(b)


PATTERNS = [
    [0, 1, 8, 9],  # a corner, reaching the edge
    [27, 28, 35, 36],  # the centre, no edge
    [7, 15, 23, 22, 30],  # along the h-file
    [60, 61, 62, 53],  # bottom edge
    [19],  # a single square
    [9, 18, 27, 36, 45, 54],  # a diagonal
    [2, 3, 40, 47, 63],  # several separate groups
]
VIEWS = [
    Scene(),
    Scene(tilt_deg=40, rotation_deg=15, distance=11),
    Scene(tilt_deg=25, view_from_deg=250, rotation_deg=-20),
]


@pytest.mark.parametrize("squares", PATTERNS)
@pytest.mark.parametrize("scene", VIEWS)
def test_exact_hand_hides_exactly_the_question_marks(squares, scene):
    board = with_hidden(START_BOARD, squares)
    r = render(board, scene, seed=len(squares))
    assert r.board == board
    assert list(np.flatnonzero(r.occluded)) == sorted(squares)
    share = skin_share(r)
    for s in range(64):
        if r.occluded[s]:
            assert share[s] > 0.85, (s, share[s])
        else:
            assert share[s] <= MAX_STRAY + 0.02, (s, share[s])
    # The renderer's own coverage figures agree with the pixels.
    assert r.coverage is not None
    assert np.all(r.coverage[r.occluded] >= 0.9)
    assert np.all(r.coverage[~r.occluded] <= MAX_STRAY)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("seed", range(8))
def test_random_hands_mark_every_square_they_cover(seed, size):
    scene = Scene(
        tilt_deg=10 + 3 * seed,
        rotation_deg=seed * 5 - 30,
        view_from_deg=seed * 30,
        hand=True,
        hand_mode="full",
    )
    start = Position.start(size).board_string()
    r = render(start, scene, seed=seed)
    assert r.occluded.any() and len(r.occluded) == board_size(size).squares
    assert all((ch == "?") == r.occluded[i] for i, ch in enumerate(r.board))
    share = skin_share(r)
    assert np.all(share[r.occluded] > 0.8), share[r.occluded]
    assert np.all(share[~r.occluded] <= MAX_STRAY + 0.02), share[~r.occluded].max()
    # Squares outside the hand keep the position's truth.
    for i, ch in enumerate(r.board):
        if ch != "?":
            assert ch == start[i]


@pytest.mark.parametrize("size", [6, 10])
@pytest.mark.parametrize("scene", VIEWS)
def test_an_exact_hand_over_a_corner_and_the_middle_of_any_board(scene, size):
    """The hidden squares named on a 6x6 or 10x10 board are the ones the hand covers:
    a group at the bottom-right corner (its arm leaves across the board's own edges)
    and the centre four (no edge near)."""
    n = size
    last = n * n - 1
    mid = n // 2 * n + n // 2
    squares = sorted({last, last - 1, last - n, mid, mid - 1, mid - n, mid - n - 1})
    board = with_hidden(Position.start(size).board_string(), squares)
    r = render(board, scene, seed=len(squares))
    assert list(np.flatnonzero(r.occluded)) == squares
    share = skin_share(r)
    assert np.all(share[r.occluded] > 0.85), share[r.occluded]
    assert np.all(share[~r.occluded] <= MAX_STRAY + 0.02), share[~r.occluded].max()
    assert r.coverage is not None and np.all(r.coverage[~r.occluded] <= MAX_STRAY)
    assert r.hand_mask is not None
    seen = square_coverage(r.hand_mask, r.homography, n)
    assert np.abs(seen - r.coverage).max() < 0.05


def test_full_mode_arm_from_an_inner_group_reaches_out_and_is_marked():
    board = with_hidden(START_BOARD, [27, 28, 35, 36])
    r = render(board, Scene(hand_mode="full"), seed=1)
    assert r.occluded.sum() > 4  # the arm hides squares between the hand and the edge
    assert all(r.occluded[[27, 28, 35, 36]])
    share = skin_share(r)
    assert np.all(share[~r.occluded] <= MAX_STRAY + 0.02)


def test_hand_reaches_the_image_edge_when_it_can():
    def skin_on_border(board: str) -> int:
        img = render(board, Scene(table="light"), seed=0).image.astype(int)
        skin = (img[..., 2] > img[..., 1] + 12) & (img[..., 1] > img[..., 0] + 8)
        return int(np.concatenate([skin[0], skin[-1], skin[:, 0], skin[:, -1]]).sum())

    assert skin_on_border(START_BOARD) == 0
    assert skin_on_border(with_hidden(START_BOARD, [0, 1, 8, 9, 16])) > 10


@pytest.mark.parametrize("scene", VIEWS)
def test_hand_pixels_agree_with_the_coverage_figures(scene):
    board = with_hidden(START_BOARD, [5, 6, 7, 13, 14, 15, 22, 41])
    r = render(board, scene, seed=2)
    assert r.hand_mask is not None and r.hand_mask.shape == r.image.shape[:2]
    seen = square_coverage(r.hand_mask, r.homography)
    assert np.abs(seen - r.coverage).max() < 0.05
    assert render(START_BOARD, scene, seed=2).hand_mask is None


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("seed", range(10))
def test_a_resting_hand_marks_the_edge_squares_it_covers_and_nothing_else(seed, size):
    from controller.synth.resting import resting_squares

    scene = Scene(tilt_deg=5 + 3 * seed, view_from_deg=seed * 36, rotation_deg=seed * 4 - 20,
                  table="light", resting_hand=True)
    r = render(Position.start(size).board_string(), scene, seed=seed)
    edge = np.zeros((size, size), dtype=bool)
    edge[[0, -1], :] = edge[:, [0, -1]] = True
    assert not (r.occluded & ~edge.ravel()).any()  # it lies at the edge
    assert np.array_equal(r.occluded, resting_squares(scene, seed, size))
    assert all((ch == "?") == r.occluded[i] for i, ch in enumerate(r.board))
    share = skin_share(r)
    assert np.all(share[r.occluded] > 0.8), share[r.occluded]
    assert np.all(share[~r.occluded] <= MAX_STRAY + 0.02), share[~r.occluded].max()
    assert r.hand_mask is not None and r.hand_mask.any()  # on the frame at least
    assert r.coverage is not None and np.all(r.coverage[~r.occluded] <= MAX_STRAY)


def test_hard_scenes_sometimes_hold_a_resting_hand_and_easy_ones_never():
    from controller.synth.scene import random_scene

    rng = np.random.default_rng(5)
    hard = [random_scene(rng, hard=True).resting_hand for _ in range(80)]
    assert 8 <= sum(hard) <= 32
    assert not any(random_scene(rng).resting_hand for _ in range(40))


def test_a_resting_hand_lifts_for_a_disc_where_its_fingertips_only_graze():
    """Fingertips over a sliver of a square are in the way of a disc put there (the
    reader may well call that square unknown): the hand is lifted around that move,
    but not for the mover's hand passing over the sliver."""
    from controller.observation import Observation
    from controller.synth.replay import default_scene
    from controller.synth.resting import LIFT_AFTER, LIFT_BEFORE, resting_reach, resting_schedule

    scene = default_scene()
    hidden, grazed = resting_reach(scene, 1)
    assert not (hidden & grazed).any() and grazed.any()
    sq = int(np.flatnonzero(grazed)[0])
    start = START_BOARD
    played = start[:sq] + "X" + start[sq + 1:]
    passing = start[:sq] + "?" + start[sq + 1:]
    log = [Observation(float(t), board=start if t < 20 else played) for t in range(0, 40)]
    log[10] = Observation(10.0, board=passing)  # the mover's hand crosses the sliver
    rests = resting_schedule(log, hidden, grazed)
    lifted = [o.t for o, r in zip(log, rests, strict=True) if not r]
    assert lifted == [float(t) for t in range(int(20 - LIFT_BEFORE), int(20 + LIFT_AFTER) + 1)]
    assert resting_schedule(log, hidden) == [True] * len(log)  # without the sliver: never
