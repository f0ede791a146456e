"""Camera calibration: find the board, fit the colour model on the start position,
and keep the result in the calibration file (:mod:`controller.vision.calibration_file`)
that ``kaeshi watch`` loads."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial

import numpy as np

from calibration.advice import UNREAD_ADVICE, no_board_advice, too_dim, what_to_change
from controller.boardsize import STANDARD
from controller.squares import square_name
from controller.vision.calibrating.fit import StartFit, fit_start_position
from controller.vision.calibrating.search import DOUBTED, fit_on_start
from controller.vision.calibrating.start_reading import next_to_glare, start_of
from controller.vision.calibrating.turn import BY_MODEL, UNSETTLED, settle_turn
from controller.vision.calibration_file import CameraCalibration
from controller.vision.finding.finder import BoardNotFound
from controller.vision.geometry import a1_place, grid_with_a1
from controller.vision.pipeline import auto_setup


def _mismatch_advice(fit: StartFit) -> list[str]:
    """What to do when every contradiction is of one kind, which no grid fault
    explains: discs where the start has none, start discs read empty beside a
    reflection, or start discs read in the other colour."""
    board, wrong = fit.reading.board, fit.mismatches
    n = fit.setup.size
    s = start_of(n)
    lit = next_to_glare(fit.reading)
    extra = [i for i in wrong if s.board[i] == "-" and board[i] in "XOxo"]
    if extra and len(extra) == len(wrong):  # only discs too many: no grid fault
        return [f"{_names(extra, n)} read as a disc where the start position has none: take "
                "any disc off, or move the lamp if its light falls there"]
    missing = [i for i in wrong if i in s.discs and board[i] == "-"]
    if missing and len(missing) == len(wrong) and lit[missing].all():
        # a reflection's halo can pale a black disc to the felt's shade
        return [f"{_names(missing, n)} read empty next to a lamp's reflection, though the start "
                "position has a disc there: if the disc is there, move the lamp off it and "
                "calibrate again"]
    # a start disc off its centre in its own colour can contradict too: not swapped
    swapped = [i for i in wrong if s.board[i] in "XO" and board[i].upper() in "XO"
               and board[i].upper() != s.board[i]]
    if swapped and len(swapped) == len(wrong):
        said = ", ".join(f"{square_name(i, n)} {'black' if board[i] in 'Xx' else 'white'}"
                         for i in swapped)
        why = (_lamp_swaps(board, swapped) if lit[swapped].all() else
               "if the discs lie that way, turn them over; else light the board evenly "
               "and calibrate again")
        return [f"read {said}, the other colour than the start position has there "
                f"({start_discs_said(n)}): {why}"]
    return []


def _lamp_swaps(board: str, swapped: list[int]) -> str:
    """How a lamp beside them turns start discs the other colour, each way that
    happened: a white disc's light is judged against felt lit far more, and a black
    disc's glossy top mirrors the lamp."""
    ways = []
    if any(board[i] in "Xx" for i in swapped):
        ways.append("a lamp's reflection beside it lights the felt round a disc far more "
                    "than the disc, so a white disc can look dark")
    if any(board[i] in "Oo" for i in swapped):
        ways.append("a lamp mirrored in a black disc's top can make it look white")
    return "; ".join(ways) + ": move the lamp off the middle of the board and calibrate again"


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
    searching: Callable[[str], None] | None = None,
    size: int = STANDARD,
) -> CalibrationResult:
    """Calibrate from one image of a ``size`` x ``size`` board set up at the start
    position; ``searching`` hears when a hard picture makes the board search slow."""
    fixed = corners is not None or a1 is not None
    n = size
    try:
        if corners is not None:  # the user's grid is theirs: nothing else is tried
            fit = fit_start_position(auto_setup(image, corners=corners, n=n), image,
                                     a1_fixed=True)
        else:
            fit = fit_on_start(image, None if a1 is None else partial(grid_with_a1, a1=a1, n=n),
                               searching, n)
    except BoardNotFound as exc:
        raise BoardNotFound(f"{exc}; {no_board_advice(image, exc.felt_seen)}",
                            exc.felt_seen) from None
    settled = None if fixed or fit.mismatches else settle_turn(fit, image)
    if settled is not None:
        fit = settled.fit
    unsettled = settled is not None and settled.by == UNSETTLED
    warnings = []
    if fit.mismatches:
        warnings.append(
            f"calibration refused: {len(fit.mismatches)} "
            f"{'square does' if len(fit.mismatches) == 1 else 'squares do'} not read as the "
            f"start position ({_names(fit.mismatches, n)}). Set up the start position "
            f"({start_discs_said(n)}), check the picture, and calibrate again."
        )
        warnings += _mismatch_advice(fit)
    if fit.short_edges:
        warnings.append(
            "the felt goes on past the grid's " + " and ".join(fit.short_edges)
            + " edge" + ("s" if len(fit.short_edges) > 1 else "")
            + ": the grid found covers only part of the board. Light the board evenly "
            "or give its corners with --corners, and calibrate again."
        )
    elif not fit.mismatches and fit.unmeasured:
        covered = _names(fit.unmeasured, n)
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
            f"{_names(fit.stray, n)} read as a disc although the start position has it empty "
            "(a disc left there, or a lamp's light or reflection): the grid and colours "
            "fit, but clear the square or move the lamp, or it may misread in play"
        )
    if fit.off_centre:
        warnings.append(
            f"{_names(fit.off_centre, n)} "
            + ("stands off its square's centre" if len(fit.off_centre) == 1
               else "stand off their squares' centres")
            + ": taken as the start position, but centre the discs as you would in play"
        )
    if fit.overruled:
        warnings.append(
            f"{_names(fit.overruled, n)} read as a disc by brightness, though the square "
            "looks empty to the learned model (a shadow's edge or a lamp's pool there): "
            "left unread, and the grid and colours kept; in play the learned model has the "
            "last word there and the square reads ? when it is unsure, so even out the light "
            "there for a board that reads in full"
        )
    if fit.faint:
        colour = "black" if start_of(n).board[fit.faint[0]] == "X" else "white"
        warnings.append(
            f"{_names(fit.faint, n)} read empty by brightness, though the learned model sees "
            f"the start position's {colour} disc there: in this light a {colour} disc barely "
            "stands out from the felt. Left unread, and the grid and colours kept, but light "
            f"the board better or {colour} discs may read empty in play"
        )
    if fit.closed_edges:
        edges = " and ".join(fit.closed_edges)
        warnings.append(
            f"felt seems to go on past the {edges} edge, but the learned model sees no square "
            "of the board there (a frameless board's green side, or a reflection's halo on "
            "the frame): the grid kept. Check on the calibration picture that it ends at the "
            "board's last printed line on that side"
        )
    if fit.felt_unseen:
        warnings.append(
            f"{_names(fit.felt_unseen, n)} along the board's edge show no felt in their corners, "
            "but the learned model sees the board's squares there (a dark felt's edge in shade "
            "or blur): the grid kept. Check on the calibration picture that it ends at the "
            "board's last printed line on that side"
        )
    if fit.doubt is not None:
        warnings.append(
            "nothing on the grid found contradicts the start position, but the learned "
            f"model doubts that its squares are the board's (doubt {fit.doubt:.2f} of 1, "
            f"where the board's own squares stay under {DOUBTED}) and no other grid reads "
            "it: the grid may take in the table round the board, or cover only part of it. "
            "Look at the calibration picture; if the grid is off, move the lamp off the "
            "board or give its corners with --corners, and calibrate again"
        )
    unread = [i for i in fit.unknown if i not in fit.overruled and i not in fit.faint]
    if unread:
        warnings.append(
            f"{len(unread)} square{'s' if len(unread) > 1 else ''} could not be "
            f"read ({_names(unread, n)}): glare, a shadow or something over the board; "
            "they will read as ? while that lasts"
        )
    if (fit.mismatches or not fit.setup.model.fitted or len(fit.unknown) >= UNREAD_ADVICE
            or too_dim(image, fit)):  # one that worked in the dark says so: play is harder
        warnings += what_to_change(image, fit)
    if settled is not None and settled.by == BY_MODEL:
        warnings.append(
            "none of the four start discs could be read by brightness; the learned model "
            f"sees the start position's disc on {_names(list(settled.seen), n)}, so a1 was put "
            f"at the {a1_place(fit.setup.homography)} corner of the image. Check it on the "
            "calibration picture (a quarter turn off would put every move on the wrong "
            "square), or pass --a1 with the corner where a1 is"
        )
    elif unsettled:
        warnings.append(
            "none of the four start discs could be read, so the picture does not show which "
            f"way round the board is: a1 was put at the {a1_place(fit.setup.homography)} "
            "corner of the image, which may be a quarter turn off. Watching settles it from "
            "the game's first moves (and keeps it in this file); until then a board that fits "
            "only the other way round is held back. Or pass --a1 with the corner where a1 "
            "is, or move the lamp off the middle of the board and calibrate again"
        )
    elif not fixed:
        warnings.append(
            f"a1 was taken to be the {a1_place(fit.setup.homography)} corner of the image "
            "(the start position fixes it only up to half a turn); pass --a1 to choose"
        )
    cal = CameraCalibration(
        setup=replace(fit.setup, turn_unsettled=unsettled), source=source,
        start_position_ok=not fit.mismatches,
    )
    return CalibrationResult(cal, fit, warnings)


def _names(squares: list[int], n: int, most: int = 12) -> str:
    """Square names, the first ``most`` of them and how many more."""
    more = "" if len(squares) <= most else f" and {len(squares) - most} more"
    return ", ".join(square_name(i, n) for i in squares[:most]) + more


def start_discs_said(n: int) -> str:
    """Where the start discs stand, for a message: "white d4, e5; black e4, d5" on 8x8."""
    s = start_of(n)
    return (f"white {', '.join(square_name(i, n) for i in s.white)}; "
            f"black {', '.join(square_name(i, n) for i in s.black)}")
