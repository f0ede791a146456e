"""What the camera page tells the person holding the phone: what the service sees
(board found, where the grid lies, a hand in view, the camera moved) and what to fix
(too dark, board cut off, too oblique), from each frame read and the watcher's grid.

A phone is not a fixed Pi camera: its automatic exposure jumps, it gets nudged. A jump
in the picture's brightness with no hand in view is an exposure change, said once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from controller.boardsize import STANDARD

#: The picture is too dark when even its brightest part (the white discs, the lit
#: squares: the 98th percentile of grey) stays below this.
TOO_DARK = 90.0
#: A change of the mean grey by this fraction between frames with no hand: exposure.
EXPOSURE_JUMP = 0.2
#: The shortest board side over the longest below this: the phone looks too obliquely.
OBLIQUE = 0.55
#: A picture this much less sharp than the board usually is: the autofocus is hunting.
BLURRED = 0.4


@dataclass(frozen=True, slots=True)
class Advice:
    board: bool = False
    corners: tuple[tuple[float, float], ...] = ()  # a1, h1, h8, a8 as fractions of the frame
    hand: bool = False
    moved: bool = False
    fix: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"board": self.board, "corners": [list(c) for c in self.corners],
                "hand": self.hand, "moved": self.moved, "fix": list(self.fix)}


@dataclass(frozen=True, slots=True)
class FrameLook:
    grey: float
    advice: Advice = field(default_factory=Advice)
    exposure_jump: bool = False
    #: How sharp the picture usually is (a slow average of frames in focus), and whether
    #: this one is blurred against it.
    sharpness: float = 0.0
    blurred: bool = False


def board_corners(homography: np.ndarray, n: int = STANDARD) -> np.ndarray:
    """The board's outer corners in the picture (the homography is in squares)."""
    pts = np.array([[0, 0, 1], [n, 0, 1], [n, n, 1], [0, n, 1]], dtype=np.float64).T
    img = homography @ pts
    return (img[:2] / img[2]).T


def look_at(image: np.ndarray, watcher: Any, before: FrameLook | None) -> FrameLook:
    import cv2

    h, w = image.shape[:2]
    grey = float(image.mean())
    sharp = float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_32F).var())
    usual = before.sharpness if before is not None and before.sharpness > 0 else sharp
    blurred = sharp < BLURRED * usual
    corners = board_corners(watcher.reader.homography, watcher.reader.n)
    fix: list[str] = []
    if float(np.percentile(image[::4, ::4], 98)) < TOO_DARK:
        fix.append("too dark: more light on the board")
    inside = (corners[:, 0] >= 0) & (corners[:, 0] <= w) & (corners[:, 1] >= 0) \
        & (corners[:, 1] <= h)
    if not inside.all():
        fix.append("board cut off: move the phone back or centre the board")
    sides = np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1)
    if sides.max() > 0 and sides.min() / sides.max() < OBLIQUE:
        fix.append("too oblique: raise the phone above the board's centre")
    if blurred:
        fix.append("out of focus (the autofocus is hunting): tap the board on the screen")
    board = bool(watcher.board_seen)
    if not board:
        fix.append("board not found: the whole board must be in view")
    line = getattr(watcher, "last_line", None) or ""
    hand = "?" in line
    last = watcher.stats.messages[-1] if watcher.stats.messages else ""
    moved = "camera may have moved" in last or "the grid was fitted again" in last
    # a hand covers part of the picture and moves its mean a little; a jump of the
    # whole picture's brightness is the phone's exposure (or the room's light)
    jump = (before is not None and before.grey > 1
            and abs(grey - before.grey) / before.grey > EXPOSURE_JUMP)
    advice = Advice(board, tuple((round(float(x) / w, 4), round(float(y) / h, 4))
                                 for x, y in corners), hand, moved, tuple(fix))
    usual = usual if blurred else 0.9 * usual + 0.1 * sharp
    return FrameLook(grey, advice, jump, usual, blurred)
