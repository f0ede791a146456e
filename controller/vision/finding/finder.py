"""Finding the playing area in an image with no help from the user.

Several cues are combined, since none holds everywhere: the felt's outline (see
:mod:`controller.vision.finding.felt`), and, when that gives no clear board (a
glare spot or rows of white discs break the felt into pieces), the lattice of
grid lines itself (:mod:`controller.vision.finding.lattice`). The grid printed on
the felt then pins each candidate's homography down (see
:mod:`controller.vision.finding.grid`), and the candidates are judged by how well an 8 x 8
lattice fits there, whether felt stops at the outline's edges and shows inside
it, not by one threshold on one cue.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.cv import cv2
from controller.vision.finding.disc_lattice import refine_on_discs
from controller.vision.finding.edges import edge_felt, felt_share, nudge_onto_board
from controller.vision.finding.felt import (
    WORK_SIZE,
    BoardNotFound,
    clean_mask,
    coarse_quad,
    coarse_quads,
    green_chroma,
    green_mask_hsv,
)
from controller.vision.finding.grid_check import all_squares, not_squares, square_doubts
from controller.vision.finding.lattice import DIRECTIONS, lattice_quads, region_of_interest
from controller.vision.geometry import (
    DISC_HEIGHT,
    corners_of,
    homography_from_corners,
    upright_order,
)
from controller.vision.reading.square_model import default_model

__all__ = [
    "BoardFit", "BoardNotFound", "coarse_quad", "coarse_quads", "find_board", "green_chroma",
    "green_mask_hsv", "nudge_onto_board",
]

MIN_NET = 0.12  # grid seen on the lines, less grid seen between them, of a board ...
MIN_LATTICE = 0.7  # ... or share of the 14 inner lines standing out of the lattice's profile
SURE_NET = 0.3  # ... with the lattice standing out, so sure that no more need be tried
SURE_EDGE = 0.05  # ... when the felt also stops at the outline's edges
WEAK_NET = 0.05  # a faint lattice (net grid and lattice profile at least these) ...
WEAK_LATTICE = 0.35
EDGE_CONTRAST = 0.25  # ... holds where every edge parts felt inside from none outside
CLEAR_EDGE = 0.6  # edges this clear (felt inside, none outside) need the lattice only,
# not the net grid: a thin or blurred grid hardly stands out line by line
LATTICE_WEIGHT = 0.25  # weight of the lattice profile next to the net grid seen
EDGE_WEIGHT = 0.3  # weight of the felt's edge contrast when ranking fitting outlines
CLEAR_FELT = 0.3  # a fitting felt outline with edges this clear needs no lattice search
MIN_FELT = 0.08  # share of its area a board shows as felt at the least
OUTLINE_ONLY = 0.7  # edge contrast that makes an outline a board with no lattice seen
RESCALE = (0.85, 1.15, 0.7, 1.3)  # outline sizes tried around an unsure best candidate
SAME_QUAD = 0.25  # squares: outlines whose corners all lie this close are one candidate
#: The learned square model's doubt (mean probability, over the 64 squares, of "not
#: a square of the board") below which a grid no line cue confirms is taken: grids
#: on the board stay under about 0.26 with a hand over it, grids half a square off
#: or on the table come out above 0.35 (measured on the project's own renders).
LEARNED_DOUBT = 0.3
LEARNED_TRIES = 4  # the strongest candidates asked
DOUBT_WEIGHT = 1.0  # rank given up for each unit of the model's doubt
LEARNED_MARGIN = 0.25  # how much less another grid must be doubted to replace a doubted one


@dataclass(frozen=True)
class BoardFit:
    corners: np.ndarray  # (4, 2) image pixels, a1, h1, h8, a8 in upright orientation
    homography: np.ndarray  # board squares -> image pixels
    score: float  # 0..1, how well the grid printed on the felt matches


@dataclass(frozen=True)
class _Candidate:
    fit: BoardFit
    start: np.ndarray  # the outline the refinement started from
    net: float  # grid seen on the lines less grid "seen" half a square off them
    lattice: float  # share of the 14 inner lines standing out of the lattice profile
    edge: float  # least felt contrast, inside less outside, across the four edges
    felt: float  # share of the playing area that shows felt
    framed: bool  # the square-wide ring round the outline lies inside the picture

    @property
    def strength(self) -> float:
        return self.net + LATTICE_WEIGHT * self.lattice

    @property
    def fits(self) -> bool:
        """A lattice seen clearly; or seen faintly, in an outline whose four edges
        all part felt inside from something else outside."""
        weak = self.net >= WEAK_NET and self.lattice >= WEAK_LATTICE
        outlined = self.net > 0 and self.lattice >= WEAK_LATTICE and self.edge >= CLEAR_EDGE
        return self.felt >= MIN_FELT and (
            self.net >= MIN_NET or self.lattice >= MIN_LATTICE
            or (weak and self.edge >= EDGE_CONTRAST) or outlined)

    @property
    def rank(self) -> float:
        """Lattice strength, and felt stopping at the edges: a window of the
        lattice a square or two off the board sees the lines as well."""
        return self.strength + EDGE_WEIGHT * max(-0.5, self.edge)

    @property
    def outlined(self) -> bool:
        """No lattice to speak of (a dark, blurred or glaring view hides the thin
        lines), but an outline whose four edges all part felt inside from none
        outside (outside, that is, in the picture: a green table fills it all),
        and no sign of a lattice half a square off."""
        return (self.edge >= OUTLINE_ONLY and self.net >= 0 and self.felt >= MIN_FELT
                and self.framed)

    @property
    def sure(self) -> bool:
        """A lattice so clear, with felt stopping at its edges, that no other
        outline need be tried: lines alone also fit a grid a row off, or one
        whose far rows each took the line beyond."""
        return (self.net >= SURE_NET and self.lattice >= MIN_LATTICE
                and self.edge >= SURE_EDGE and self.felt >= MIN_FELT)


def _candidate(image: np.ndarray, quad: np.ndarray, n: int) -> _Candidate:
    from controller.vision.finding.grid import grid_coverages, lattice_fit, refine_on_grid
    from controller.vision.geometry import apply_homography

    h, _ = refine_on_grid(image, homography_from_corners(quad, n), n=n)
    h = nudge_onto_board(image, h, n)
    score, off = grid_coverages(image, h, (0.0, 0.5), n)
    net = score - off
    share, _ = lattice_fit(image, h, n)
    inside, outside = edge_felt(image, h, n)
    edge = float((inside - outside).min())
    felt = felt_share(image, h, n)
    far = n + 1  # a square's width round the playing area
    ring = apply_homography(h, np.array([[-1, -1], [far, -1], [far, far], [-1, far]], float))
    height, width = image.shape[:2]
    framed = bool(((ring >= 0) & (ring <= (width - 1, height - 1))).all())
    return _Candidate(BoardFit(corners_of(h, n), h, score), quad, net, share, edge, felt, framed)


def find_board(image: np.ndarray, refine: bool = True, n: int = STANDARD) -> BoardFit:
    """Locate the board (see :func:`_find_board`), then, if the image's edge cuts it
    off, re-place its lattice from what is visible (:mod:`controller.vision.finding.partial`)."""
    fit = _find_board(image, refine, n)
    if not refine:
        return fit
    from controller.vision.finding.partial import refit_cut_off

    h = refit_cut_off(image, fit.homography, n)
    return fit if h is fit.homography else BoardFit(corners_of(h, n), h, fit.score)


def _find_board(image: np.ndarray, refine: bool, n: int) -> BoardFit:
    """Locate the board; raises :class:`BoardNotFound` with a reason if there is none.

    Cues are combined: outlines of the felt by its hue, then (when none of those
    holds a grid for sure) by its green chroma, each refined on the printed grid;
    then, when no felt outline fits with clear edges, windows of the grid lattice
    found from its lines alone; then, if still unsure, the best outline grown and
    shrunk, since a glare or a shadow can cut the felt's outline short or merge it
    with the frame. A candidate is judged by its lattice: grid lines seen where
    the lattice puts them and not half a square off them (a table cloth or a grid
    off by a fraction shows as much of the one as of the other), and the lines'
    profile standing out of the squares' middles (a thin or faint grid that is
    hardly seen line by line still adds up along each line); among those that
    fit, felt stopping at the edges ranks a window of the lattice that is on the
    board above one a square off it. With no lattice seen at all, a plain outline
    with felt inside and none round it (in the picture) is the board.
    """
    if not refine:
        q = coarse_quads(image, "hue")[0]
        h = homography_from_corners(q, n)
        return BoardFit(corners_of(h, n), h, 0.0)
    search = _Search(image, n)
    for cand in search.outlines():
        if _taken_on_sight(image, cand, n):
            return cand.fit
    cands = search.cands
    if not cands:
        raise search.reason or BoardNotFound("no board in the image")
    search.try_rescaled()
    fitting = [c for c in cands if c.fits]
    if fitting:
        chosen, doubt = _best_fitting(image, fitting, n)
        return _checked(image, chosen, cands, n, doubt)
    outlined = [c for c in cands if c.outlined]
    if outlined:
        return _checked(image, max(outlined, key=lambda c: c.edge), cands, n)
    learned = _recognised(image, cands, n)
    if learned is not None:
        return learned[1]
    best = max(cands, key=lambda c: c.strength)
    if not best.fits:
        raise BoardNotFound(
            "a green area was found but no board grid on it "
            f"(only {100 * best.fit.score:.0f}% of the grid lines visible)", felt_seen=True
        )
    return best.fit


class _Search:
    """The outlines one image offers, in the order the cues give them, each tried
    once: the felt's outline by hue, then by chroma, then (unless a fitting felt
    outline has clear edges) windows of the grid lattice; and, on request, the
    strongest of those grown and shrunk (``cands`` holds every one tried)."""

    def __init__(self, image: np.ndarray, n: int = STANDARD) -> None:
        self.image = image
        self.n = n
        self.cands: list[_Candidate] = []
        self.reason: BoardNotFound | None = None
        self._tried: list[np.ndarray] = []

    def outlines(self, pairs: int = 1) -> Iterator[_Candidate]:
        """``pairs``: the lattices of up to that many pairs of line directions
        (see :func:`lattice_outlines`)."""
        for cue in ("hue", "chroma"):
            try:
                quads = coarse_quads(self.image, cue)
            except BoardNotFound as exc:
                self.reason = self.reason or exc
                continue
            yield from self._tried_on(quads)
        if not any(c.fits and c.edge >= CLEAR_FELT for c in self.cands):
            yield from self._tried_on(lattice_outlines(self.image, pairs=pairs, n=self.n))

    def try_rescaled(self) -> None:
        """Guesses, for a glare or a shadow that cut the felt's outline short or
        merged it with the frame: ranked with the rest, never taken on sight."""
        best = max(self.cands, key=lambda c: c.strength)
        centre = best.start.mean(axis=0)
        for f in RESCALE:
            self._try(centre + (best.start - centre) * f)

    def try_everything(self) -> None:
        """Every outline the cues offer and, when there are any, the guesses; the
        lattices of every strong pair of line directions, not only the strongest
        pair's (a striped table's stripes can outweigh a grid direction): too many
        to judge without knowing what the board shows."""
        for _ in self.outlines(pairs=DIRECTIONS):  # each is tried as it is offered
            pass
        if self.cands:
            self.try_rescaled()

    def _tried_on(self, quads: list[np.ndarray]) -> Iterator[_Candidate]:
        for quad in quads:
            cand = self._try(quad)
            if cand is not None:
                yield cand

    def _try(self, quad: np.ndarray) -> _Candidate | None:
        """The candidate for ``quad``, or None when an outline like it was tried."""
        if seen_before(quad, self._tried, n=self.n):
            return None
        self.cands.append(_candidate(self.image, quad, self.n))
        return self.cands[-1]


def board_grids(image: np.ndarray, n: int = STANDARD) -> list[np.ndarray]:
    """Every grid the finder's cues offer, the learned model's least doubted first
    (all of them when it is not there): for a caller that can tell the right one
    by what it knows stands on the board, such as the start position."""
    search = _Search(image, n)
    search.try_everything()
    if not search.cands:
        return []
    grids = [h for c in sorted(search.cands, key=lambda c: -c.rank)
             for h in (c.fit.homography, homography_from_corners(c.start, n))]
    doubts = [squares_doubt(image, h, cut_off=True, n=n) for h in grids]  # None: no model
    order = sorted(range(len(grids)),
                   key=lambda k: 1.0 if (doubt := doubts[k]) is None else doubt)
    grids = [grids[k] for k in order]
    offered: list[np.ndarray] = []  # a candidate's outline is often its fitted grid:
    return [h for h in grids
            if not seen_before(corners_of(h, n), offered, n=n)]  # try it once


def _taken_on_sight(image: np.ndarray, cand: _Candidate, n: int = STANDARD) -> bool:
    """A sure lattice, unless the learned model doubts its squares: a lattice a
    third larger or smaller than the board's still lands many of its lines on
    printed lines, and a striped shade or a green table adds more."""
    if not cand.sure:
        return False
    doubt = squares_doubt(image, cand.fit.homography, cut_off=True, n=n)
    return doubt is None or doubt < LEARNED_DOUBT


def squares_doubt(image: np.ndarray, h: np.ndarray, cut_off: bool = False,
                  n: int = STANDARD) -> float | None:
    """How much the learned square model doubts that grid ``h``'s squares are
    squares of a board (see :mod:`controller.vision.finding.grid_check`); None without the
    model or for a grid the picture's edge cuts, unless ``cut_off`` says to count
    the squares outside the picture as doubted."""
    model = default_model()
    if model is None:
        return None
    return not_squares(image, h, DISC_HEIGHT, model, all_squares(n), cut_off, n)


def _recognised(image: np.ndarray, cands: list[_Candidate],
                n: int) -> tuple[float, BoardFit] | None:
    """A felt outline whose lattice the grid lines do not show (a board full of
    discs on a dark felt hides nearly every line) is still a board when its
    squares look like squares of one: each a disc or felt centred in its square,
    which a grid off by a fraction of a square, the frame or the table does not.
    The least doubted such grid, with its doubt."""
    best: tuple[float, BoardFit] | None = None
    for c in sorted(cands, key=lambda c: -c.strength)[:LEARNED_TRIES]:
        for h in _placements(image, c, n):
            doubt = squares_doubt(image, h, n=n)
            if doubt is not None and doubt < LEARNED_DOUBT and (best is None or doubt < best[0]):
                best = (doubt, BoardFit(corners_of(h, n), h, c.fit.score))
    return best


def _placements(image: np.ndarray, cand: _Candidate, n: int) -> list[np.ndarray]:
    """Grids a candidate offers: as fitted on the lines, its outline as found, and
    each of those moved onto the discs standing on it (a felt outline cut into
    pieces by a full board's edge discs can put a corner half a square off)."""
    grids = [cand.fit.homography, homography_from_corners(cand.start, n)]
    on_discs = [refine_on_discs(image, h, DISC_HEIGHT, n=n) for h in grids]
    return grids + [h for h in on_discs if h is not None]


def _best_fitting(image: np.ndarray, fitting: list[_Candidate],
                  n: int) -> tuple[_Candidate, float | None]:
    """The fitting candidate of highest rank, less the learned model's doubt of its
    squares where the model is there to ask: lattices a fraction of a square
    apart, or one whose far rows took the line beyond, see about as many lines,
    but only the right one has each disc and each patch of felt in its square.
    The doubt is taken over the whole grid and over its most doubted edge: a grid
    a whole square off has only that edge off the board, a glare a few squares.
    Returns the candidate with its doubt over the whole grid (None: not asked)."""
    ranked = sorted(fitting, key=lambda c: -c.rank)[:LEARNED_TRIES]
    model = default_model()
    if len(ranked) == 1 or model is None:
        return ranked[0], None
    judged = []
    for c in ranked:
        doubts = square_doubts(image, c.fit.homography, DISC_HEIGHT, model, n=n)
        assert doubts is not None  # cut-off squares are doubted, never refused
        d = doubts.reshape(n, n)
        edge = max(d[0].mean(), d[-1].mean(), d[:, 0].mean(), d[:, -1].mean())
        whole = float(d.mean())
        judged.append((c.rank - DOUBT_WEIGHT * 0.5 * (whole + float(edge)), c, whole))
    _, best, doubt = max(judged, key=lambda j: j[0])
    return best, doubt


def _checked(image: np.ndarray, chosen: _Candidate, cands: list[_Candidate], n: int,
             doubt: float | None = None) -> BoardFit:
    """The chosen candidate, unless the learned square model doubts its squares and
    recognises another candidate's clearly (a lattice fitted a fraction of a square
    off at one corner still lies mostly on printed lines). ``doubt``: the chosen
    grid's, when already worked out."""
    if doubt is None:
        doubt = squares_doubt(image, chosen.fit.homography, cut_off=True, n=n)
    if doubt is None or doubt < LEARNED_DOUBT:
        return chosen.fit
    other = _recognised(image, [c for c in cands if c is not chosen], n)
    return other[1] if other is not None and other[0] < doubt - LEARNED_MARGIN else chosen.fit


def lattice_outlines(image: np.ndarray, doubled: bool = False,
                     pairs: int = 1, n: int = STANDARD) -> list[np.ndarray]:
    """Outlines from the grid lattice itself, for when the felt's outline is broken
    (see :mod:`controller.vision.finding.lattice`); upright-ordered, image pixels.

    ``doubled``: those with one family's spacing taken twice as wide instead, too
    many to judge without knowing what the board shows, but a calibration on the
    start position can rank them by how like it they read. ``pairs``: from up to
    that many pairs of strong line directions, the strongest pair's first (see
    :func:`controller.vision.finding.lattice.lattice_quads`)."""
    scale = min(1.0, WORK_SIZE / max(image.shape[:2]))
    small = image
    if scale < 1:
        small = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    loose = clean_mask(green_mask_hsv(cv2.cvtColor(small, cv2.COLOR_BGR2HSV)))
    roi = region_of_interest(small, loose)
    if roi is None:
        return []
    return [upright_order(q) / scale for q in lattice_quads(small, roi, doubled, pairs, n)]


def seen_before(quad: np.ndarray, tried: list[np.ndarray], within: float = SAME_QUAD,
                n: int = STANDARD) -> bool:
    """Whether an outline with every corner ``within`` squares of ``quad``'s was
    tried already (else it is noted)."""
    cell = float(np.linalg.norm(quad - np.roll(quad, 1, axis=0), axis=1).min()) / n
    if any(np.abs(quad - q).max() < within * cell for q in tried):
        return True
    tried.append(quad)
    return False
