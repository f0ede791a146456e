"""Calibration on the standard start position: 4 known discs, 60 known empties.

Knowing what every square holds turns the reading around: instead of asking the
reader what it sees, the fit measures what it knows is there. A white start disc
that the reader calls felt (a pale cast) or glare (a green sheen) is still a white
disc whose brightness can be measured; a black disc under a lamp's reflection is
the brighter of the two black discs and is left out; squares hidden by glare or a
shadow are unknown, not contradictions. Only what no lighting explains refuses the
calibration: a start disc read as the other colour or as empty, a disc read on the
board's outer ring or on more than two empty squares, a whole edge without felt,
or felt and printed lines going on past an edge.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from controller.position import START_BOARD
from controller.vision.colour import ColourModel, balanced_on
from controller.vision.cv import cv2
from controller.vision.geometry import corners_of, homography_from_corners
from controller.vision.grid_check import CONFIRMED
from controller.vision.reader import SquareReader
from controller.vision.reading import AMBIGUOUS, GLARE, Reading
from controller.vision.sampling import smoothed
from controller.vision.setup import CameraSetup
from controller.vision.square_model import CLASSES, patch_index, patches
from controller.vision.squarestats import neighbourhood_mean
from controller.vision.startedges import EDGES, edges_off_board, felt_past_edges

WHITE_START = (27, 36)  # d4, e5
BLACK_START = (28, 35)  # e4, d5
START_DISCS = (*WHITE_START, *BLACK_START)
CLIPPED = 245  # a pixel this bright in every channel is clipped: glare on a black disc
WHITE_QUANTILE = 0.4  # of a white disc top's grey levels (as the reader measures them)
MIN_CLEAR = 0.5  # share of a black disc's top that must be unclipped to be measured
MIN_DISC_PART = 0.3  # share of a top's pixels not felt from which only those are measured
BLACK_AGREE = 0.7  # log units: two black discs further apart than this, one is lit
MAX_BLACK = 0.3  # a black disc measured brighter than this (log to felt) is under glare
MIN_WHITE = 0.2  # a white disc is brighter than the felt (log units)
MIN_LEVEL_GAP = 0.6  # log units between the levels for them to be trusted at all
DISC_AS_FELT = 0.3  # felt share of a start disc's top from which it reads as felt
SAT_MARGIN = 12  # saturation levels that must part the start discs from the felt
FELT_SAT_QUANTILE = 0.1  # of the empty squares' corners: the felt's (lines and blur below)
STRAY_MAX = 2  # empty squares read as discs, away from the middle, that glare may explain


@dataclass(frozen=True)
class StartFit:
    """The result of fitting a set-up on the standard start position."""

    setup: CameraSetup
    reading: Reading
    mismatches: list[int]  # squares read as something else than the start position
    unknown: list[int]  # squares that could not be read (glare, a hand)
    short_edges: list[str] = field(default_factory=list)  # felt goes on past these edges
    #: empty squares read as a disc under a lamp's reflection: not a wrong grid or
    #: wrong colours, so kept, but named to the user
    stray: list[int] = field(default_factory=list)
    #: start discs left out of the levels (under glare, or hidden)
    unmeasured: list[int] = field(default_factory=list)
    #: squares the rules read against the start position where the learned model
    #: sees it (a shadow's edge, a reflection's halo): left unread, and named
    overruled: list[int] = field(default_factory=list)
    #: start discs of the right colour placed a little off their squares' centres
    off_centre: list[int] = field(default_factory=list)


def turn(h: np.ndarray, quarter_turns: int) -> np.ndarray:
    """The same board homography with a1 moved ``quarter_turns`` corners clockwise."""
    return homography_from_corners(np.roll(corners_of(h), -quarter_turns, axis=0))


def fit_start_position(setup: CameraSetup, image: np.ndarray, a1_fixed: bool) -> StartFit:
    """Fit the colour model on the start position (4 known discs, 60 known empties).

    The start position looks the same turned by half a turn but not by a quarter,
    so unless the user fixed a1 it also settles which way round the board is: the
    diagonal whose discs are brighter holds the white ones.
    """
    reader = setup.reader()
    canvas = reader.warp(image)
    r = reader.read_canvas(canvas)
    if not a1_fixed:
        lr = _disc_levels(reader, canvas, r, WHITE_QUANTILE, clipped_out=False)
        if np.nansum(lr[list(BLACK_START)]) > np.nansum(lr[list(WHITE_START)]):
            setup = replace(setup, homography=turn(setup.homography, 1))
            reader = setup.reader()
            canvas = reader.warp(image)
            r = reader.read_canvas(canvas)
    model = _discs_apart_from_felt(reader, canvas)
    model = _start_balance(reader.with_model(model), canvas)
    if model is not setup.model:
        setup = replace(setup, model=model)
        reader = reader.with_model(model)
        r = reader.read_canvas(canvas)
    levels = _start_levels(reader, canvas, r)
    unmeasured = [i for i in START_DISCS if i not in levels.used]
    setup = replace(setup, model=levels.apply(setup.model))
    reader = reader.with_model(setup.model)
    r = reader.read_canvas(canvas)
    r = _lit_black_unknown(r, levels.lit)
    r = _paled_unknown(r, reader, canvas)
    off_centre = _off_centre(r)
    overruled = _model_overruled(r, reader, canvas, off_centre)
    r = _unread(r, overruled, AMBIGUOUS)
    mismatches, stray = _contradictions(r, off_centre)
    short = felt_past_edges(reader, canvas)
    mismatches = sorted(
        set(mismatches) | set(edges_off_board(r, reader, canvas))
        | {i for name in short for i in EDGES[name]}
    )
    unknown = [i for i in range(64) if r.board[i] == "?"]
    return StartFit(setup, r, mismatches, unknown, short, stray, unmeasured, overruled,
                    off_centre)


def _disc_levels(
    reader: SquareReader, canvas: np.ndarray, r: Reading, q: float, clipped_out: bool
) -> np.ndarray:
    """(64,) the start discs' log brightness to the felt next to them, measured on
    all of each disc top's pixels (nan elsewhere, and where too few are left).

    The reader measures only the top's pixels that are not felt, and not at all
    where it suspects glare; here the disc is known to be there. Its pixels that are
    not felt are taken when there are enough of them (the top a little aside of
    where the layout expects it), else all (a white disc the felt test takes in).
    ``clipped_out`` leaves out pixels clipped in every channel: on a black disc they
    are a lamp's reflection, on a white one they are the disc.
    """
    felt, grey, _ = reader.model.masks(canvas)
    low = canvas.reshape(-1, 3).min(axis=1)
    out = np.full(64, np.nan)
    for i in START_DISCS:
        idx = reader.layout.top[i]
        keep = low[idx] < CLIPPED if clipped_out else np.ones(len(idx), bool)
        if keep.mean() < MIN_CLEAR:
            continue
        if (keep & ~felt[idx]).mean() >= MIN_DISC_PART:  # a top seen a little aside
            keep &= ~felt[idx]
        g = float(np.quantile(grey[idx][keep], q))
        out[i] = np.log(g + 2.0) - np.log(float(r.felt_grey[i]) + 2.0)
    return out


def _discs_apart_from_felt(reader: SquareReader, canvas: np.ndarray) -> ColourModel:
    """A felt saturation floor that leaves the start discs out of the felt.

    Under a green or yellow cast a white disc takes on the felt's hue, and in a dim
    room or under green light a black disc's top is a dark green; a dull felt
    lowers the saturation floor to where such a disc passes for felt: it then reads
    empty. Neither is as saturated as the felt itself. The four start discs and the
    corners of the sixty empty squares show both, and a floor between them parts
    them when their saturations do not overlap; otherwise the model is kept.
    """
    model = reader.model
    canvas = smoothed(canvas)  # as the reader sees it: noise alone spreads the tails
    felt, _, _ = model.masks(canvas)
    lay = reader.layout
    if max(float(felt[lay.top[i]].mean()) for i in START_DISCS) < DISC_AS_FELT:
        return model
    sat = cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV)[..., 1].ravel()
    discs = max(float(np.quantile(sat[lay.top[i]], 0.9)) for i in START_DISCS)
    empties = [i for i in range(64) if START_BOARD[i] == "-" and not lay.outside[i]]
    corner_px = lay.corners[empties].ravel()
    on_felt = corner_px[felt[corner_px]]
    if not len(on_felt) or len(on_felt) < 0.5 * len(corner_px):  # none: all outside
        return model
    floor = float(np.quantile(sat[on_felt], FELT_SAT_QUANTILE))
    if floor - discs < 2 * SAT_MARGIN:
        return model
    return replace(model, sat_min=max(model.sat_min, 0.5 * (floor + discs)))


def _start_balance(reader: SquareReader, canvas: np.ndarray) -> ColourModel:
    """The model with gains that make the two white start discs grey.

    White discs are the one thing on a board that should have no colour; under a
    warm lamp or a wrong white balance they come out tinted, and the foreign-colour
    test then takes them for a hand. Pixels clipped in all channels (glare) carry no
    cast and are left out. A cast beyond ``BALANCE_GAIN`` is something else (the
    disc is not seen): no change.
    """
    model = reader.model
    felt, _, _ = model.masks(canvas)
    idx = np.concatenate([reader.layout.top[i] for i in WHITE_START])
    return balanced_on(model, canvas, felt, idx)


@dataclass(frozen=True)
class _Levels:
    """The start discs' levels, as far as they could be measured."""

    black: float | None
    white: float | None
    black_top: float  # the brightest black disc used
    white_bottom: float  # the dimmest white disc used
    used: tuple[int, ...]
    lit: tuple[int, ...] = ()  # black discs left out as brighter than black can be

    def apply(self, model: ColourModel) -> ColourModel:
        """Both levels measured: the model is fitted, with the cut between the two
        colours as the start discs show them. Otherwise the model stays unfitted, so
        that ``watch`` fits it on the first clear board in play, with the levels the
        picture's discs gave (one level from two discs under uneven light reads
        worse than both from all of them), unless those levels cannot be black and
        white (glare taken for a colour): then the defaults."""
        if self.black is not None and self.white is not None:
            return replace(model, black_log=self.black, white_log=self.white, fitted=True,
                           split=0.5 * (self.black_top + self.white_bottom),
                           gap=self.white_bottom - self.black_top)
        if model.white_log - model.black_log >= MIN_LEVEL_GAP and model.black_log < MAX_BLACK:
            return replace(model, fitted=False)
        default = ColourModel()
        return replace(model, black_log=default.black_log, white_log=default.white_log,
                       fitted=False, split=None, gap=None)


def _start_levels(reader: SquareReader, canvas: np.ndarray, r: Reading) -> _Levels:
    """Black and white levels from the start discs that a lamp does not wash out.

    Glare only ever brightens: a black disc much brighter than the other is under
    it and left out, and a black disc neither darker than the felt nor clearly
    darker than the white discs is no measure of black at all. A white disc's own
    highlights are the disc, so it is measured on all its pixels when the reader
    called it glare. Discs with something foreign over them are left out.
    """
    from controller.vision.reading import FOREIGN_SQUARE

    black_own = _disc_levels(reader, canvas, r, WHITE_QUANTILE, clipped_out=True)
    white_own = _disc_levels(reader, canvas, r, WHITE_QUANTILE, clipped_out=False)
    glare = r.glare if r.glare is not None else np.zeros(64, bool)
    seen = {i: r.foreign[i] <= FOREIGN_SQUARE for i in START_DISCS}
    white_seen = {}  # the white discs' levels, before the black ones set their floor
    for i in WHITE_START:
        v = r.log_ratio[i] if np.isfinite(r.log_ratio[i]) else white_own[i]
        if seen[i] and np.isfinite(v) and v > MIN_WHITE:
            white_seen[i] = float(v)
    # on a dark felt a black disc's sheen takes it above the felt: darker than the
    # white discs by a clear gap, and agreeing with the other black disc, is then
    # black enough
    ceiling = max(MAX_BLACK, min(white_seen.values(), default=MAX_BLACK) - MIN_LEVEL_GAP)
    blacks, lit = {}, []
    for i in BLACK_START:
        v = r.log_ratio[i] if np.isfinite(r.log_ratio[i]) and not glare[i] else black_own[i]
        if seen[i] and np.isfinite(v) and v < ceiling:
            blacks[i] = float(v)
        elif seen[i]:
            lit.append(i)  # clipped or brighter than a black disc: a lamp's reflection
    if len(blacks) == 2 and abs(blacks[28] - blacks[35]) > BLACK_AGREE:
        brighter = max(blacks, key=blacks.__getitem__)
        del blacks[brighter]
        lit.append(brighter)
    if len(blacks) == 1 and max(blacks.values()) >= MAX_BLACK:  # sheen or a lamp: one
        lit += list(blacks)  # disc alone cannot tell, two that agree can
        blacks = {}
    floor = max(blacks.values()) + MIN_LEVEL_GAP if blacks else MIN_WHITE
    whites = {i: v for i, v in white_seen.items() if v > floor}
    return _Levels(
        black=float(np.mean(list(blacks.values()))) if blacks else None,
        white=float(np.mean(list(whites.values()))) if whites else None,
        black_top=max(blacks.values(), default=float("nan")),
        white_bottom=min(whites.values(), default=float("nan")),
        used=tuple(sorted((*blacks, *whites))),
        lit=tuple(sorted(lit)),
    )


def _lit_black_unknown(r: Reading, lit: tuple[int, ...]) -> Reading:
    """Black start discs that a lamp's reflection lights up as white read ``?``
    (glare): what covers them is known, and it is no contradiction."""
    return _unread_for_glare(r, [i for i in lit if r.board[i] in "Oo"])


def _paled_unknown(r: Reading, reader: SquareReader, canvas: np.ndarray) -> Reading:
    """A start disc read empty beside a lamp's reflection, while the other three read
    right, reads ``?`` (glare) if the learned model sees the start's own disc there.

    A reflection's halo pales a black disc to the felt's shade for the reader's
    rules, which measure a top's brightness against the felt next to it; the model
    sees the whole square, the disc's rim and shadow too. Its likeliest reading is
    enough to doubt the rules' here (the square is only left unread), not to name
    the disc. Where no disc lies, the model sees felt, and the square still refuses
    the calibration. One disc only: a grid a fraction of a square off also leaves
    the rules measuring felt beside discs the model sees, on more than one.
    """
    model = reader.square_model
    glare = next_to_glare(r)
    paled = [i for i in START_DISCS if r.board[i] == "-" and glare[i]
             and not reader.layout.outside[i]]
    if model is None or len(paled) != 1 or _start_discs_right(r) != len(START_DISCS) - 1:
        return r
    x = patches(smoothed(canvas), patch_index(reader.layout), np.array(paled))
    seen = CLASSES[int(model.probabilities(x, flips=True)[0].argmax())]
    return _unread_for_glare(r, paled) if seen == START_BOARD[paled[0]] else r


def _model_overruled(r: Reading, reader: SquareReader, canvas: np.ndarray,
                     excused: list[int]) -> list[int]:
    """Squares the rules read against the start position where the learned model
    sees what the start position holds, on a grid whose squares the model
    confirms: they are left unread (ambiguous) instead of contradicting it.

    The rules judge a square by its disc top's brightness to the felt beside it: a
    shadow's edge or a dark band across empty felt passes for a disc, and a disc
    in a reflection's halo for felt. The model sees the whole square, rim and
    shadow too, and was trained to call a patch off the board's squares "other":
    where it takes nearly every square of the grid for one of the board's, the
    grid is not a square or a fraction off, so a square it sees as the start
    position has it is a misreading, not a contradiction. It leaves the square
    unread rather than naming it; the rest of the start position, the ring and
    the edges still decide.
    """
    model = reader.square_model
    wrong = _against_start(r, excused)
    if model is None or not wrong:
        return []
    lay = reader.layout
    inside = np.flatnonzero(~lay.outside)
    p = model.probabilities(patches(smoothed(canvas), patch_index(lay), inside), flips=True)
    doubt = (float(p[:, CLASSES.index("other")].sum()) + 64 - len(inside)) / 64
    if doubt >= CONFIRMED:
        return []
    seen = {int(i): CLASSES[int(k)] for i, k in zip(inside, p.argmax(axis=1), strict=True)}
    return [i for i in wrong if seen.get(i) == START_BOARD[i]]


def _unread_for_glare(r: Reading, squares: list[int]) -> Reading:
    """``r`` with ``squares`` read ``?`` for a lamp's reflection."""
    return _unread(r, squares, GLARE)


def _unread(r: Reading, squares: list[int], reason: str) -> Reading:
    """``r`` with ``squares`` read ``?`` for ``reason``."""
    if not squares:
        return r
    board, conf = list(r.board), r.confidence.copy()
    why = list(r.reasons) if r.reasons else [""] * 64
    for i in squares:
        board[i], conf[i], why[i] = "?", 0.0, reason
    return replace(r, board="".join(board), confidence=conf, reasons=tuple(why))


def _contradictions(r: Reading, off_centre: list[int]) -> tuple[list[int], list[int]]:
    """Squares read definitely as something the start position does not hold:
    (those that refuse the calibration, strays that do not).

    A start disc read as the other colour or as empty, or a disc read on the
    board's outer ring, can mean a grid off by a square or colours the wrong way
    round. One or two empty squares inside the board read as discs, while the start
    discs read right where they are seen, cannot: a grid off by a square would move
    the start discs too. Nor can one or two on the ring right next to a square a
    lamp's reflection hides: a grid taking in the frame shows it along a whole
    edge. Nor, when all four start discs read right, one or two anywhere on the
    ring: a grid stretched over a strip of frame wide enough to read as discs moves
    the middle squares off the start discs' centres too. They are a lamp's pool or
    reflection there, or a disc left on the board, and named to the user instead of
    refusing a set-up whose grid and colours are right. Start discs ``off_centre``
    read right.
    """
    wrong = _against_start(r, off_centre)
    right = _start_discs_right(r) + len(off_centre)
    glare = next_to_glare(r)
    inner = [i for i in wrong if i not in START_DISCS
             and (0 < i % 8 < 7 and 0 < i // 8 < 7 or glare[i] or right == len(START_DISCS))]
    if right >= 2 and len(inner) == len(wrong) and len(inner) <= STRAY_MAX:
        return [], inner
    return wrong, []


def _against_start(r: Reading, excused: list[int]) -> list[int]:
    """Squares read as something the start position does not hold, but for
    ``excused`` ones and those unread."""
    return [i for i in range(64)
            if r.board[i] not in (START_BOARD[i], "?") and i not in excused]


def _off_centre(r: Reading) -> list[int]:
    """Start discs read in their own colour but off their squares' centres, while
    at least two read centred: discs put down by hand a little aside. A grid a
    third of a square off would move all four alike."""
    if _start_discs_right(r) < 2:
        return []
    return [i for i in START_DISCS if r.board[i] == START_BOARD[i].lower()]


def _start_discs_right(r: Reading) -> int:
    """How many of the four start discs read as the start position has them."""
    return sum(r.board[i] == START_BOARD[i] for i in START_DISCS)


def next_to_glare(r: Reading) -> np.ndarray:
    """(64,) bools: squares with a neighbour (diagonals too) read as glare (or read
    as glare themselves, which never makes them a contradiction)."""
    return neighbourhood_mean(r.unknown_for(GLARE).astype(np.float64), np.ones(64)) > 0
