"""Where the felt stops: the one-square strips round a candidate grid's edges.

The lattice alone cannot tell a grid on the board from one a whole row off it,
since every line of either falls on a printed line; the felt can: inside the
board's edges it shows, past them it stops (see :mod:`controller.vision.finding.finder`).
"""

from __future__ import annotations

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.cv import cv2
from controller.vision.geometry import moved_by_squares

EDGE_BARE = 0.1  # felt share of a grid's edge strip that says it lies off the board ...
EDGE_BEYOND = 0.3  # ... when past the opposite edge this much felt says the board goes on


def edge_felt(image: np.ndarray, h: np.ndarray,
              n: int = STANDARD) -> tuple[np.ndarray, np.ndarray]:
    """Felt share of the one-square strips just inside and just outside each edge
    (top, right, bottom, left in board coordinates)."""
    from controller.vision.colour import ColourModel

    cell = 12
    t = np.array([[cell, 0, cell], [0, cell, cell], [0, 0, 1]], float)
    side = (n + 2) * cell
    warped = cv2.warpPerspective(image, t @ np.linalg.inv(h), (side, side))
    hsv = cv2.cvtColor(warped, cv2.COLOR_BGR2HSV)
    felt = ColourModel().felt(hsv).astype(np.float32)
    inner = felt[cell:-cell, cell:-cell]
    inside = np.array([inner[:cell].mean(), inner[:, -cell:].mean(),
                       inner[-cell:].mean(), inner[:, :cell].mean()])
    mid = slice(cell, side - cell)
    outside = np.array([felt[:cell, mid].mean(), felt[mid, -cell:].mean(),
                        felt[-cell:, mid].mean(), felt[mid, :cell].mean()])
    return inside, outside


def felt_share(image: np.ndarray, h: np.ndarray, n: int = STANDARD) -> float:
    """Share of the playing area showing felt: even a full board shows it between
    the discs, while a striped disc tray or a slatted table shows none."""
    from controller.vision.colour import ColourModel

    cell = 12
    t = np.array([[cell, 0, 0], [0, cell, 0], [0, 0, 1]], float)
    warped = cv2.warpPerspective(image, t @ np.linalg.inv(h), (n * cell, n * cell))
    return float(ColourModel().felt(cv2.cvtColor(warped, cv2.COLOR_BGR2HSV)).mean())


def nudge_onto_board(image: np.ndarray, h: np.ndarray, n: int = STANDARD) -> np.ndarray:
    """Move a grid that lies a whole row or column off the board back onto it.

    Off by a whole square, every grid line still falls on a printed line, so the
    grid fits as well as the right one; but the strip along one edge then shows no
    felt at all while the felt goes on past the opposite edge.
    """
    steps = {0: (0, 1), 1: (-1, 0), 2: (0, -1), 3: (1, 0)}  # bare edge -> shift (x, y)
    for _ in range(2):
        inside, outside = edge_felt(image, h, n)
        moved = False
        for e in range(4):
            if inside[e] < EDGE_BARE and outside[(e + 2) % 4] > EDGE_BEYOND:
                dx, dy = steps[e]
                h = moved_by_squares(h, dx, dy)
                moved = True
                break
        if not moved:
            break
    return h
