"""Camera calibration: find the board, fit the colour model on the start position,
and keep the result in a small JSON file that ``kaeshi watch`` loads.

The file holds the image size, the board homography in the user's a1 orientation,
the disc height used for oblique views and the colour model; it is plain JSON so a
user can read it and a bug report can include it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from controller.errors import KaeshiError
from controller.squares import square_name
from controller.vision.finder import BoardNotFound
from controller.vision.geometry import a1_place, corners_of, grid_with_a1
from controller.vision.pipeline import auto_setup
from controller.vision.setup import CameraSetup
from controller.vision.startfit import StartFit, fit_start_position
from controller.vision.startsearch import fit_on_start

FORMAT = "kaeshi-camera-calibration"
VERSION = 1


class CalibrationError(KaeshiError):
    """A calibration file that cannot be used; the message names the file and the fault."""


@dataclass
class CameraCalibration:
    setup: CameraSetup
    source: str = ""
    created: str = field(default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()))
    start_position_ok: bool = False

    def to_dict(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "created": self.created,
            "source": self.source,
            "start_position_ok": self.start_position_ok,
            **self.setup.to_dict(),
        }


def save_calibration(path: str | Path, cal: CameraCalibration) -> None:
    p = Path(path)
    try:
        p.write_text(json.dumps(cal.to_dict(), indent=2) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CalibrationError(f"{p}: cannot write calibration ({exc.strerror})") from None


def load_calibration(path: str | Path) -> CameraCalibration:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CalibrationError(
            f"{p}: no such calibration file (make one with: kaeshi calibrate camera)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CalibrationError(f"{p}: cannot read calibration ({exc})") from None
    try:
        d = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(
            f"{p}: not a calibration file (line {exc.lineno}: {exc.msg})"
        ) from None
    if not isinstance(d, dict) or d.get("format") != FORMAT:
        raise CalibrationError(f"{p}: not a camera calibration file")
    if d.get("version") != VERSION:
        raise CalibrationError(f"{p}: calibration version {d.get('version')} is not supported")
    try:
        setup = CameraSetup.from_dict(d)
    except ValueError as exc:
        raise CalibrationError(f"{p}: {exc}") from None
    return CameraCalibration(
        setup=setup,
        source=str(d.get("source", "")),
        created=str(d.get("created", "")),
        start_position_ok=bool(d.get("start_position_ok", False)),
    )


@dataclass
class CalibrationResult:
    calibration: CameraCalibration
    fit: StartFit
    warnings: list[str]


def calibrate_image(
    image: np.ndarray,
    corners: np.ndarray | None = None,
    a1: str | None = None,
    source: str = "",
) -> CalibrationResult:
    """Calibrate from one image of the board set up at the start position."""
    fixed = corners is not None or a1 is not None
    try:
        if corners is not None:  # the user's grid is theirs: nothing else is tried
            fit = fit_start_position(auto_setup(image, corners=corners), image, a1_fixed=True)
        else:
            fit = fit_on_start(image, None if a1 is None else partial(grid_with_a1, a1=a1))
    except BoardNotFound as exc:
        hint = picture_hint(image)
        raise BoardNotFound(f"{exc}{'; ' + hint if hint else ''}") from None
    warnings = []
    if fit.mismatches:
        warnings.append(
            f"calibration refused: {len(fit.mismatches)} squares do not read as the start "
            f"position ({_names(fit.mismatches)}). Set up the start position (white d4, e5; "
            "black e4, d5), check the picture, and calibrate again."
        )
    if fit.short_edges:
        warnings.append(
            "the felt goes on past the grid's " + " and ".join(fit.short_edges)
            + " edge" + ("s" if len(fit.short_edges) > 1 else "")
            + ": the grid found covers only part of the board. Light the board evenly "
            "or give its corners with --corners, and calibrate again."
        )
    elif not fit.mismatches and fit.unmeasured:
        covered = _names(fit.unmeasured)
        kept = ("the levels were fitted on the other start discs" if fit.setup.model.fitted
                else "the colour levels could not be fitted on the start discs")
        warnings.append(
            f"a lamp's reflection or a shadow covers {covered}, so {kept}"
            + ("" if fit.setup.model.fitted else
               "; they are fitted during the game from the first still board that shows "
               "enough black and white discs, and until then a dim disc may read as ?")
            + f". Move the lamp off {covered} and calibrate again for a set-up that is "
            "right from the first move."
        )
    if fit.stray:
        warnings.append(
            f"{_names(fit.stray)} read as a disc although the start position has it empty "
            "(a disc left there, or a lamp's light or reflection): the grid and colours "
            "fit, but clear the square or move the lamp, or it may misread in play"
        )
    if fit.unknown:
        warnings.append(
            f"{len(fit.unknown)} square{'s' if len(fit.unknown) > 1 else ''} could not be "
            f"read ({_names(fit.unknown)}): glare, a shadow or something over the board; "
            "they will read as ? while that lasts"
        )
    dim = bool(_light_hint(image)) or float(np.median(fit.reading.felt_grey)) < DARK_FELT
    if (fit.mismatches or not fit.setup.model.fitted or len(fit.unknown) >= UNREAD_ADVICE
            or dim):  # a calibration that worked in the dark still says so: play is harder
        warnings += what_to_change(image, fit)
    if not fixed:
        warnings.append(
            f"a1 was taken to be the {a1_place(fit.setup.homography)} corner of the image "
            "(the start position fixes it only up to half a turn); pass --a1 to choose"
        )
    cal = CameraCalibration(
        setup=fit.setup, source=source, start_position_ok=not fit.mismatches
    )
    return CalibrationResult(cal, fit, warnings)


def _names(squares: list[int], most: int = 12) -> str:
    """Square names, the first ``most`` of them and how many more."""
    more = "" if len(squares) <= most else f" and {len(squares) - most} more"
    return ", ".join(square_name(i) for i in squares[:most]) + more


UNREAD_ADVICE = 8  # unread squares at calibration from which the user is told what to change
DARK = 30  # grey level (of 255) below which a picture is too dark to read discs well
DARK_FELT = 20  # ... and of the felt itself, where the discs are judged against it
BRIGHT_FELT = 215  # the felt this bright is washed out: too much light or exposure


def picture_hint(image: np.ndarray) -> str:
    """What is wrong with a picture in which no board was found, if it shows."""
    light = _light_hint(image)
    if light:
        return light
    sides = _felt_at_borders(image)
    if sides:
        corner = _CORNER_OF.get(frozenset(sides))
        where = (f"the board's {corner} corner seems to be outside the picture" if corner
                 else "the board seems to go on past the picture's "
                 + " and ".join(sides) + " edge" + ("s" if len(sides) > 1 else ""))
        return where + ": move or turn the camera (or zoom out) so that the whole board shows"
    return ""


def _light_hint(image: np.ndarray) -> str:
    """Too dark or washed out, with the picture's brightness; else ''."""
    grey = float(np.mean(image)) if image is not None and image.size else 0.0
    if grey < DARK:
        return (f"the picture is too dark (average brightness {grey:.0f} of 255): "
                "switch on a lamp over the board or raise the camera's exposure")
    if grey > 235:
        return (f"the picture is washed out (average brightness {grey:.0f} of 255): "
                "lower the camera's exposure")
    return ""


BORDER_FELT = 0.08  # share of a picture's edge that felt must reach to be cut off there
FELT_AREA = 0.03  # share of the picture the felt must cover to be taken for the board
_CORNER_OF = {frozenset(("top", "left")): "upper-left", frozenset(("top", "right")): "upper-right",
              frozenset(("bottom", "right")): "lower-right",
              frozenset(("bottom", "left")): "lower-left"}


def _felt_at_borders(image: np.ndarray) -> list[str]:
    """The picture's edges that the largest felt-coloured area runs into."""
    from controller.vision.cv import cv2
    from controller.vision.finder import green_mask_hsv

    if image is None or image.ndim != 3 or min(image.shape[:2]) < 16:
        return []
    small = cv2.resize(image, (160, max(2, round(160 * image.shape[0] / image.shape[1]))),
                       interpolation=cv2.INTER_AREA)
    mask = green_mask_hsv(cv2.cvtColor(small, cv2.COLOR_BGR2HSV))
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return []
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[best, cv2.CC_STAT_AREA] < FELT_AREA * mask.size:
        return []
    board = labels == best
    edges = {"top": board[0], "bottom": board[-1], "left": board[:, 0], "right": board[:, -1]}
    return [name for name, line in edges.items() if line.mean() > BORDER_FELT]


def what_to_change(image: np.ndarray, fit: StartFit) -> list[str]:
    """What the user should change when the start position could not be fitted.

    Each reason seen gets one sentence: corners of the board outside the picture,
    too little or too much light, a lamp's reflection, something over the board.
    """
    out = []
    h, w = image.shape[:2]
    for name, (x, y) in zip(CORNER_NAMES, _by_image_corner(corners_of(fit.setup.homography)),
                            strict=True):
        if not (0 <= x < w and 0 <= y < h):
            out.append(f"the board's {name} corner is outside the picture: move or turn "
                       "the camera (or zoom out) so that the whole board shows")
    felt = float(np.median(fit.reading.felt_grey))
    hint = _light_hint(image)
    if hint:
        out.append(hint)
    elif felt < DARK_FELT:
        out.append(f"too dark: the felt shows only {felt:.0f} of 255 grey levels; switch on a "
                   "lamp over the board or raise the camera's exposure")
    elif felt > BRIGHT_FELT:
        out.append(f"too bright: the felt shows {felt:.0f} of 255 grey levels; lower the "
                   "camera's exposure or dim the lamp")
    reasons = fit.reading.reasons or ("",) * 64
    for why, advice in (("glare", "a lamp's reflection washes out {}: move the lamp or tilt "
                         "the camera so that the reflection leaves the board"),
                        ("occluded", "something covers {}: clear the board and keep hands "
                         "out of the picture")):
        squares = [square_name(i) for i, r in enumerate(reasons) if r == why]
        if why == "occluded" and (felt < DARK_FELT or hint):
            continue  # in the dark, felt that cannot be told is no hand
        if len(squares) >= 2 or (squares and any(
                square_name(i) in squares for i in (27, 28, 35, 36))):
            names = ", ".join(squares[:8]) + (" ..." if len(squares) > 8 else "")
            out.append(advice.format(names))
    return out


CORNER_NAMES = ("upper-left", "upper-right", "lower-right", "lower-left")


def _by_image_corner(corners: np.ndarray) -> np.ndarray:
    """The board's corners in the order of ``CORNER_NAMES``, as seen in the image."""
    from controller.vision.geometry import upright_order

    return upright_order(corners)
