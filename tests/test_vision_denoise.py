"""A dim room's camera noise: measured, averaged away, and calibration's search run
again without it, the grid it finds judged on the picture itself."""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np
import pytest

from controller.position import START_BOARD
from controller.squares import parse_square
from controller.synth.picture import render
from controller.vision import startnoise
from controller.vision.denoise import NOISY, noise_level, smoothed
from controller.vision.evaluation import (
    aligned_grid,
    corner_error,
    own_scenes,
    own_start_picture,
)
from controller.vision.evaluation_calibration import fit_on_picture

#: A right start position the plain search refuses, in a dim, noisy room (own
#: hard set 239, scene 133): the search on the smoothed copy finds its grid.
NOISY_SCENE = (239, 133)


def _noisy(image: np.ndarray, sigma: float, seed: int = 0) -> np.ndarray:
    """``image`` with grey noise of deviation ``sigma`` (the same in each channel)."""
    noise = np.random.default_rng(seed).normal(0.0, sigma, image.shape[:2])[..., None]
    return np.clip(image.astype(np.float64) + noise, 0, 255).astype(np.uint8)


def _shaded_field() -> np.ndarray:
    """Smooth shading, a disc and a thin dark line: the edges a noise estimate must
    not take for noise."""
    y, x = np.mgrid[0:240, 0:320]
    grey = 60.0 + 0.3 * x + 0.2 * y
    grey[(x - 200) ** 2 + (y - 120) ** 2 < 30**2] = 220.0
    grey[:, 100:102] -= 50.0
    return np.repeat(grey[..., None], 3, axis=2).clip(0, 255).astype(np.uint8)


@pytest.mark.parametrize("sigma", [4.0, 8.0])
def test_the_noise_level_is_the_pixels_scatter_not_the_pictures_edges(sigma):
    field = _shaded_field()
    assert noise_level(field) < 0.5 < NOISY
    assert noise_level(_noisy(field, sigma)) == pytest.approx(sigma, rel=0.2)


def test_smoothing_takes_the_noise_out_and_keeps_a_thin_grid_line():
    field = _shaded_field()
    noisy = _noisy(field, 8.0)
    quiet = smoothed(noisy)
    assert noise_level(quiet) < NOISY < noise_level(noisy)
    line = quiet[:, 100:102].astype(float).mean()
    beside = quiet[:, 96:98].astype(float).mean() + 0.3 * 3.5  # the shading's slope
    assert beside - line > 0.8 * 50.0  # a Gaussian blur as quiet keeps about 60 %


def test_a_noisy_start_position_the_search_misses_is_found_on_the_smoothed_copy(
        monkeypatch):
    start = own_start_picture(*NOISY_SCENE)
    assert noise_level(start.image) >= NOISY
    retried = []
    original = startnoise._found_when_smoothed

    def spy(*args, **kwargs):
        retried.append(original(*args, **kwargs))
        return retried[-1]

    monkeypatch.setattr(startnoise, "_found_when_smoothed", spy)
    said: list[str] = []
    fit = startnoise.fit_through_noise(start.image, lambda h: aligned_grid(h, start.corners),
                                       said.append)
    # the retry runs only where the search on the picture itself refused
    assert len(retried) == 1 and retried[0] is fit
    assert said[-1].startswith("the picture is noisy")
    assert fit.mismatches == []
    assert corner_error(fit.setup, start.corners) < 1 / 3


@pytest.mark.parametrize(("square", "put"), [("e4", "-"), ("d4", "X")])
def test_a_wrong_start_disc_in_a_noisy_picture_is_still_refused(square, put):
    """Each of these was taken on the smoothed copy's grid, the wrong disc left
    unread, before both pictures had to read all four discs."""
    seed, number = NOISY_SCENE
    own = next(itertools.islice(own_scenes(seed, hard=True), number, None))
    at = parse_square(square)
    board = START_BOARD[:at] + put + START_BOARD[at + 1:]
    picture = render(board, replace(own.scene, hand=False), seed=own.render_seed)
    fit = fit_on_picture(picture)
    assert fit is None or fit.mismatches
