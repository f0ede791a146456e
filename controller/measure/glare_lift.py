"""How often a square reads ``?`` for how much a lamp's reflection lifts it, per board size.

A clean scene with a lamp's reflection is rendered twice, with and without it (the
renderer draws each part of a scene from its own stream, so nothing else in the
picture changes), and read as ``kaeshi recognize`` reads a photo. The mean grey
level the reflection adds over each square's middle, in the reader's own top-down
warp, says how much it lifts that square; the squares are counted by that lift.

This separates the two things a board's ``?`` rate mixes: how the reader does on a
square a reflection lifts by so much, which must not depend on the board's size,
and how many of the board's squares a reflection lifts, which does: a reflection is
the same size in squares over every board, so it covers more of a smaller one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from controller.boardsize import STANDARD
from controller.measure.evaluation import align_to_truth, own_scenes
from controller.vision.pipeline import auto_setup
from controller.vision.sampling import warp_to_canvas

#: Edges of the lift bands, in grey levels (0..255) the reflection adds on average.
BANDS = (0, 5, 20, 50, 100, 150, 256)


@dataclass
class LiftTally:
    """Squares and the ``?`` among them, per lift band, over one board size's scenes."""

    size: int
    scenes: int = 0
    not_found: int = 0
    squares: np.ndarray = field(default_factory=lambda: np.zeros(len(BANDS) - 1, int))
    unknown: np.ndarray = field(default_factory=lambda: np.zeros(len(BANDS) - 1, int))

    def add(self, lift: np.ndarray, unread: np.ndarray) -> None:
        band = np.clip(np.digitize(lift, BANDS) - 1, 0, len(BANDS) - 2)
        np.add.at(self.squares, band, 1)
        np.add.at(self.unknown, band, unread.astype(int))

    def lines(self) -> list[str]:
        total = int(self.squares.sum())
        out = [f"   {self.size}x{self.size}, own clean renders each with a lamp's reflection: "
               f"{self.scenes} scenes ({self.not_found} boards not found), ? "
               f"{int(self.unknown.sum())} of {total} squares "
               f"({100 * self.unknown.sum() / max(total, 1):.2f}%)"]
        for k in range(len(BANDS) - 1):
            n, q = int(self.squares[k]), int(self.unknown[k])
            out.append(f"     lifted {BANDS[k]}-{BANDS[k + 1]} grey levels: {n} squares "
                       f"({100 * n / max(total, 1):.1f}% of the board's), ? {q} "
                       f"({100 * q / max(n, 1):.1f}%)")
        return out


def glare_lift(scenes: int, seed: int, size: int = STANDARD) -> LiftTally:
    """``scenes`` own clean scenes of set ``seed`` on a ``size`` board, each drawn with a
    lamp's reflection, counted by how much it lifts each square (see the module)."""
    from controller.synth.picture import render
    from controller.vision.finding.finder import BoardNotFound

    tally = LiftTally(size)
    for _, own in zip(range(scenes), own_scenes(seed, False, False, size, glare=True),
                      strict=False):
        tally.scenes += 1
        lit = render(own.board, own.scene, seed=own.render_seed, shifts=own.shifts)
        unlit = render(own.board, replace(own.scene, glare=False), seed=own.render_seed,
                       shifts=own.shifts)
        try:
            setup = align_to_truth(auto_setup(lit.image, n=size), lit.corners)
        except BoardNotFound:
            tally.not_found += 1
            continue
        reader = setup.reader()
        lay = reader.layout
        grey_lit = warp_to_canvas(lit.image, lay).astype(np.float32).mean(axis=2).ravel()
        grey_unlit = warp_to_canvas(unlit.image, lay).astype(np.float32).mean(axis=2).ravel()
        lift = (grey_lit - grey_unlit)[lay.square].mean(axis=1)
        read = reader.read(lit.image).board
        tally.add(lift, np.array([ch == "?" for ch in read]))
    return tally
