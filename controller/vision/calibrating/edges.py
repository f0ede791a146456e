"""Whether a grid found for calibration covers the whole board, from its edges.

The start position sits on the four middle squares, so a grid off by a row at an
edge, or stopping a row short, still reads it right; the board's edges tell: the
squares along a right edge show felt in their corners, and past the edge lies
something else than the felt and its printed lines.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from controller.boardsize import STANDARD
from controller.squares import square_name
from controller.vision.cv import cv2
from controller.vision.finding.grid_check import OTHER, square_inputs
from controller.vision.geometry import moved_by_squares
from controller.vision.reading.board_reading import GLARE, Reading
from controller.vision.reading.reader import CORNER_FELT, SquareReader
from controller.vision.reading.square_model import SquareModel
from controller.vision.sampling import CELL, MARGIN, Layout, seen_through


@cache
def edges_of(n: int = STANDARD) -> dict[str, range]:
    """The squares of each edge of an ``n`` x ``n`` board, named by its corners (a1-h1,
    h1-h8, a8-h8, a1-a8 on 8x8), in the order top, right, bottom, left."""
    last = n * n
    a1, right, far, left = (square_name(i, n) for i in (0, n - 1, last - 1, last - n))
    return {f"{a1}-{right}": range(0, n), f"{right}-{far}": range(n - 1, last, n),
            f"{left}-{far}": range(last - n, last), f"{a1}-{left}": range(0, last, n)}


@cache
def past_edges(n: int = STANDARD) -> dict[str, tuple[tuple[int, int], np.ndarray]]:
    """The squares just past each edge: the grid moved a square out that way, and the
    squares of its edge row there."""
    moves = ((0, -1), (1, 0), (0, 1), (-1, 0))
    return {name: (move, np.array(squares))
            for (name, squares), move in zip(edges_of(n).items(), moves, strict=True)}

EDGE_OFF_BOARD = 6  # squares of one edge without felt in their corners: not the board
WASHED_TINT = 6.0  # green excess (grey levels) of corners that are felt under glare
GLARE_OVER_FELT = 3.0  # ... or brightness, to the felt's, of corners under a reflection
PAST_EDGE_FELT = 0.35  # felt share just outside an edge that says the board goes on there
PAST_EDGE_CLEAR = 0.15  # ... when just outside another edge it is below this
PAST_EDGE_DEPTH = (0.25, 0.4, 0.55, 0.7)  # squares past an edge where that felt is looked for
#: How surely the learned model must see the row of squares just past an edge as no
#: square of the board, over the row's middle square (its median), for felt seen there
#: not to count (see :func:`closed_by_model`).
PAST_EDGE_OTHER = 0.9
LINES_SHOW = 2.0  # the lines' darkness to the squares' between them where they show ...
LINES_STOP = 0.3  # ... and the share of that contrast past an edge where they stop
PAST_EDGE_LEVEL = 0.6  # ... as bright as this share of the felt's inside the edge at least


def edges_off_board(r: Reading, reader: SquareReader, canvas: np.ndarray) -> list[int]:
    """Squares of a board edge that mostly shows no felt in its squares' corners.

    A glare spot or a shadow hides a few squares; a whole edge without felt means
    the outline takes in a strip of table or frame, so the grid is off by a row or
    a scale, and the middle squares of the start position alone cannot show it.
    Squares partly outside the picture show nothing either way, and corners still
    tinted green are felt that a lamp's reflection washes out (a table or a frame
    is not green), as are squares the reader found a reflection on whose corners
    are three times as bright as the felt (a light frame in the same light is
    not): none of them counts.
    """
    px = canvas.reshape(-1, 3)[reader.layout.corners].astype(np.float32).mean(axis=1)
    washed = px[:, 1] - np.maximum(px[:, 0], px[:, 2]) > WASHED_TINT
    glare = r.unknown_for(GLARE)
    if glare.any():  # a reflection: brighter than anything in the felt's light but white
        washed |= glare & (px.mean(axis=1) >= GLARE_OVER_FELT * float(np.nanmedian(r.felt_grey)))
    out: list[int] = []
    for edge in edges_of(reader.n).values():
        bare = [i for i in edge if r.felt_corners[i] < CORNER_FELT
                and not reader.layout.outside[i] and not washed[i]]
        if len(bare) >= EDGE_OFF_BOARD:
            out += bare
    return out


def felt_past_edges(reader: SquareReader, canvas: np.ndarray) -> list[str]:
    """The board edges past which the felt goes on, when it does not past others.

    A grid that covers only part of the playing area (a dark board, the finder
    taking a shadow's edge for the board's) still puts the start discs on the four
    middle squares, since it shrinks around the middle: the start position cannot
    show it. The felt can: the strip outside the grid is frame or table on a board
    whose felt ends at the grid, on every side alike. Felt past some edges and not
    past others means the grid stops short there. (A board with a green margin round
    its grid shows felt past all four edges, which says nothing.) The strip is
    looked at up to half a square deep: a board's own edge, blurred or seen at a
    slant, shows green only close to the grid. Felt there must be as bright as the
    felt of the edge's own squares: a dark frame under green light passes the felt's
    colour test, but not its brightness. A strip past the picture's edge shows
    nothing either way and is left out.
    """
    felt, grey, _ = reader.model.masks(canvas)
    lay = reader.layout
    side, n = lay.side, lay.n
    felt2d, grey2d = felt.reshape(side, side), grey.reshape(side, side)
    w, h = reader.image_size
    seen = cv2.warpPerspective(np.ones((h, w), np.uint8), lay.to_canvas, (side, side)) > 0
    along = np.rint((MARGIN + np.linspace(0.2, n - 0.2, 5 * n)) * CELL).astype(int)
    depth = np.array(PAST_EDGE_DEPTH)
    past = np.rint((MARGIN - depth) * CELL).astype(int)
    beyond = np.rint((MARGIN + n + depth) * CELL).astype(int)
    first = np.rint((MARGIN + 1 - depth) * CELL).astype(int)  # the edge squares, inside
    last = np.rint((MARGIN + n - 1 + depth) * CELL).astype(int)
    strips = [  # (outside the edge, inside it) as (rows, columns) of the canvas
        ((past[:, None], along[None, :]), (first[:, None], along[None, :])),  # a1-h1
        ((along[:, None], beyond[None, :]), (along[:, None], last[None, :])),  # h1-h8
        ((beyond[:, None], along[None, :]), (last[:, None], along[None, :])),  # a8-h8
        ((along[:, None], past[None, :]), (along[:, None], first[None, :])),  # a1-a8
    ]
    share: list[float | None] = []
    for out, inside in strips:
        ok = seen[out]
        lit = felt2d[inside] & seen[inside]
        if ok.mean() < 0.5 or not lit.any():
            share.append(None)
            continue
        level = float(np.median(grey2d[inside][lit]))
        like = felt2d[out] & (grey2d[out] >= PAST_EDGE_LEVEL * level)
        share.append(float(like[ok].mean()))
    known = [v for v in share if v is not None]
    if not known or min(known) > PAST_EDGE_CLEAR:
        return []
    short = [k for k, v in enumerate(share) if v is not None and v > PAST_EDGE_FELT]
    return [list(edges_of(n))[k] for k in short if not _lines_stop_at_edge(grey2d, k, n)]


def _lines_stop_at_edge(grey2d: np.ndarray, edge: int, n: int) -> bool:
    """Whether the printed lines that cross edge ``edge`` (0..3, as ``edges_of``) stop
    there while they show plainly inside it.

    Past a grid that stops short the lattice goes on, and so do its lines; past the
    real edge of the grid lies a strip of felt without them (a margin round the
    grid, or the board's side seen at a slant) or the frame. A grid whose lines do
    not show inside either cannot tell, and the felt decides alone.
    """
    k = max(3, int(CELL * 0.3)) | 1
    across = (1, k) if edge in (0, 2) else (k, 1)  # lines crossing the edge run along it
    dark = cv2.morphologyEx(grey2d, cv2.MORPH_BLACKHAT, np.ones(across, np.uint8))
    dark = dark.astype(np.float32)
    if edge in (1, 3):
        dark = dark.T  # make the crossing lines vertical, the edge horizontal
    flip = edge in (1, 2)  # the strip past the edge lies below it
    at = (MARGIN + np.arange(1, n)) * CELL
    mids = (MARGIN + np.arange(1, n) - 0.5) * CELL

    def contrast(rows: np.ndarray) -> float:
        prof = dark[np.clip(rows, 0, dark.shape[0] - 1)].mean(axis=0)
        line = np.mean([prof[int(a) - 1: int(a) + 2].max() for a in at])
        gap = np.mean([prof[int(m) - 1: int(m) + 2].mean() for m in mids])
        return float((line + 1.0) / (gap + 1.0))

    edge_px = (MARGIN + n) * CELL if flip else MARGIN * CELL
    sign = 1 if flip else -1
    outside = np.rint(edge_px + sign * np.array([0.2, 0.3, 0.4, 0.5]) * CELL).astype(int)
    inside = np.rint(edge_px - sign * np.array([0.2, 0.3, 0.4, 0.5]) * CELL).astype(int)
    seen_in, seen_out = contrast(inside), contrast(outside)
    return seen_in >= LINES_SHOW and seen_out - 1 < LINES_STOP * (seen_in - 1)


def past_edge_inputs(image: np.ndarray, h: np.ndarray, layout: Layout,
                     edge: str) -> tuple[np.ndarray, np.ndarray]:
    """The learned model's inputs for the row of squares just past ``edge`` of grid
    ``h`` (``layout`` its layout), and which of them the picture shows (see
    :func:`controller.vision.finding.grid_check.square_inputs`)."""
    move, row = past_edges(layout.n)[edge]
    size = (image.shape[1], image.shape[0])
    return square_inputs(image, seen_through(layout, moved_by_squares(h, *move), size), row)


def closed_by_model(image: np.ndarray, h: np.ndarray, layout: Layout, model: SquareModel,
                    edges: list[str]) -> list[str]:
    """Those of ``edges`` past which the learned model sees no square of the board.

    Felt seen past an edge says the grid stops short when the board goes on there;
    a frameless board's green side seen at a slant, or a reflection's halo on a
    green-grey frame, shows the same colour where no square lies. The model was
    trained to call a patch off the board's squares "other": a grid that stopped a
    row short would show it the board's last row there, felt between printed lines.
    Only a caller sure of the grid itself asks (a grid scaled a row short puts its
    own squares off the board's, which the model doubts).

    The row's median, not its mean: a blurred green side shows a patch or two
    like felt between lines, which would lift a mean over the bound, while
    a row of the board's own squares is the board's nearly everywhere along it.
    """
    closed = []
    for edge in edges:
        x, _ = past_edge_inputs(image, h, layout, edge)
        if len(x) and float(np.median(model.probabilities(x)[:, OTHER])) >= PAST_EDGE_OTHER:
            closed.append(edge)
    return closed
