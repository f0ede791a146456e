"""From a bare image to a board reading: find, orient, tune, read.

Without a calibration everything is estimated from the one image: the board's
outline and grid, the camera pose (from the homography), and the black/white
brightness ratios (the two clusters of disc brightness on the board).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.colour import ColourModel, balanced_on
from controller.vision.cv import cv2
from controller.vision.finding.finder import BoardFit, find_board
from controller.vision.finding.grid import refine_on_grid
from controller.vision.finding.grid_check import settle_whole_squares
from controller.vision.geometry import (
    DISC_HEIGHT,
    corners_of,
    grid_with_a1,
    homography_from_corners,
)
from controller.vision.reading.board_reading import Reading
from controller.vision.reading.reader import CORNER_FELT, SquareReader
from controller.vision.reading.square_model import default_model
from controller.vision.setup import CameraSetup

MIN_SPLIT_GAP = 0.3  # log units (x1.35 in brightness) between the darkest white disc ...
SPLIT_SPREAD = 0.35  # ... and the brightest black one, and at least this share of the
# wider spread of the two colours
MIN_WHITE = 0.2  # a white disc is brighter than the felt (log units)
FELT_HUE = (25, 100)  # OpenCV hue range in which a felt's colour is looked for ...
FELT_SAT_FLOOR = 18  # ... above this saturation
FELT_SHARE = 0.3  # share of the squares' corners that must show it
FELT_HUE_SPAN = 22  # hue either side of the felt's median taken for felt
FELT_SAT_SHARE = 0.45  # share of the felt's median saturation taken for felt
BALANCE_DISCS = 2  # white discs needed to measure the camera's colour cast


def locate(image: np.ndarray, corners: np.ndarray | None = None,
           n: int = STANDARD) -> BoardFit:
    """The ``n`` x ``n`` board in ``image``; with ``corners`` (a1, h1, h8, a8 on 8x8)
    given, only refined."""
    if corners is None:
        return find_board(image, n=n)
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    h = homography_from_corners(c, n)
    refined, score = refine_on_grid(image, h, n=n)
    moved = np.abs(corners_of(refined, n) - c).max()
    side = np.linalg.norm(c[1] - c[0]) / n
    if moved > 0.5 * side:  # the user knows better than a confused grid fit
        refined, score = h, 0.0
    return BoardFit(corners=corners_of(refined, n), homography=refined, score=score)


@dataclass(frozen=True)
class Split:
    """Two colours of disc seen apart: their levels and the empty gap between them."""

    black: float
    white: float
    cut: float
    gap: float


def two_clusters(values: np.ndarray) -> Split | None:
    """Black and white discs as the two sides of the widest gap in their grey levels.

    The gap must be wide in absolute terms (a real difference of brightness, not
    noise) and next to how far each side spreads: one colour alone under uneven
    light spreads evenly, without one gap that stands out.
    """
    v = np.sort(values[np.isfinite(values)])
    if len(v) < 2:
        return None
    gaps = np.diff(v)
    i = int(np.argmax(gaps))
    lo, hi = v[: i + 1], v[i + 1 :]
    spread = max(_spread(lo), _spread(hi))
    g = float(gaps[i])
    if g < MIN_SPLIT_GAP or g < SPLIT_SPREAD * spread or float(np.median(hi)) < MIN_WHITE:
        return None
    # the colours' edges: a lone disc far from its colour's bulk (a glossy sheen
    # taken for a disc, a white disc in shadow) does not get to move the cut
    top = min(float(lo.max()), _robust_edge(lo, +1))
    bottom = max(float(hi.min()), _robust_edge(hi, -1))
    return Split(float(np.median(lo)), float(np.median(hi)), (top + bottom) / 2, bottom - top)


def _robust_edge(v: np.ndarray, sign: int) -> float:
    """Median plus (or minus) three robust standard deviations."""
    med = float(np.median(v))
    return med + sign * 3 * 1.4826 * float(np.median(np.abs(v - med)))


def _spread(v: np.ndarray) -> float:
    return float(np.quantile(v, 0.9) - np.quantile(v, 0.1)) if len(v) > 1 else 0.0


def fit_felt(reader: SquareReader, image: np.ndarray) -> ColourModel:
    """The felt's colour range as this picture shows it.

    The defaults take any clearly green, clearly saturated pixel for felt; a dull
    or dark felt, a dim room or a camera's white balance can take the felt below
    that saturation, and then nothing on the board reads as felt. The corners of
    the squares lie outside any disc, so what most of them show is the felt: its
    hue and saturation there set the range (never stricter than the defaults).
    """
    model = reader.model
    canvas = reader.warp(image)
    hsv = cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV).reshape(-1, 3)
    px = hsv[reader.layout.corners[~reader.layout.outside].ravel()]
    green = px[(px[:, 0] >= FELT_HUE[0]) & (px[:, 0] <= FELT_HUE[1]) & (px[:, 1] >= FELT_SAT_FLOOR)]
    if len(green) < FELT_SHARE * len(px) or not len(px):
        return model
    hue = float(np.median(green[:, 0]))
    sat = float(np.median(green[:, 1]))
    val = float(np.median(green[:, 2]))
    return replace(
        model,
        hue_lo=min(model.hue_lo, hue - FELT_HUE_SPAN),
        hue_hi=max(model.hue_hi, hue + FELT_HUE_SPAN),
        sat_min=min(model.sat_min, max(FELT_SAT_FLOOR, FELT_SAT_SHARE * sat)),
        val_min=min(model.val_min, max(3.0, 0.3 * val)),
    )


def estimate_balance(
    reader: SquareReader, image: np.ndarray, squares: list[int] | None = None
) -> ColourModel:
    """The model with gains that make the white discs in ``image`` grey.

    White discs are the one thing on a board that should have no colour; under a
    warm lamp or a wrong white balance they come out orange or blue, and the
    foreign-colour test then takes them for a hand. ``squares`` are known white
    discs (the start position); otherwise the brighter half of the discs seen.
    Pixels white in all channels (glare) carry no cast and are left out; one
    clipped channel only makes the cast look smaller. Too few discs: no change.
    """
    model = reader.model
    canvas = reader.warp(image)
    felt, grey, _ = model.masks(canvas)
    r = reader.measure_canvas(canvas)
    lay = reader.layout
    disc = (np.maximum(r.felt_top, r.felt_base) <= 0.3) & np.isfinite(r.log_ratio)
    disc &= r.felt_corners >= CORNER_FELT
    if squares is not None:
        pick = [i for i in squares if disc[i]]
    else:
        cand = np.flatnonzero(disc & (r.log_ratio > model.cut))
        pick = list(cand[np.argsort(r.log_ratio[cand])][len(cand) // 2 :])
    if len(pick) < (1 if squares is not None else BALANCE_DISCS):
        return model
    return balanced_on(model, canvas, felt, lay.top[pick].ravel())


def tune_colours(reader: SquareReader, image: np.ndarray) -> ColourModel:
    """Set black/white brightness levels from the discs on this image, if it shows both."""
    r = reader.measure_canvas(reader.warp(image))
    disc = np.maximum(r.felt_top, r.felt_base) < 0.3
    disc &= ~reader.layout.outside  # past the picture's edge: black, but no disc
    split = two_clusters(r.log_ratio[disc])
    if split is None:
        return reader.model
    return replace(reader.model, black_log=split.black, white_log=split.white,
                   split=split.cut, gap=split.gap)


def auto_setup(
    image: np.ndarray,
    corners: np.ndarray | None = None,
    a1: str | None = None,
    model: ColourModel | None = None,
    n: int = STANDARD,
) -> CameraSetup:
    """A set-up of an ``n`` x ``n`` board estimated from one image (corners optional,
    a1 as named or upright)."""
    if corners is not None:  # a grid the user placed is theirs
        fit = locate(image, corners, n)
        return setup_on_grid(image, fit.homography, model, fit.score, n)
    h, score = found_grid(image, n)
    if a1 is not None:
        h = grid_with_a1(h, a1, n)  # the checked grid
    return setup_on_grid(image, h, model, score, n)


def found_grid(image: np.ndarray, n: int = STANDARD) -> tuple[np.ndarray, float]:
    """The finder's grid, checked a whole square either way, and its lattice score."""
    fit = locate(image, n=n)
    return (settle_whole_squares(image, fit.homography, DISC_HEIGHT, default_model(), n),
            fit.score)


def setup_on_grid(image: np.ndarray, h: np.ndarray, model: ColourModel | None = None,
                  score: float = 0.0, n: int = STANDARD) -> CameraSetup:
    """The set-up for grid ``h``, its colours estimated from the image: what a
    grid chosen on other evidence than the finder's needs to be read with."""
    size = (image.shape[1], image.shape[0])
    # the estimates need only what the rules measure
    rules = SquareReader(h, size, model or ColourModel(), DISC_HEIGHT, learned=False, n=n)
    model = fit_felt(rules, image)
    model = estimate_balance(rules.with_model(model), image)
    model = tune_colours(rules.with_model(model), image)
    setup = CameraSetup(size, h, DISC_HEIGHT, model, score, size=n)
    setup.disc_bias = estimate_disc_bias(rules.with_model(model), image)
    return setup


#: Discs located to measure the bias: its median is as steady from these as from all.
BIAS_DISCS = 16


def estimate_disc_bias(reader: SquareReader, image: np.ndarray) -> tuple[float, float]:
    """The median offset of the discs on the board: what the grid and height model
    leave unexplained, common to all discs, and so not a shifted disc."""
    offs = reader.disc_offsets(image, BIAS_DISCS)
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


def recognize(image: np.ndarray, setup: CameraSetup | None = None,
              n: int = STANDARD) -> Recognition:
    """Read one image, with a calibration or finding the ``n`` x ``n`` board itself."""
    if setup is None:
        setup = auto_setup(image, n=n)
    return Recognition(setup, setup.reader().read(image))
