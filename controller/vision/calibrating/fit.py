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

from controller.boardsize import STANDARD
from controller.vision.calibrating.edges import (
    closed_by_model,
    edges_of,
    edges_off_board,
    felt_past_edges,
)
from controller.vision.calibrating.start_reading import (
    SURE,
    against_start,
    contradictions,
    lit_black_unknown,
    model_overruled,
    model_read,
    model_view,
    off_centre,
    paled_unknown,
    start_of,
    unread,
)
from controller.vision.colour import ColourModel, balanced_on
from controller.vision.cv import cv2
from controller.vision.finding.grid_check import CONFIRMED
from controller.vision.geometry import corners_of, homography_from_corners
from controller.vision.reading.board_reading import AMBIGUOUS, Reading
from controller.vision.reading.glare import CLIPPED, clipped_tops
from controller.vision.reading.reader import SquareReader
from controller.vision.sampling import smoothed
from controller.vision.setup import CameraSetup

WHITE_QUANTILE = 0.4  # of a white disc top's grey levels (as the reader measures them)
MIN_CLEAR = 0.5  # share of a black disc's top that must be unclipped to be measured
MIN_DISC_PART = 0.3  # share of a top's pixels not felt from which only those are measured
BLACK_AGREE = 0.7  # log units: two black discs further apart than this, one is lit
WASHED = 0.05  # share of a disc top's pixels: more clipped than the white discs'
MAX_BLACK = 0.3  # a black disc measured brighter than this (log to felt) is under glare
MIN_WHITE = 0.2  # a white disc is brighter than the felt (log units)
MIN_LEVEL_GAP = 0.6  # log units between the levels for them to be trusted at all
DISC_AS_FELT = 0.3  # felt share of a start disc's top from which it reads as felt
SAT_MARGIN = 12  # saturation levels that must part the start discs from the felt
FELT_SAT_QUANTILE = 0.1  # of the empty squares' corners: the felt's (lines and blur below)


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
    #: empty squares the rules read as discs where the learned model sees felt (a
    #: shadow's edge, a lamp's pool): left unread, and named
    overruled: list[int] = field(default_factory=list)
    #: start discs of the right colour placed a little off their squares' centres
    off_centre: list[int] = field(default_factory=list)
    #: start discs the rules read empty where the learned model, sure of the grid,
    #: sees the disc (a black disc as dark as a dark felt in a dim room): left unread
    faint: list[int] = field(default_factory=list)
    #: the learned model's doubt of a grid kept though it doubts its squares (the
    #: search found no grid it confirms): None for any other
    doubt: float | None = None
    #: edges that were short and are taken as the board's, by :meth:`closed`
    closed_edges: list[str] = field(default_factory=list)
    #: the squares contradicting the start position apart from the short edges'
    contradicting: list[int] = field(default_factory=list)
    #: squares of an edge that shows no felt in its squares' corners (among
    #: ``contradicting``): a strip of frame or table inside the grid, or a dark edge
    bare: list[int] = field(default_factory=list)
    #: bare squares taken as the board's, by :meth:`closed`
    felt_unseen: list[int] = field(default_factory=list)

    def closed(self, edges: list[str], bare: list[int] | None = None) -> StartFit:
        """The fit with short ``edges`` and ``bare`` squares taken as the board's
        (see :func:`closable_edges`): for a search that found no grid without them."""
        short = [e for e in self.short_edges if e not in edges]
        contradicting = sorted(set(self.contradicting) - set(bare or []))
        squares = edges_of(self.setup.size)
        mismatches = sorted(set(contradicting) | {i for e in short for i in squares[e]})
        return replace(self, short_edges=short, mismatches=mismatches,
                       contradicting=contradicting, bare=sorted(set(self.bare) - set(bare or [])),
                       closed_edges=[*self.closed_edges, *edges],
                       felt_unseen=sorted({*self.felt_unseen, *(bare or [])}))


def turn(h: np.ndarray, quarter_turns: int, n: int = STANDARD) -> np.ndarray:
    """The same board homography with a1 moved ``quarter_turns`` corners clockwise."""
    return homography_from_corners(np.roll(corners_of(h, n), -quarter_turns, axis=0), n)


def fit_start_position(setup: CameraSetup, image: np.ndarray, a1_fixed: bool) -> StartFit:
    """Fit the colour model on the start position (4 known discs, the rest empty).

    The start position looks the same turned by half a turn but not by a quarter,
    so unless the user fixed a1 it also settles which way round the board is: the
    diagonal whose discs are brighter holds the white ones, unless the discs then
    read in the other turn's colours and, turned, contradict the start position on
    fewer squares. A lamp's reflection beside a black disc can make its diagonal the
    brighter, while the levels fitted on the discs read them right; the fit turned a
    quarter is the one their colours settle.
    """
    setup = replace(setup, doubtful=())  # this fit finds its own (see the end)
    first = _first_look(setup, image)
    if a1_fixed:
        return _fit_turned(setup, image, first)
    s = start_of(setup.size)
    lr = _disc_levels(*first, WHITE_QUANTILE, clipped_out=False)
    ways = [(setup, first),
            (replace(setup, homography=turn(setup.homography, 1, setup.size)), None)]
    if np.nansum(lr[list(s.black)]) > np.nansum(lr[list(s.white)]):
        ways.reverse()
    fit = _fit_turned(ways[0][0], image, ways[0][1])
    if not any(fit.reading.board[i].upper() == s.turned[i] for i in s.discs):
        return fit
    second = _fit_turned(ways[1][0], image, ways[1][1])
    return second if len(second.mismatches) < len(fit.mismatches) else fit


def _first_look(setup: CameraSetup, image: np.ndarray) -> tuple[SquareReader, np.ndarray, Reading]:
    """The reader of ``setup``, the picture warped by it, and its plain reading."""
    reader = setup.reader()
    canvas = reader.warp(image)
    return reader, canvas, reader.read_canvas(canvas)


def _fit_turned(setup: CameraSetup, image: np.ndarray,
                first: tuple[SquareReader, np.ndarray, Reading] | None) -> StartFit:
    """:func:`fit_start_position` on ``setup`` as it is turned (``first``: its
    :func:`_first_look`, if taken already)."""
    reader, canvas, r = first or _first_look(setup, image)
    model = _discs_apart_from_felt(reader, canvas)
    model = _start_balance(reader.with_model(model), canvas)
    if model is not setup.model:
        setup = replace(setup, model=model)
        reader = reader.with_model(model)
        r = reader.read_canvas(canvas)
    levels = _start_levels(reader, canvas, r)
    discs = start_of(setup.size).discs
    unmeasured = [i for i in discs if i not in levels.used]
    setup = replace(setup, model=levels.apply(setup.model))
    reader = reader.with_model(setup.model)
    r = reader.read_canvas(canvas)
    unread_discs = [i for i in discs if r.board[i] == "?"]
    view = model_view(reader, canvas) if against_start(r, []) or unread_discs else None
    washed = _washed_out(reader, canvas) if levels.lit else ()
    r = lit_black_unknown(r, levels.lit, washed, view)
    r = model_read(r, view, unread_discs)
    before = r.board
    r = paled_unknown(r, view)
    faint = [i for i in discs if before[i] == "-" and r.board[i] == "?"
             and r.reasons[i] == AMBIGUOUS]
    confirmed = view is not None and view.doubt < CONFIRMED
    shifted = off_centre(r) if confirmed else []
    overruled = model_overruled(r, view) if confirmed and view is not None else []
    r = unread(r, overruled, AMBIGUOUS)
    mismatches, stray = contradictions(r, shifted)
    short = felt_past_edges(reader, canvas)
    bare = edges_off_board(r, reader, canvas)
    contradicting = sorted(set(mismatches) | set(bare))
    edges = edges_of(setup.size)
    mismatches = sorted(set(contradicting) | {i for name in short for i in edges[name]})
    unknown = [i for i in range(len(r.board)) if r.board[i] == "?"]
    setup = replace(setup, doubtful=tuple(overruled))  # kept: play reads them alike
    return StartFit(setup, r, mismatches, unknown, short, stray, unmeasured, overruled,
                    shifted, faint, contradicting=contradicting, bare=sorted(set(bare)))


def closable_edges(fit: StartFit, image: np.ndarray) -> tuple[list[str], list[int]]:
    """What the learned model, sure of the grid's own squares (doubt under ``SURE``),
    takes as the board's where the rules saw its edges wrong: of the edges past
    which ``fit`` saw felt, those it sees no square of the board past (see
    :func:`controller.vision.calibrating.edges.closed_by_model`), a frameless board's green
    side, not more board; and the bare edge squares (no felt seen in their corners),
    when it sees every one of them as a board's square, felt or a disc: a dark felt's
    edge in shade or blur, not a strip of frame. Nothing when anything else
    contradicts the start position, or some bare square looks like none of the
    board's.

    A grid a row off, taking in a strip of frame, cannot pass: eight squares the
    model calls no board's are a doubt of at least 0.125 on their own, over
    ``SURE``. Asked by a search that found no grid, not by every fit: the model's
    look at the grid's squares and past its edges costs as much as the rest of a fit."""
    nothing: tuple[list[str], list[int]] = ([], [])
    if set(fit.contradicting) - set(fit.bare) or not (fit.short_edges or fit.bare):
        return nothing
    reader = fit.setup.reader()
    model = reader.square_model
    if model is None:
        return nothing
    view = model_view(reader, reader.warp(image))
    if view is None or view.doubt >= SURE:
        return nothing
    if any(view.seen.get(i, "other") == "other" for i in fit.bare):
        return nothing
    edges = (closed_by_model(image, reader.homography, reader.layout, model, fit.short_edges)
             if fit.short_edges else [])
    return edges, list(fit.bare)


def _disc_levels(
    reader: SquareReader, canvas: np.ndarray, r: Reading, q: float, clipped_out: bool
) -> np.ndarray:
    """Per square, the start discs' log brightness to the felt next to them, measured on
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
    out = np.full(reader.layout.squares, np.nan)
    for i in start_of(reader.n).discs:
        idx = reader.layout.top[i]
        keep = low[idx] < CLIPPED if clipped_out else np.ones(len(idx), bool)
        if keep.mean() < MIN_CLEAR:
            continue
        if (keep & ~felt[idx]).mean() >= MIN_DISC_PART:  # a top seen a little aside
            keep &= ~felt[idx]
        g = float(np.quantile(grey[idx][keep], q))
        out[i] = np.log(g + 2.0) - np.log(float(r.felt_grey[i]) + 2.0)
    return out


def _washed_out(reader: SquareReader, canvas: np.ndarray) -> tuple[int, ...]:
    """Black start discs whose tops are clipped (in every channel) on a larger share
    than either white start disc's, by ``WASHED``: a lamp's reflection over the
    disc. A white disc set on a black start square is clipped no more than the
    white discs beside it, however bright the room."""
    share = clipped_tops(canvas, reader.layout)
    s = start_of(reader.n)
    whites = max(share[i] for i in s.white)
    return tuple(i for i in s.black if share[i] > whites + WASHED)


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
    s = start_of(lay.n)
    if max(float(felt[lay.top[i]].mean()) for i in s.discs) < DISC_AS_FELT:
        return model
    sat = cv2.cvtColor(canvas, cv2.COLOR_BGR2HSV)[..., 1].ravel()
    discs = max(float(np.quantile(sat[lay.top[i]], 0.9)) for i in s.discs)
    empties = [i for i in range(lay.squares) if s.board[i] == "-" and not lay.outside[i]]
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
    idx = np.concatenate([reader.layout.top[i] for i in start_of(reader.n).white])
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
    called it glare. Discs with something foreign over them are left out of the
    levels, but a black one measured bright still counts as lit: it tells that a
    lamp lights the middle of the board (see
    :func:`controller.vision.calibrating.start_reading.lit_black_unknown`).
    """
    from controller.vision.reading.board_reading import FOREIGN_SQUARE

    black_own = _disc_levels(reader, canvas, r, WHITE_QUANTILE, clipped_out=True)
    white_own = _disc_levels(reader, canvas, r, WHITE_QUANTILE, clipped_out=False)
    glare = r.glare if r.glare is not None else np.zeros(len(r.board), bool)
    s = start_of(r.n)
    seen = {i: r.foreign[i] <= FOREIGN_SQUARE for i in s.discs}
    white_seen = {}  # the white discs' levels, before the black ones set their floor
    for i in s.white:
        v = r.log_ratio[i] if np.isfinite(r.log_ratio[i]) else white_own[i]
        if seen[i] and np.isfinite(v) and v > MIN_WHITE:
            white_seen[i] = float(v)
    # on a dark felt a black disc's sheen takes it above the felt: darker than the
    # white discs by a clear gap, and agreeing with the other black disc, is then
    # black enough
    ceiling = max(MAX_BLACK, min(white_seen.values(), default=MAX_BLACK) - MIN_LEVEL_GAP)
    blacks, lit = {}, []
    for i in s.black:
        v = r.log_ratio[i] if np.isfinite(r.log_ratio[i]) and not glare[i] else black_own[i]
        if seen[i] and np.isfinite(v) and v < ceiling:
            blacks[i] = float(v)
        elif seen[i] or (np.isfinite(v) and v >= ceiling):
            # clipped or brighter than a black disc: a lamp's reflection; a lamp
            # mirrored in a black top can tint part of it a colour the reader takes
            # for something over the square, and bright, it is lit all the same
            lit.append(i)
    if len(blacks) == 2 and abs(blacks[s.black[0]] - blacks[s.black[1]]) > BLACK_AGREE:
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
