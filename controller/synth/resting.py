"""A hand resting at the board's edge: the waiting player's, lying still on the frame
or the table while the other player moves.

It is part of the scene, not of the position: where it lies, and the skin and sleeve
it shows, come from the scene's seed alone, so in a video it stays put from frame to
frame while the moving hand works. Its fingers lie on the frame or reach a little way
onto the edge squares; the truth marks as ``?`` the squares it covers, under the
same contract as the reaching hand (a ``?`` square covered over at least 90% of its
area, any other over at most ``MAX_STRAY``).

People lift a resting hand before the opponent plays where it lies;
:func:`resting_schedule` says, for each state of a game, whether the hand is there.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from controller.boardsize import STANDARD
from controller.observation import Observation
from controller.synth.camera import Camera
from controller.synth.hand import (
    SKIN_TONES,
    SLEEVE_COLOURS,
    HandPainter,
    _ellipse,
    board_edges,
    cover_strays,
)

if TYPE_CHECKING:
    from controller.synth.scene import Scene

#: Seconds around a change on the squares a resting hand covers during which it is
#: lifted: before (the opponent reaches there) and after (the move is finished).
LIFT_BEFORE = 2.0
LIFT_AFTER = 2.0
#: Fraction of a square a resting hand lies over beyond which the waiting player lifts
#: it before a move there: fingertips over a sliver of a square are in the way too.
TOUCH = 0.01


def _stream(seed: int) -> np.random.Generator:
    return np.random.default_rng([seed, 14])  # the resting hand's own random stream


def resting_polygons(rng: np.random.Generator, size: int = STANDARD
                     ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """A relaxed hand lying at a random edge, fingers pointing roughly at the board, as
    (skin polygons: palm, fingers, forearm; sleeve polygons), on the board plane.

    The fingertips stop between 0.6 of a square short of the playing area (on the
    frame only) and 1.1 squares into it (over part of the edge squares).
    """
    edges = board_edges(size)
    edge = str(rng.choice(list(edges)))
    out_dir, origin, along = edges[edge]
    reach = rng.uniform(-0.6, 1.1)       # how far the fingertips come onto the board
    pos = rng.uniform(1.0, size - 1.0)      # where along the edge, a square in from a corner
    ang = math.atan2(-out_dir[1], -out_dir[0]) + rng.uniform(-0.5, 0.5)
    d = np.array([math.cos(ang), math.sin(ang)])
    n = np.array([-d[1], d[0]])
    lengths = np.array([0.55, 0.7, 0.65, 0.5]) * rng.uniform(0.85, 1.15)  # curled, relaxed
    front = 0.55 + float(lengths.max()) + 0.1    # palm centre to the furthest fingertip
    inward = float(-(d @ out_dir))               # how directly the fingers point in
    palm = origin + along * pos + out_dir * ((front * inward) - reach)
    polys = [_ellipse(palm[0], palm[1], 0.9, 0.75, ang)]
    for k, off in enumerate((-0.5, -0.17, 0.17, 0.5)):
        tip = palm + d * (0.55 + lengths[k] / 2) + n * off * 1.1
        polys.append(_ellipse(tip[0], tip[1], lengths[k] / 2 + 0.1, 0.17,
                              ang + rng.uniform(-0.15, 0.15)))
    thumb = palm + d * 0.2 + n * rng.choice([-1.0, 1.0]) * 0.85
    polys.append(_ellipse(thumb[0], thumb[1], 0.45, 0.17, ang + 0.6 * rng.uniform(-1, 1)))
    cuff = palm - d * rng.uniform(1.8, 2.8)
    back = palm - d * 40.0
    polys.append(np.array([palm + n * 0.7, palm - n * 0.7, cuff - n * 0.8, cuff + n * 0.8]))
    sleeve = [np.array([cuff + n * 0.95, cuff - n * 0.95, back - n * 4.0, back + n * 4.0])]
    return polys, sleeve


def resting_hand(cam: Camera, width: int, height: int, seed: int, n: int = STANDARD
                 ) -> tuple[HandPainter, np.ndarray, np.ndarray, np.ndarray]:
    """The scene's resting hand at the edge of an ``n`` x ``n`` board: (painted masks,
    the squares it hides, skin colour, sleeve colour). A square it covers over more
    than ``MAX_STRAY`` is covered completely and hidden, as the reaching hand's are."""
    rng = _stream(seed)
    painter = HandPainter(cam, width, height, n)
    skin_polys, sleeve_polys = resting_polygons(rng, n)
    painter.fill(skin_polys)
    painter.fill(sleeve_polys, sleeve=True)
    hidden = cover_strays(painter, np.zeros(n * n, dtype=bool))
    # The waiting player is not the one who moves: a skin and sleeve of its own.
    skin = SKIN_TONES[rng.integers(len(SKIN_TONES))] * rng.uniform(0.9, 1.1)
    sleeve = SLEEVE_COLOURS[rng.integers(len(SLEEVE_COLOURS))] * rng.uniform(0.8, 1.2)
    return painter, hidden, skin, sleeve


def resting_squares(scene: Scene, seed: int, n: int = STANDARD) -> np.ndarray:
    """The squares of an ``n`` x ``n`` board the resting hand of ``scene`` (drawn
    with ``seed``) hides, one flag a square."""
    from controller.synth.scene import _camera

    return resting_hand(_camera(scene, n), scene.width, scene.height, seed, n)[1]


def resting_reach(scene: Scene, seed: int, n: int = STANDARD) -> tuple[np.ndarray, np.ndarray]:
    """The squares of an ``n`` x ``n`` board the resting hand of ``scene`` hides, and
    those its fingertips only graze (past ``TOUCH``, short of hiding them): a player
    lifts it before a disc goes down on either, and a grazed square stays in view in
    the truth."""
    from controller.synth.scene import _camera

    painter, hidden, _, _ = resting_hand(_camera(scene, n), scene.width, scene.height,
                                         seed, n)
    return hidden, (painter.coverage() > TOUCH) & ~hidden


def resting_schedule(observations: Sequence[Observation], hidden: np.ndarray,
                     grazed: np.ndarray | None = None) -> list[bool]:
    """For each board observation: whether the resting hand lies there.

    It lies still except from ``LIFT_BEFORE`` seconds before to ``LIFT_AFTER``
    seconds after any change on the squares it ``hidden`` (a disc put down or
    turned there, or the mover's hand over them), or a disc put down or turned on
    a square it only ``grazed``: people lift a resting hand to let the opponent play
    where it lies. A hand over no square never needs to lift.
    """
    boards = [o for o in observations if o.board is not None]
    idx = np.flatnonzero(hidden)
    near = np.flatnonzero(grazed) if grazed is not None else np.array([], dtype=int)
    if not len(idx) and not len(near):
        return [True] * len(boards)
    changes: list[float] = []
    last: str | None = None
    known: dict[int, str] = {}
    for o in boards:
        seen = "".join(o.board[i] for i in idx)  # type: ignore[index]
        moved = False
        for i in near:
            c = o.board[i]  # type: ignore[index]
            if c != "?":
                moved |= known.get(int(i), c) != c
                known[int(i)] = c
        if moved or "?" in seen or (last is not None and seen != last):
            changes.append(o.t)
        if "?" not in seen:
            last = seen
    return [not any(c - LIFT_BEFORE <= o.t <= c + LIFT_AFTER for c in changes) for o in boards]
