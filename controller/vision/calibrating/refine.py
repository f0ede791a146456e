"""Calibration's last resort: pulling a near-miss grid onto the start position.

On a hard picture (a lamp's reflection over a corner, a frame as green as the
felt, lines lost in the dark) none of the outlines the finder's cues offer may sit
on the board: the best lies a fraction of a square to a square off, and where few
printed lines show, refining on them cannot pull it in. Calibration knows what
the board shows. The learned square model tells, square by square, how much a
patch looks like felt, a black disc, a white disc or anything else; under the
right grid the board's squares look like the start position and the squares just past
its edges (frame, table) look like no square at all. A pattern search moves the
grid's corners to where that is most so, starting from the candidate.

It is slow next to the finder (a couple of hundred looks through the model,
about 12 ms each: 2-3 s in all), which is why calibration runs it only on a
picture it would otherwise refuse.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.calibrating.edges import past_edge_inputs, past_edges
from controller.vision.calibrating.start_reading import start_of
from controller.vision.finding.grid_check import all_squares, square_inputs
from controller.vision.geometry import corners_of, homography_from_corners
from controller.vision.reading.square_model import CLASSES, SquareModel
from controller.vision.sampling import make_layout

#: Corner moves tried, in squares, coarse to fine.
STEPS = (0.25, 0.12, 0.06)
#: Looks through the model one search may take.
MAX_LOOKS = 300
#: Weight of the squares past the edges looking like none, next to the 64 looking
#: like the start position.
OUTSIDE_WEIGHT = 0.5
#: Least log-probability a square adds: a square a reflection or a hand hides
#: costs every grid alike instead of deciding between them.
FLOOR = float(np.log(0.05))
_OTHER = CLASSES.index("other")


@cache
def _start_classes(n: int) -> tuple[np.ndarray, np.ndarray]:
    """The start position's classes, and the same turned a quarter (the start position
    fixes which way round the board is only up to that, so either is the board)."""
    s = start_of(n)
    return (np.array([CLASSES.index(c) for c in s.board]),
            np.array([CLASSES.index(c) for c in s.turned]))


def start_likelihood(image: np.ndarray, h: np.ndarray, model: SquareModel,
                     disc_height: float, n: int = STANDARD) -> float:
    """How much grid ``h``'s squares look like the start position and the squares
    past its edges like none (mean log-probabilities, each at least ``FLOOR``)."""
    size = (image.shape[1], image.shape[0])
    layout = make_layout(h, size, disc_height, n=n)
    parts = [square_inputs(image, layout, all_squares(n))]
    parts += [past_edge_inputs(image, h, layout, edge) for edge in past_edges(n)]
    seen = model.probabilities(np.concatenate([x for x, _ in parts]))
    squares, past = n * n, 4 * n
    p = np.full((squares + past, len(CLASSES)), np.nan)
    p[np.concatenate([inside for _, inside in parts])] = seen
    inside = max(float(_logs(p[:squares], cls).mean()) for cls in _start_classes(n))
    return inside + OUTSIDE_WEIGHT * float(_logs(p[squares:], np.full(past, _OTHER)).mean())


def settle_on_start(image: np.ndarray, h: np.ndarray, model: SquareModel,
                    disc_height: float, max_looks: int = MAX_LOOKS,
                    steps: tuple[float, ...] = STEPS, n: int = STANDARD) -> np.ndarray:
    """Grid ``h`` with its corners moved to where :func:`start_likelihood` is
    highest nearby: a pattern search over moving the whole grid, scaling it about
    its middle and moving one corner, taking the best of all those moves each time
    (the first better one leads off along a ridge the model sees in the frame or a
    reflection), with ever smaller ``steps`` (squares)."""
    corners = corners_of(h, n)
    best = start_likelihood(image, h, model, disc_height, n)
    looks = 1
    for step in steps:
        while looks < max_looks:
            moves = _moves(corners, step, n)[: max_looks - looks]
            values = [start_likelihood(image, homography_from_corners(m, n), model,
                                       disc_height, n)
                      for m in moves]
            looks += len(moves)
            k = int(np.argmax(values))
            if values[k] <= best + 1e-4:
                break
            best, corners = values[k], moves[k]
    return homography_from_corners(corners, n)


def _moves(corners: np.ndarray, step: float, n: int) -> list[np.ndarray]:
    """The grid (as its four corners) moved by ``step`` squares each way, scaled by
    a quarter of that about its middle, and each corner moved alone."""
    d = step * float(np.linalg.norm(corners[1] - corners[0])) / n
    shifts = [np.array(v, float) for v in ((d, 0), (-d, 0), (0, d), (0, -d))]
    middle = corners.mean(axis=0)
    moves = [corners + v for v in shifts]
    moves += [middle + (corners - middle) * f for f in (1 + step / 4, 1 - step / 4)]
    for k in range(4):
        for v in shifts:
            one = corners.copy()
            one[k] += v
            moves.append(one)
    return moves


def _logs(p: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Per square, log of the probability of its class, at least ``FLOOR`` (also
    for a square outside the picture)."""
    with np.errstate(invalid="ignore"):
        v = np.log(p[np.arange(len(p)), classes] + 1e-9)
    return np.where(np.isnan(v), FLOOR, np.maximum(v, FLOOR))
