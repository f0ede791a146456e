"""Training examples for the square network, drawn by the project's own renderer.

Each scene is a random position photographed by :mod:`controller.synth.picture`
under random easy, hard and hand-over-the-board conditions; the board is located
with its true corners disturbed by about as much as the finder misses them, and
warped to the reader's canvas exactly as :class:`SquareReader` does, so the
network learns from the inputs it will be given. Squares the picture's edge cuts
are left out; a square a hand hides or a shifted disc stands on is labelled
``other``, a state the network may name but that never replaces a ``?``.

Everything is seeded: the same ``seed`` and count give the same examples on any
machine, which is what makes the shipped network reproducible.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from controller.measure.evaluation import random_position, shifts_with_room
from controller.synth.picture import random_scene, render
from controller.vision.geometry import apply_homography, homography_from_corners
from controller.vision.pipeline import DISC_HEIGHT
from controller.vision.reading.square_model import CLASSES, patch_index, patches
from controller.vision.sampling import make_layout, smoothed, warp_to_canvas

#: Corner error of the located board, as a share of a square (standard deviation):
#: about what the finder and the grid refinement leave.
CORNER_JITTER = 0.06
#: Share of scenes whose grid is misplaced by up to a square, and how far from its
#: true centre (in squares, either axis) a grid square still shows that square.
MISPLACED = 0.2
CENTRED = 0.2

_LABEL = {"-": 0, "X": 1, "O": 2}
OTHER = CLASSES.index("other")


@dataclass(frozen=True)
class Examples:
    x: np.ndarray  # (n, 3, INPUT, INPUT) float16 network inputs
    y: np.ndarray  # (n,) int64 class indices into CLASSES
    board: str = ""  # of a single scene: its truth (for checking the labels)
    squares: np.ndarray | None = None  # of a single scene: the squares kept


def scene_examples(index: int, seed: int, misplaced: float = MISPLACED) -> Examples:
    """The labelled patches of one rendered scene (``index`` of the set ``seed``);
    ``misplaced`` is the chance that its grid is put up to a square off."""
    rng = np.random.default_rng([seed, index])
    kind = rng.random()
    hard = kind < 0.55
    hand = rng.random() < 0.35
    scene = random_scene(rng, hard=hard, hand=hand)
    board = random_position(rng, shifted=0.06)
    shifts = shifts_with_room(board, rng)
    r = render(board, scene, seed=int(rng.integers(1 << 30)), shifts=shifts)
    # a board located where it is, give or take the finder's error; or, in some
    # scenes, a grid misplaced by up to a square, whose squares off their true
    # place are labelled 'other': the network learns to refuse a patch that is not
    # centred on one square, so a misfit grid is not read with confidence
    jitter = np.array([[0.0, 0.0], [8.0, 0.0], [8.0, 8.0], [0.0, 8.0]])
    jitter = jitter + rng.normal(0.0, CORNER_JITTER, size=(4, 2))
    if rng.random() < misplaced:
        jitter += rng.uniform(-1.0, 1.0, size=2) + rng.normal(0.0, 0.15, size=(4, 2))
    grid = homography_from_corners(jitter)  # grid squares -> true squares
    h = homography_from_corners(r.corners) @ grid  # grid squares -> pixels
    size = (r.image.shape[1], r.image.shape[0])
    layout = make_layout(h, size, DISC_HEIGHT)
    ys, xs = np.mgrid[0:8, 0:8]
    centres = np.stack([xs.ravel() + 0.5, ys.ravel() + 0.5], axis=1)
    true_at = apply_homography(grid, centres)  # where each grid square's centre truly is
    owner = np.floor(true_at).astype(int)
    off = np.abs(true_at - owner - 0.5).max(axis=1)
    on_board = ((owner >= 0) & (owner < 8)).all(axis=1)
    canvas = smoothed(warp_to_canvas(r.image, layout))  # as the reader sees it
    keep = ~layout.outside
    x = patches(canvas, patch_index(layout), np.flatnonzero(keep))
    labels = np.full(64, OTHER, dtype=np.int64)
    for sq in np.flatnonzero(on_board & (off <= CENTRED)):
        labels[sq] = _LABEL.get(r.board[owner[sq, 1] * 8 + owner[sq, 0]], OTHER)
    y = labels[keep]
    return Examples(x.astype(np.float16), y, r.board, np.flatnonzero(keep))


def _one(args: tuple[int, int, float]) -> Examples:
    return scene_examples(*args)


def make_examples(count: int, seed: int, workers: int = 2,
                  misplaced: float = MISPLACED) -> Examples:
    """Examples of ``count`` scenes, rendered on ``workers`` processes."""
    jobs = [(i, seed, misplaced) for i in range(count)]
    if workers > 1:
        from multiprocessing import get_context

        with get_context("spawn").Pool(workers) as pool:
            parts = pool.map(_one, jobs, chunksize=8)
    else:
        parts = [_one(j) for j in jobs]
    return Examples(np.concatenate([p.x for p in parts]), np.concatenate([p.y for p in parts]))
