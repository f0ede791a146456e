"""Board outlines closed by the picture's edges, whatever colour the felt shows.

The felt's outline (:mod:`controller.vision.finding.felt`) needs the felt to look
like felt. On a green cloth it runs into the table; in a dark room it sinks into
the noise; a nearly black felt hardly shows green at all. The board's own edge
still shows there, as a step in brightness or colour: a wooden frame against the
felt and the table, a frameless board against a pale table. Runs of strong edges
that close round a four-sided shape are offered here as outlines.

They are few but often wrong (a tray, a book, the frame's outer edge rather than
the playing area's), so only a caller that can tell the board's by what it shows
asks for them: calibration, by the start position (see
:mod:`controller.vision.calibrating.search`), which moves them onto it before judging.
"""

from __future__ import annotations

import numpy as np

from controller.vision.cv import cv2
from controller.vision.geometry import upright_order

#: Longest side of the working copy: edges a board's outline makes survive it,
#: the sensor's grain mostly does not.
WORK_SIDE = 480
#: Shares of the picture's pixels with weaker edges than those kept, from the
#: strongest edges only (a clear outline, little else) to more (a faint outline,
#: closed only when its weaker stretches count too).
EDGE_QUANTILES = (0.8, 0.9, 0.95)
#: Area of an outline, as a share of the picture: smaller is a disc or a cup,
#: larger the picture's own border.
AREA = (0.01, 0.9)
#: Tolerance of the four-sided fit, as a share of the outline's perimeter.
POLYGON_TOLERANCE = 0.03
#: Least share of its closed run's area the four-sided shape must cover: a
#: rounded blob (a cup seen from above, a lamp's reflection) fits four sides badly.
FILLED = 0.85
#: Outlines whose corners all lie within this share of their side of each other
#: are one.
SAME = 0.03


def contour_outlines(image: np.ndarray) -> list[np.ndarray]:
    """Four-sided outlines the picture's edges close, largest first,
    upright-ordered, in image pixels (see :func:`controller.vision.geometry.upright_order`).

    Edges are taken in colour as well as brightness (the strongest of the three
    Lab channels' gradients at each pixel), since a wooden frame on a green cloth
    differs in hue more than in lightness."""
    scale = WORK_SIDE / max(image.shape[:2])
    small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    strength = _edge_strength(small)
    area = small.shape[0] * small.shape[1]
    found: list[tuple[float, np.ndarray]] = []  # (area, upright-ordered quad)
    for q in EDGE_QUANTILES:
        edges = (strength > np.quantile(strength, q)).astype(np.uint8)
        contours, _ = cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            quad = _four_sided(contour, area)
            if quad is None:
                continue
            size = cv2.contourArea(quad.astype(np.float32))
            quad = upright_order(quad)
            if not any(np.abs(quad - f).max() < SAME * np.sqrt(size) for _, f in found):
                found.append((size, quad))
    found.sort(key=lambda p: -p[0])
    return [quad / scale for _, quad in found]


def _edge_strength(small: np.ndarray) -> np.ndarray:
    lab = cv2.cvtColor(cv2.GaussianBlur(small, (5, 5), 0), cv2.COLOR_BGR2LAB)
    lab = lab.astype(np.float32)
    strength = np.zeros(small.shape[:2], np.float32)
    for ch in range(3):
        gx = cv2.Sobel(lab[..., ch], cv2.CV_32F, 1, 0, ksize=3)
        gy = cv2.Sobel(lab[..., ch], cv2.CV_32F, 0, 1, ksize=3)
        np.maximum(strength, cv2.magnitude(gx, gy), out=strength)
    return strength


def _four_sided(contour: np.ndarray, picture_area: int) -> np.ndarray | None:
    """The convex four-sided shape a closed run of edges fits, if it fits one."""
    hull = cv2.convexHull(contour)
    area = cv2.contourArea(hull)
    if not AREA[0] * picture_area <= area <= AREA[1] * picture_area:
        return None
    poly = cv2.approxPolyDP(hull, POLYGON_TOLERANCE * cv2.arcLength(hull, True), True)
    if len(poly) != 4 or not cv2.isContourConvex(poly):
        return None
    if cv2.contourArea(poly) < FILLED * area:
        return None
    return poly.reshape(4, 2).astype(np.float64)

