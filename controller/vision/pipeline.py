"""From a bare image to a board reading: find, orient, tune, read.

Without a calibration everything is estimated from the one image: the board's
outline and grid, the camera pose (from the homography), and the black/white
brightness ratios (the two clusters of disc brightness on the board).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from controller.vision.colour import ColourModel
from controller.vision.finder import BoardFit, find_board
from controller.vision.geometry import (
    corners_of,
    homography_from_corners,
    place_a1,
)
from controller.vision.grid import refine_on_grid
from controller.vision.reader import CORNER_FELT, Reading, SquareReader
from controller.vision.setup import CameraSetup

DISC_HEIGHT = 0.13  # squares: a 5-6 mm disc on a 42 mm square
EDGE_OFF_BOARD = 6  # squares of one edge without felt in their corners: not the board
MIN_CLUSTER_GAP = 0.9  # log units between black and white disc brightness


def locate(image: np.ndarray, corners: np.ndarray | None = None) -> BoardFit:
    """The board in ``image``; with ``corners`` (a1, h1, h8, a8) given, only refined."""
    if corners is None:
        return find_board(image)
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    h = homography_from_corners(c)
    refined, score = refine_on_grid(image, h)
    moved = np.abs(corners_of(refined) - c).max()
    side = np.linalg.norm(c[1] - c[0]) / 8
    if moved > 0.5 * side:  # the user knows better than a confused grid fit
        refined, score = h, 0.0
    return BoardFit(corners=corners_of(refined), homography=refined, score=score)


def _two_clusters(values: np.ndarray) -> tuple[float, float] | None:
    v = np.sort(values[np.isfinite(values)])
    if len(v) < 2:
        return None
    gaps = np.diff(v)
    i = int(np.argmax(gaps))
    if gaps[i] < MIN_CLUSTER_GAP:
        return None
    return float(np.median(v[: i + 1])), float(np.median(v[i + 1 :]))


def tune_colours(reader: SquareReader, image: np.ndarray) -> ColourModel:
    """Set black/white brightness levels from the discs on this image, if it shows both."""
    r = reader.read(image)
    disc = np.maximum(r.felt_top, r.felt_base) < 0.3
    clusters = _two_clusters(r.log_ratio[disc])
    if clusters is None:
        return reader.model
    lo, hi = clusters
    return replace(reader.model, black_log=lo, white_log=hi)


def auto_setup(
    image: np.ndarray,
    corners: np.ndarray | None = None,
    a1: str | None = None,
    model: ColourModel | None = None,
) -> CameraSetup:
    """A set-up estimated from one image (corners optional, a1 as named or upright)."""
    fit = locate(image, corners)
    h = fit.homography
    if a1 is not None and corners is None:
        h = homography_from_corners(place_a1(fit.corners, a1))
    model = model or ColourModel()
    size = (image.shape[1], image.shape[0])
    dh = DISC_HEIGHT
    reader = SquareReader(h, size, model, dh)
    model = tune_colours(reader, image)
    setup = CameraSetup(size, h, dh, model, fit.score)
    setup.top_turn = estimate_top_turn(setup.reader(), image)
    setup.disc_bias = estimate_disc_bias(setup.reader(), image)
    return setup


def estimate_top_turn(reader: SquareReader, image: np.ndarray) -> tuple[float, float]:
    """Scale and turn of the predicted disc-top offsets that best fit the discs seen.

    Least squares over the discs as complex numbers: z = sum(seen * conj(predicted))
    / sum(|predicted|^2). Too few discs, or a view from straight above, keep (1, 0).
    """
    seen, predicted = reader.measured_tops(image)
    if len(seen) < 2:
        return (1.0, 0.0)
    ps = predicted[:, 0] + 1j * predicted[:, 1]
    ms = seen[:, 0] + 1j * seen[:, 1]
    norm = float(np.sum(np.abs(ps) ** 2))
    if norm / len(ps) < 0.03**2:
        return (1.0, 0.0)
    z = complex(np.sum(ms * np.conj(ps)) / norm)
    if abs(z) > 3.0:
        z = z / abs(z) * 3.0
    if abs(z) < 0.1:
        return (1.0, 0.0)
    return (float(z.real), float(z.imag))


def estimate_disc_bias(reader: SquareReader, image: np.ndarray) -> tuple[float, float]:
    """The median offset of the discs on the board: what the grid and height model
    leave unexplained, common to all discs, and so not a shifted disc."""
    offs = reader.disc_offsets(image)
    ok = np.isfinite(offs).all(axis=1)
    if ok.sum() < 4:
        return (0.0, 0.0)
    bias = np.median(offs[ok], axis=0)
    bias = np.clip(bias, -0.12, 0.12)
    return (float(bias[0]), float(bias[1]))


@dataclass(frozen=True)
class Recognition:
    setup: CameraSetup
    reading: Reading

    @property
    def board(self) -> str:
        return self.reading.board

    @property
    def confidence(self) -> float:
        """The least confident square decides how far the whole reading can be trusted."""
        return float(self.reading.confidence.min())


def recognize(image: np.ndarray, setup: CameraSetup | None = None) -> Recognition:
    """Read one image, with a calibration or finding the board itself."""
    if setup is None:
        setup = auto_setup(image)
    return Recognition(setup, setup.reader().read(image))


START_BOARD = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27


@dataclass(frozen=True)
class StartFit:
    """The result of fitting a set-up on the standard start position."""

    setup: CameraSetup
    reading: Reading
    mismatches: list[int]  # squares read as something else than the start position
    unknown: list[int]  # squares that could not be read (glare, a hand)


def _edges_off_board(r: Reading) -> list[int]:
    """Squares of a board edge that mostly shows no felt in its squares' corners.

    A glare spot or a shadow hides a few squares; a whole edge without felt means
    the outline takes in a strip of table or frame, so the grid is off by a row or
    a scale, and the middle squares of the start position alone cannot show it.
    """
    out: list[int] = []
    for edge in (range(0, 8), range(56, 64), range(0, 64, 8), range(7, 64, 8)):
        bare = [i for i in edge if r.felt_corners[i] < CORNER_FELT]
        if len(bare) >= EDGE_OFF_BOARD:
            out += bare
    return out


def turn(h: np.ndarray, quarter_turns: int) -> np.ndarray:
    """The same board homography with a1 moved ``quarter_turns`` corners clockwise."""
    return homography_from_corners(np.roll(corners_of(h), -quarter_turns, axis=0))


def fit_start_position(setup: CameraSetup, image: np.ndarray, a1_fixed: bool) -> StartFit:
    """Fit the colour model on the start position (4 known discs, 60 known empties).

    The start position looks the same turned by half a turn but not by a quarter,
    so unless the user fixed a1 it also settles which way round the board is.
    """
    reader = setup.reader()
    r = reader.read(image)
    if not a1_fixed and r.board[27] in "Xx" and r.board[28] in "Oo":
        setup = replace(setup, homography=turn(setup.homography, 1))
        reader = setup.reader()
        r = reader.read(image)
    lr = r.log_ratio
    # discs under glare or a shadow's edge read '?'; one of each colour is enough
    white = [i for i in (27, 36) if r.board[i] == "O" and np.isfinite(lr[i])]
    black = [i for i in (28, 35) if r.board[i] == "X" and np.isfinite(lr[i])]
    if white and black:
        w = float(np.mean(lr[white]))
        b = float(np.mean(lr[black]))
        if w - b > 0.5:
            model = replace(setup.model, black_log=b, white_log=w, fitted=True)
            setup = replace(setup, model=model)
            reader = setup.reader()
            r = reader.read(image)
    mismatches = [i for i in range(64) if r.board[i] not in (START_BOARD[i], "?")]
    mismatches = sorted(set(mismatches) | set(_edges_off_board(r)))
    unknown = [i for i in range(64) if r.board[i] == "?"]
    return StartFit(setup, r, mismatches, unknown)
