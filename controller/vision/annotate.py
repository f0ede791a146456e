"""The picture that shows a user what the camera sees: grid, readings, confidence."""

from __future__ import annotations

import numpy as np

from controller.squares import square_name
from controller.vision.cv import cv2
from controller.vision.geometry import apply_homography
from controller.vision.reading.board_reading import Reading

_COLOURS = {  # BGR, chosen to read on felt and on both disc colours
    "-": (150, 255, 150),
    "X": (255, 220, 0),
    "O": (0, 170, 255),
    "x": (255, 0, 255),
    "o": (255, 0, 255),
    "?": (0, 0, 255),
}


_SHORT = {"occluded": "hid", "glare": "glare", "ambiguous": "amb", "outside": "out"}


#: Outlines a calibration draws round squares: read against the start position
#: (refused), an empty square read as a disc under a lamp (kept), a start disc left
#: out of the colour levels (glare or shadow over it).
MARK_WRONG, MARK_STRAY, MARK_UNMEASURED = (0, 0, 255), (0, 140, 255), (255, 255, 255)


def annotate(
    image: np.ndarray, homography: np.ndarray, reading: Reading, title: str = "",
    marks: dict[int, tuple[int, int, int]] | None = None,
) -> np.ndarray:
    """A copy of ``image`` with the detected grid and each square's reading drawn on it.

    A known square shows its state and confidence; an unknown one shows why it is
    unknown: ``hid`` (something over it), ``glare``, ``amb`` (two readings too close
    to call) or ``out`` (partly outside the picture); a state the learned square
    model gave where the rules could not carries a ``*``. ``marks`` outlines squares in
    a colour (BGR), so that a calibration shows where it disagrees with the start
    position.
    """
    out = image.copy()
    h, w = out.shape[:2]
    scale = max(1.0, max(h, w) / 1000.0)
    thick = max(1, int(round(scale * 1.5)))
    n = reading.n
    for i in range(n + 1):
        for a, b in (((i, 0), (i, n)), ((0, i), (n, i))):
            p = apply_homography(homography, np.array([a, b], dtype=float))
            cv2.line(out, tuple(np.round(p[0]).astype(int)), tuple(np.round(p[1]).astype(int)),
                     (0, 255, 255), thick, cv2.LINE_AA)
    for sq, colour in (marks or {}).items():
        c, r = sq % n, sq // n
        inset = np.array([[c + 0.08, r + 0.08], [c + 0.92, r + 0.08], [c + 0.92, r + 0.92],
                          [c + 0.08, r + 0.92]])
        poly = np.round(apply_homography(homography, inset)).astype(np.int32)
        cv2.polylines(out, [poly], True, colour, thick + 1, cv2.LINE_AA)
    centres = apply_homography(
        homography, np.array([[c + 0.5, r + 0.5] for r in range(n) for c in range(n)])
    )
    font = cv2.FONT_HERSHEY_SIMPLEX
    for sq in range(n * n):
        ch = reading.board[sq]
        x, y = np.round(centres[sq]).astype(int)
        colour = _COLOURS.get(ch, (0, 0, 255))
        why = reading.reasons[sq] if reading.reasons else ""
        # an unknown square says why: occluded, glare, ambiguous, outside the image
        learned = "*" if sq in reading.learned else ""  # named by the learned model
        label = f"? {_SHORT.get(why, why)}" if ch == "?" and why else (
            f"{ch}{learned} {reading.confidence[sq]:.2f}")
        fs = 0.4 * scale
        (tw, th), _ = cv2.getTextSize(label, font, fs, thick)
        org = (int(x - tw / 2), int(y + th / 2))
        cv2.putText(out, label, org, font, fs, (0, 0, 0), thick + 2, cv2.LINE_AA)
        cv2.putText(out, label, org, font, fs, colour, thick, cv2.LINE_AA)
    a1 = apply_homography(homography, np.array([[0.0, 0.0]]))[0]
    cv2.circle(out, tuple(np.round(a1).astype(int)), int(6 * scale), (255, 0, 255), -1)
    label_off = 8 * scale  # pixels from the a1 dot to its label
    cv2.putText(out, square_name(0), tuple(np.round(a1 + label_off).astype(int)), font,
                0.6 * scale, (255, 0, 255), thick, cv2.LINE_AA)
    if title:
        cv2.putText(out, title, (int(10 * scale), int(30 * scale)), font, 0.7 * scale,
                    (0, 0, 0), thick + 3, cv2.LINE_AA)
        cv2.putText(out, title, (int(10 * scale), int(30 * scale)), font, 0.7 * scale,
                    (255, 255, 255), thick, cv2.LINE_AA)
    return out
