"""A lamp's reflection painted onto a render, the way the renderer paints its own
glare (screen blending towards white), at a chosen square and strength or across
chosen rows, so that a test knows exactly what lies under it."""

from __future__ import annotations

import numpy as np

from controller.synth.picture import Rendered
from controller.vision.cv import cv2
from controller.vision.geometry import apply_homography


def reflection_over(r: Rendered, square: int, sigma: float, peak: float) -> np.ndarray:
    """The render with a reflection centred on ``square``; ``sigma`` in squares,
    ``peak`` above 1 clips its middle to white."""
    px = float(np.linalg.norm(r.corners[1] - r.corners[0])) / 8
    cx, cy = r.square_centre(square)
    h, w = r.image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w]
    d2 = ((xs - cx) ** 2 + (ys - cy) ** 2) / (sigma * px) ** 2
    g = np.clip(peak * np.exp(-d2), 0, 1)[..., None]
    out = r.image.astype(np.float32)
    out += (255 - out) * g
    return np.clip(out, 0, 255).astype(np.uint8)


def band_over(r: Rendered, first_row: float, last_row: float) -> np.ndarray:
    """The render with a reflection right across the board (and the table either
    side) from one row to another, white in its middle: the felt's outline stops
    at a straight cut there."""
    band = np.array([[-3, first_row], [11, first_row], [11, last_row], [-3, last_row]], float)
    mask = np.zeros(r.image.shape[:2], np.float32)
    cv2.fillPoly(mask, [apply_homography(r.homography, band).astype(np.int32)], 1.0)
    g = cv2.GaussianBlur(mask, (0, 0), 3)[..., None]
    out = r.image.astype(np.float32)
    out += (255 - out) * g
    return np.clip(out, 0, 255).astype(np.uint8)
