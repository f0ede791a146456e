"""The sensor's own noise: how much a picture carries, and a copy without it.

A camera in a dim room turns its gain up, and each pixel then scatters by several
grey levels round the true one. The colour tests that tell felt from disc and find
the felt's outline are made pixel by pixel, so in such a picture they fray at every
edge: the board's outline breaks up, a square's corners read as neither felt nor
anything else, and the calibration's search finds no grid. Averaging over patches
that look alike (non-local means) takes the scatter out and keeps the edges where
the grid lines and the board's outline are, which a plain blur would smear.
"""

from __future__ import annotations

import numpy as np

from controller.vision.cv import cv2

#: Noise (grey levels, one standard deviation) from which a picture counts as noisy:
#: the scatter of a dim room's camera, against a fraction of a level in a lit one
#: (measured on the project's own renders; see docs/camera-history.md).
NOISY = 3.0

#: The noise estimate's mask: the difference of two Laplacians, which cancels
#: an image's smooth shading and straight edges but not pixel-to-pixel scatter.
_MASK = np.array([[1, -2, 1], [-2, 4, -2], [1, -2, 1]], np.float32)


def noise_level(image: np.ndarray) -> float:
    """The picture's pixel noise, one standard deviation in grey levels.

    Immerkær's estimate (1996): the mean absolute response to ``_MASK`` over the
    picture, scaled so that pure Gaussian noise of deviation s gives s. Edges add a
    little to it, far less than a dim room's noise does."""
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    response = cv2.filter2D(grey, -1, _MASK)[1:-1, 1:-1]
    return float(np.sqrt(np.pi / 2.0) * np.abs(response).mean() / 6.0)


def smoothed(image: np.ndarray, noise: float | None = None) -> np.ndarray:
    """A copy of ``image`` with its pixel noise averaged away (non-local means, its
    strength the noise measured: stronger smooths the grid's thin lines away too)."""
    strength = noise_level(image) if noise is None else noise
    return cv2.fastNlMeansDenoisingColored(image, None, strength, strength, 7, 21)
