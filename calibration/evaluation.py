"""Calibration alone, over many of the project's own hard start scenes.

The benchmark's calibrated sets go on to read a game after calibrating; this counts
the calibration itself, over as many own hard sets as asked, the way a user meets
it: without ``--a1``, so the start discs settle which way round the board is, and
a board not found is a refusal like a start position misread. Beside that
end-to-end figure it says where the refusals come from, measured on the renderer's
truth and the picture, never on what the reader saw: a picture darker than
``DARK`` (where even a person squints), and a scene the renderer drew with a lamp's
saturated reflection on the board, which can hide start discs from a person too. A
grid taken more than half a square off the truth is counted too: a calibration
accepted in the wrong place fails its user later, in play, and so does one taken a
quarter turn off with nothing said (every move on the wrong square; one whose turn
the calibration says it could not settle is settled in play). The board's size is
counted too: a board under a fifth of the picture's width leaves a square a dozen
pixels or so, too few for the printed lines and the discs' rims to show in blur.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from calibration.advice import DARK
from controller.boardsize import STANDARD
from controller.measure.evaluation import grid_error, own_scenes, start_picture
from controller.vision.calibrating.fit import StartFit
from controller.vision.calibrating.search import fit_on_start
from controller.vision.calibrating.start_reading import start_of
from controller.vision.calibrating.turn import UNSETTLED, settle_turn
from controller.vision.cv import cv2
from controller.vision.finding.finder import BoardNotFound
from controller.vision.geometry import corners_of

#: A grid whose corner lies this many squares or more from the truth is misplaced.
OFF = 0.5
#: A board whose side (mean of the four) is under this share of the picture's width.
SMALL_BOARD = 0.2


@dataclass
class CalibrationTally:
    """Calibrations of own start scenes: refused (no board found, or the start
    position misread) and accepted off the board, split by what the picture shows."""

    scenes: int = 0
    refused: int = 0
    not_found: int = 0
    misplaced: int = 0  # accepted, a corner more than OFF squares from the truth
    turned: int = 0  # accepted a quarter turn off, the turn not said to be unsettled
    dark: int = 0
    dark_refused: int = 0
    glare: int = 0  # the renderer drew a lamp's saturated reflection
    glare_refused: int = 0
    both: int = 0  # dark and glare: counted once when neither is taken out
    both_refused: int = 0
    small: int = 0  # the board under SMALL_BOARD of the picture's width
    small_refused: int = 0
    refusals: list[str] = field(default_factory=list)

    def add(self, name: str, refused: bool, found: bool, misplaced: bool, dark: bool,
            glare: bool, small: bool = False, turned: bool = False) -> None:
        self.scenes += 1
        self.refused += refused
        self.not_found += not found
        self.misplaced += misplaced and not refused
        self.turned += turned and not refused
        self.dark += dark
        self.dark_refused += dark and refused
        self.glare += glare
        self.glare_refused += glare and refused
        self.both += dark and glare
        self.both_refused += dark and glare and refused
        self.small += small
        self.small_refused += small and refused
        if refused:
            self.refusals.append(name)

    def lines(self, title: str) -> list[str]:
        """The end-to-end figure first; the split by cause only beside it."""
        seen = self.scenes - self.dark - self.glare + self.both
        seen_refused = self.refused - self.dark_refused - self.glare_refused + self.both_refused
        return [
            f"   {title}: calibration refused in {self.refused} of {self.scenes} scenes "
            f"({_pct(self.refused, self.scenes)}; {self.not_found} of them no board found); "
            f"accepted more than {OFF} square off: {self.misplaced}; accepted a quarter "
            f"turn off unsaid: {self.turned}",
            f"     beside it, by what the picture shows: darker than {DARK} of 255 "
            f"{self.dark_refused} of {self.dark}; a lamp's saturated reflection drawn "
            f"{self.glare_refused} of {self.glare}; neither {seen_refused} of {seen} "
            f"({_pct(seen_refused, seen)})",
            f"     beside it, by the board's size: under {SMALL_BOARD:g} of the picture's width "
            f"{self.small_refused} of {self.small} ({_pct(self.small_refused, self.small)}); "
            f"larger {self.refused - self.small_refused} of {self.scenes - self.small} "
            f"({_pct(self.refused - self.small_refused, self.scenes - self.small)})",
            f"     refused: {', '.join(self.refusals) or 'none'}",
        ]


def _pct(n: int, d: int) -> str:
    return f"{100 * n / max(1, d):.1f}%"


def user_calibration(image: np.ndarray, corners: np.ndarray) -> tuple[StartFit | None, bool]:
    """The fit ``kaeshi calibrate`` takes on ``image`` without ``--a1`` (None: no
    board found), its turn settled as there, and whether it is taken a quarter turn
    off the board's true a1 (``corners``, a1 first) with nothing said. Half a turn
    is no error: the start position cannot tell it, and ``--a1`` is for that."""
    try:
        fit = fit_on_start(image)
    except BoardNotFound:
        return None, False
    if fit.mismatches:
        return fit, False
    settled = settle_turn(fit, image)
    return settled.fit, (settled.by != UNSETTLED
                         and quarter_off(settled.fit.setup.homography, corners))


def quarter_off(h: np.ndarray, corners: np.ndarray) -> bool:
    """Whether grid ``h`` puts a1 at a corner next to the true a1's (``corners``, a1
    first), not at it or across from it."""
    a1 = corners_of(h)[0]
    return int(np.argmin(np.linalg.norm(np.asarray(corners) - a1, axis=1))) % 2 == 1


def evaluate_calibration(n: int, seeds: list[int]) -> CalibrationTally:
    """Calibrate on the start position in the first ``n`` scenes of each own hard
    set in ``seeds``, as the benchmark's calibrated sets draw them."""
    tally = CalibrationTally()
    for seed in seeds:
        for i, own in zip(range(n), own_scenes(seed, hard=True), strict=False):
            start = start_picture(own.scene, own.render_seed)
            fit, turned = user_calibration(start.image, start.corners)
            refused = fit is None or bool(fit.mismatches)
            off = fit is not None and grid_error(fit.setup.homography, start.corners) > OFF
            dark = float(cv2.cvtColor(start.image, cv2.COLOR_BGR2GRAY).mean()) < DARK
            glare = bool(own.scene.glare)
            corners = np.asarray(start.corners, dtype=np.float64)
            side = float(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1).mean())
            small = side < SMALL_BOARD * start.image.shape[1]
            tally.add(f"{seed}/{i}", refused, fit is not None, off, dark, glare, small, turned)
    return tally


#: How a start position is set up wrong, one disc at a time: what a calibration
#: must refuse, naming the disc, however the lamp falls.
WRONG_SET_UPS = ("the other colour", "missing")


@dataclass
class WrongStartTally:
    """Calibrations of own start scenes set up wrong: each kind's scenes and how
    many of them were refused (a board not found counts as refused: the user hears
    of it all the same)."""

    scenes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(WRONG_SET_UPS, 0))
    refused: dict[str, int] = field(default_factory=lambda: dict.fromkeys(WRONG_SET_UPS, 0))
    accepted: list[str] = field(default_factory=list)

    def add(self, name: str, kind: str, refused: bool) -> None:
        self.scenes[kind] += 1
        self.refused[kind] += refused
        if not refused:
            self.accepted.append(name)

    def lines(self, title: str) -> list[str]:
        n, refused = sum(self.scenes.values()), sum(self.refused.values())
        kinds = "; ".join(f"a start disc {kind}: {self.refused[kind]} of {self.scenes[kind]}"
                          for kind in WRONG_SET_UPS)
        return [
            f"   {title}: refused {refused} of {n} ({_pct(refused, n)}); {kinds}",
            f"     accepted: {', '.join(self.accepted) or 'none'}",
        ]


def wrong_start(i: int, size: int = STANDARD) -> tuple[str, str]:
    """The start position of a ``size`` x ``size`` board as scene ``i`` of a set sets
    it up wrong, and how: each start disc in turn, the other colour and then missing."""
    s = start_of(size)
    disc = s.discs[i % len(s.discs)]
    kind = WRONG_SET_UPS[(i // len(s.discs)) % len(WRONG_SET_UPS)]
    put = "-" if kind == "missing" else "X" if s.board[disc] == "O" else "O"
    return s.board[:disc] + put + s.board[disc + 1:], kind


def evaluate_wrong_starts(n: int, seed: int, hard: bool) -> WrongStartTally:
    """Calibrate on the first ``n`` scenes of own set ``seed``, each with its start
    position set up wrong by one disc (see :func:`wrong_start`)."""
    from controller.synth.picture import render

    tally = WrongStartTally()
    for i, own in zip(range(n), own_scenes(seed, hard=hard), strict=False):
        board, kind = wrong_start(i)
        calm = replace(own.scene, hand=False, resting_hand=False)  # set up to calibrate
        picture = render(board, calm, seed=own.render_seed)
        fit, _ = user_calibration(picture.image, picture.corners)
        tally.add(f"{seed}/{i} ({kind})", kind, fit is None or bool(fit.mismatches))
    return tally
