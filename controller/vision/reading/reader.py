"""Reading the 64 squares from one frame, given where the board is.

One perspective warp to a small top-down canvas, then per-square statistics over
precomputed pixel patterns: how much felt shows where a disc's top and base would
be, how bright the disc is next to the felt around it, and whether anything that is
neither felt nor disc (a hand, a sleeve) is in the square.
"""

from __future__ import annotations

from dataclasses import astuple, replace
from typing import NamedTuple

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.colour import ColourModel
from controller.vision.cv import cv2
from controller.vision.reading.board_reading import (
    AMBIGUOUS,
    FOREIGN_SQUARE,
    GLARE,
    OCCLUDED,
    OUTSIDE,
    Reading,
    unread,
)
from controller.vision.reading.glare import (
    felt_lead,
    glare_flags,
    green_lead,
    not_too_bright,
    square_pixels,
    washed_felt,
    white_tint,
)
from controller.vision.reading.second_opinion import second_opinion
from controller.vision.reading.shifted import fit_map, locate_disc
from controller.vision.reading.square_model import SquareModel, default_model, patch_index
from controller.vision.reading.squarestats import (
    Measures,
    frame_edges,
    measure,
    side_by_frame,
)
from controller.vision.reading.uncentred import Search, settle_uncentred
from controller.vision.sampling import (
    CELL,
    TOP_RADIUS,
    Layout,
    disc_pattern,
    make_layout,
    ring_pattern,
    smoothed,
    warp_to_canvas,
)

EMPTY_FELT = 0.70  # felt fraction above which a square is empty
DISC_FELT = 0.30  # felt fraction below which a disc covers the pattern
CORNER_FELT = 0.5  # felt fraction a square's corners need for it to be read at all
RING_BRIGHT = 1.3  # corner pixels this much brighter than the felt are washed out
GREY_TINT = 5.0  # green lead (see glare.py) beyond which a grey top is not judged as a disc


class _FirstLook(NamedTuple):
    """A frame's measures and plain verdicts, with what settling the rest needs."""

    reading: Reading
    tint: np.ndarray  # per square: a grey top's green lead (see glare.py)
    felt: np.ndarray  # per canvas pixel
    grey: np.ndarray  # per canvas pixel
    flat: np.ndarray  # the smoothed canvas's pixels, BGR
    tint_ref: tuple[float, float] | None  # the plain white discs' tint
    smoothed: np.ndarray  # the smoothed canvas
    foreign: np.ndarray  # per square: share of neither felt nor disc


class SquareReader:
    """Reads frames of one fixed camera set-up (board homography and image size)."""

    def __init__(
        self,
        homography: np.ndarray,
        image_size: tuple[int, int],
        model: ColourModel | None = None,
        disc_height: float = 0.2,
        layout: Layout | None = None,
        disc_bias: tuple[float, float] = (0.0, 0.0),
        learned: bool = True,
        doubtful: tuple[int, ...] = (),
        n: int = STANDARD,
    ) -> None:
        self.homography = np.asarray(homography, dtype=np.float64)
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.model = model or ColourModel()
        self.layout = layout or make_layout(
            self.homography, self.image_size, disc_height, n=n
        )
        self._top_pattern = disc_pattern(TOP_RADIUS)
        self._ring_pattern = ring_pattern()
        self.disc_bias = np.asarray(disc_bias, dtype=np.float64)
        # the learned second opinion for squares the rules leave '?' (None: rules only)
        self.square_model: SquareModel | None = default_model() if learned else None
        self._patches = patch_index(self.layout)
        #: empty squares whose felt the rules took for a disc at calibration, where the
        #: learned model saw felt (a shadow's edge, a lamp's pool that stays all game):
        #: a disc the rules read there is left to the model, which names the square
        #: when it is sure and leaves it ``?`` when not, rather than a phantom disc
        #: misleading the arbiter every frame
        self.doubtful = tuple(int(i) for i in doubtful)

    def with_model(self, model: ColourModel) -> SquareReader:
        """This reader's geometry (layout, disc bias, learned model or none) with
        another colour model: what a set-up's estimates step through, without
        laying the squares out again."""
        return SquareReader(self.homography, self.image_size, model, self.layout.disc_height,
                            layout=self.layout,
                            disc_bias=(float(self.disc_bias[0]), float(self.disc_bias[1])),
                            learned=self.square_model is not None, doubtful=self.doubtful,
                            n=self.layout.n)

    @property
    def n(self) -> int:
        """The board's columns and rows."""
        return self.layout.n

    def on_grid(self, homography: np.ndarray, disc_bias: tuple[float, float] | None = None,
                doubtful: tuple[int, ...] | None = None) -> SquareReader:
        """This reader (colour model, disc height, learned model) laid on another grid:
        the board or the camera moved, or the grid was turned; the discs' offset and
        the doubtful squares follow the new labels where given, else stay."""
        bias = self.disc_bias if disc_bias is None else disc_bias
        return SquareReader(homography, self.image_size, self.model, self.layout.disc_height,
                            disc_bias=(float(bias[0]), float(bias[1])),
                            learned=self.square_model is not None,
                            doubtful=self.doubtful if doubtful is None else doubtful,
                            n=self.layout.n)

    def warp(self, image: np.ndarray) -> np.ndarray:
        return warp_to_canvas(image, self.layout)

    def read(self, image: np.ndarray) -> Reading:
        """Read one frame of the calibrated size."""
        h, w = image.shape[:2]
        if (w, h) != self.image_size:
            raise ValueError(
                f"frame is {w}x{h} but the calibration was made at "
                f"{self.image_size[0]}x{self.image_size[1]}"
            )
        canvas = self.warp(image)
        return self.read_canvas(canvas)

    def read_canvas(self, canvas: np.ndarray) -> Reading:
        look = self._first_look(canvas)
        reading = self._judge_greys(look.reading, look.tint)
        search = Search(self.layout, self.model, self.disc_bias, self._top_pattern,
                        self._ring_pattern)
        reading = settle_uncentred(search, reading, look.felt, look.grey, look.flat,
                                   look.tint_ref)
        if self.square_model is not None:
            reading = unread(reading, [i for i in self.doubtful if reading.board[i] in "XOxo"],
                             AMBIGUOUS)
        return second_opinion(reading, look.smoothed, look.foreign, self.layout, self._patches,
                              self.square_model)

    def measure_canvas(self, canvas: np.ndarray) -> Reading:
        """The squares' measures, and verdicts on the plainly empty or covered ones.

        What a set-up's colour estimates use (felt fractions and disc brightness) is
        all measured here; the search for discs off centre, the greys judged against
        the frame's own discs and the learned model only settle the remaining
        squares' verdicts, and cost as much again.
        """
        return self._first_look(canvas).reading

    def _first_look(self, canvas: np.ndarray) -> _FirstLook:
        lay, model = self.layout, self.model
        sharp = canvas
        canvas = smoothed(canvas)
        felt, grey, foreign, felt_level = model.masks_and_level(canvas)
        felt = not_too_bright(lay, felt, grey, model.white_log)
        flat = canvas.reshape(-1, 3)
        lead = green_lead(flat)
        m = measure(lay, felt, grey, flat)
        # plain white discs: tops clear of felt, brighter than the cut, felt round them
        plain = (np.maximum(m.felt_top, m.felt_base) <= DISC_FELT) & (m.log_ratio > model.cut)
        plain &= m.felt_corners >= CORNER_FELT
        ref = white_tint(m.tint, m.disc_grey, flat[lay.top], plain)
        # to tell a disc from washed-out felt by its tint, discs clipped by the camera
        # do as well when all are: only where they are not are they a reliable floor
        # for what washed-out felt is (see washed_felt)
        ref_any = ref or white_tint(m.tint, m.disc_grey, flat[lay.top], plain, clipped_too=True)
        glare = glare_flags(lay, model.cut, m, felt, grey, ref_any)
        plain_lead = felt_lead(lay, lead, felt)
        if plain_lead is not None:
            # felt a lamp's reflection washes out is still felt: in the corners, outside
            # any disc, always; under a disc's top only where the square looked like
            # glare (a white disc tinted as green as washed-out felt stays a disc)
            level = float(np.median(grey[lay.square][felt[lay.square]]))
            washed = felt | (washed_felt(lead, grey, plain_lead, ref, level) & ~foreign)
            corners = washed[lay.corners].mean(axis=1)
            if ref is not None and glare.any():
                w = measure(lay, washed, grey, flat)
                m = Measures(*(np.where(glare, a, b) for a, b in zip(
                    astuple(w), astuple(m), strict=True)))
                felt = np.where(square_pixels(lay, glare), washed, felt)
                glare = glare & glare_flags(lay, model.cut, w, washed, grey, ref_any)
            m = replace(m, felt_corners=corners)
        felt_top, felt_base, felt_grey = m.felt_top, m.felt_base, m.felt_grey
        felt_corners = m.felt_corners
        log_ratio = np.where(glare, np.nan, m.log_ratio)
        foreign = foreign & lay.on_board
        foreign_frac = np.maximum(foreign[lay.square].mean(axis=1), foreign[lay.top].mean(axis=1))
        reading = self._decide(
            felt_top, felt_base, log_ratio, foreign_frac, felt_grey, felt_corners
        )
        # reported: the plain felt in the corners of the picture as taken, which drops
        # when the grid slips onto lines and discs (a bumped camera)
        at = lay.corners.ravel()  # only those pixels are looked at
        hsv = cv2.cvtColor(sharp.reshape(-1, 1, 3)[at], cv2.COLOR_BGR2HSV)
        seen = model.felt_held_to(hsv, felt_level.reshape(-1, 1)[at]).reshape(lay.corners.shape)
        reading = replace(reading, felt_corners=seen.mean(axis=1))
        # corners that are not felt because a lamp's reflection washes them out
        washed_out = (grey[lay.corners] > RING_BRIGHT * felt_grey[:, None]).mean(axis=1) > 0.5
        why = np.array(reading.reasons)
        why[(why == OCCLUDED) & washed_out & (foreign_frac <= FOREIGN_SQUARE)] = GLARE
        reading = replace(reading, glare=glare, reasons=tuple(why))
        return _FirstLook(reading, m.tint, felt, grey, flat, ref_any, canvas, foreign_frac)

    def _judge_greys(self, r: Reading, tint: np.ndarray) -> Reading:
        """Centred discs between the colour model's levels that this frame's own plain
        discs show to be black (see :func:`side_by_frame`): a black disc catching some
        light. Never a grey with a green cast (``tint``), which may be felt a lamp
        washes out."""
        chars = np.array(list(r.board))
        hi = np.maximum(r.felt_top, r.felt_base)
        grey = (chars == "?") & (np.array(r.reasons) == AMBIGUOUS) & ~r.blocked
        grey &= (hi <= DISC_FELT) & np.isfinite(r.log_ratio) & (tint < GREY_TINT)
        if not grey.any():
            return r
        side = side_by_frame(r.log_ratio, frame_edges(
            r.log_ratio, (chars == "X") & ~r.blocked, (chars == "O") & ~r.blocked))
        # only ever towards black: a lamp's reflection brightens a black disc towards
        # white, while a shadow dims a white disc and the felt round it alike
        grey &= side < 0
        chars[grey] = "X"
        why = np.array(r.reasons)
        why[grey] = ""
        return replace(r, board="".join(chars), reasons=tuple(why),
                       confidence=np.where(grey, 0.55, r.confidence))

    def disc_offsets(self, image: np.ndarray, most: int | None = None) -> np.ndarray:
        """(squares, 2) where each clearly covered square's disc stands relative to its
        centre (nan elsewhere), for at most ``most`` discs spread over the board;
        used once per set-up to measure systematic bias, which the plainly covered
        squares show as well as any (``most``: every square by default)."""
        canvas = self.warp(image)
        felt, _, _ = self.model.masks(canvas)
        r = self.measure_canvas(canvas)
        lay = self.layout
        fmap = fit_map(felt.reshape(lay.side, lay.side))
        n = lay.n
        most = lay.squares if most is None else most
        out = np.full((lay.squares, 2), np.nan)
        covered = np.flatnonzero(np.isin(np.array(list(r.board)), ["X", "O"]))
        for sq in covered[:: max(1, -(-len(covered) // most))]:
            expected = lay.centres[sq] + lay.offsets[sq] * CELL
            fit = locate_disc(fmap, expected, lay.offsets[sq])
            if fit is not None:
                off = fit.base - np.array([sq % n + 0.5, sq // n + 0.5])
                if np.abs(off).max() < 0.5:
                    out[sq] = off
        return out

    def _decide(
        self,
        felt_top: np.ndarray,
        felt_base: np.ndarray,
        log_ratio: np.ndarray,
        foreign: np.ndarray,
        felt_grey: np.ndarray,
        felt_corners: np.ndarray,
    ) -> Reading:
        model = self.model
        lo = np.minimum(felt_top, felt_base)
        hi = np.maximum(felt_top, felt_base)
        empty = lo >= EMPTY_FELT
        disc = hi <= DISC_FELT
        cut, band = model.cut, model.band
        black = disc & (log_ratio < cut - band)
        white = disc & (log_ratio > cut + band)
        disc &= np.isfinite(log_ratio)
        chars = np.full(self.layout.squares, "?", dtype="<U1")
        chars[empty] = "-"
        chars[black] = "X"
        chars[white] = "O"
        conf = np.zeros(self.layout.squares)
        conf[empty] = np.clip((lo[empty] - EMPTY_FELT) / (1 - EMPTY_FELT), 0, 1) * 0.5 + 0.5
        span = max(model.white_log - model.black_log, 1e-6)
        col = np.clip(np.abs(log_ratio - cut) / (0.5 * span), 0, 1)
        occ = np.clip((DISC_FELT - hi) / DISC_FELT, 0, 1)
        both = black | white
        conf[both] = 0.5 + 0.5 * np.minimum(col[both], occ[both])
        # anything foreign in or next to a square: never guess under a hand
        blocked = foreign > FOREIGN_SQUARE
        # the corners of a square lie outside any disc standing on it: if they are not
        # felt, something else is there (glare, a hand, a sleeve)
        blocked |= felt_corners < CORNER_FELT
        # part of the square is past the picture's edge (read as black): never guess
        blocked |= self.layout.outside
        chars[blocked] = "?"
        conf[blocked] = 0.0
        why = np.where(chars == "?", AMBIGUOUS, "").astype("<U9")
        why[(hi <= DISC_FELT) & ~np.isfinite(log_ratio)] = GLARE
        why[blocked] = OCCLUDED
        why[self.layout.outside] = np.where(chars[self.layout.outside] == "?", OUTSIDE, "")
        return Reading(
            board="".join(chars),
            confidence=conf,
            felt_top=felt_top,
            felt_base=felt_base,
            log_ratio=np.where(disc | (hi < 0.5), log_ratio, np.nan),
            foreign=foreign,
            felt_grey=felt_grey,
            felt_corners=felt_corners,
            blocked=blocked,
            reasons=tuple(why),
        )
