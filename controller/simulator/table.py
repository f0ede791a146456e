"""A physical board as a sensor sees it: a hand over the squares, one frame at a time.

The table keeps the discs as they really lie and writes the observations a sensor
would give: squares under the working hand read ``?``, and with ``noise`` a frame
may misread one square. A square is never misread twice within a few frames, so a
one-frame misread stays a one-frame misread — the ground truth stays exact. While
nothing happens, frames are written sparsely (a still board reads the same at every
frame), but a misread still lasts one frame: the next frame follows ``FRAME`` later,
as on a real camera, so a misread never stands as long as a settled board does.
"""

from __future__ import annotations

import random
from functools import cache

from controller.arbiter.presswait import press_wait
from controller.boardsize import size_of_board_string
from controller.observation import Observation
from controller.simulator.prompt import PROMPT
from controller.squares import Color


@cache
def neighbours(size: int) -> tuple[tuple[int, ...], ...]:
    """Per square of a ``size`` board, the squares around it."""
    return tuple(
        tuple(
            (r + dr) * size + (c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < size and 0 <= c + dc < size
        )
        for r, c in (divmod(i, size) for i in range(size * size))
    )


FRAME = 0.1  # seconds between frames while something happens on the board
#: Seconds a press in these logs waits for the frames after it: raw frames (no
#: watcher) every ``FRAME`` (see :func:`controller.arbiter.presswait.press_wait`).
PRESS_WAIT = press_wait(1 / FRAME, stable=0)
NOISE_GAP = 10  # frames before the same square may be misread again
_MISREAD = {ch: [o for o in "-XO?xo" if o != ch] for ch in "-XOxo"}


class Table:
    """The real board, a clock, and the stream of observations they produce."""

    def __init__(self, board: str, rng: random.Random, hand: bool, noise: float,
                 prompt: random.Random | None = None) -> None:
        """``prompt``: players reach for the clock as the hand leaves the board, at
        moments drawn from this generator (its own, so the rest of a seeded game
        stays as it was; see :meth:`retreat`)."""
        self.prompt = prompt
        self.cells = list(board)
        self.size = size_of_board_string(board)
        self.rng = rng
        self.hand = hand
        self.noise = noise
        self.t = 0.0
        self.frame_no = 0
        self.observations: list[Observation] = []
        self._last_noise = [-NOISE_GAP] * len(board)

    def board(self) -> str:
        return "".join(self.cells)

    # ---------------------------------------------------------------- frames
    def show(self, hidden: set[int] | frozenset[int] = frozenset(), dt: float = FRAME) -> None:
        """Emit one frame, then let ``dt`` seconds pass."""
        cells = self.cells[:]
        for sq in hidden:
            cells[sq] = "?"
        right = "".join(cells)
        if self.noise and self.rng.random() < self.noise:
            sq = self.rng.randrange(len(cells))
            if sq not in hidden and self.frame_no - self._last_noise[sq] >= NOISE_GAP:
                cells[sq] = self.rng.choice(_MISREAD[cells[sq]])
                self._last_noise[sq] = self.frame_no
        board = "".join(cells)
        self.observations.append(Observation(round(self.t, 3), board=board))
        self.frame_no += 1
        if board != right and dt > FRAME:  # the misread's frame is over after FRAME
            self.t += FRAME
            dt -= FRAME
            self.observations.append(Observation(round(self.t, 3), board=right))
        self.t += dt

    def still(self, frames: int, span: float | None = None) -> None:
        """Nothing over the board for ``frames`` frames (spread over ``span`` seconds)."""
        dt = FRAME if span is None else max(FRAME, span / frames)
        for _ in range(frames):
            self.show(dt=dt)

    def think(self) -> None:
        self.still(self.rng.randint(4, 6), self.rng.uniform(0.6, 4.0))

    def press(self, player: Color) -> float:
        t = round(self.t, 3)
        self.observations.append(Observation(t, press=player))
        self.t += FRAME
        return t

    # ----------------------------------------------------------------- hands
    def cover(self, sq: int, keep: frozenset[int] = frozenset()) -> set[int]:
        """The squares a hand working on ``sq`` hides: the square and a few neighbours."""
        if not self.hand:
            return set()
        near = neighbours(self.size)[sq]
        hidden = {sq, *self.rng.sample(near, min(len(near), self.rng.randint(1, 3)))}
        return hidden - keep

    def touch(self, sq: int, char: str, keep: frozenset[int] = frozenset()) -> None:
        """Put, turn or lift the disc on ``sq`` (``char`` is what lies there afterwards)."""
        hidden = self.cover(sq, keep)
        self.show(hidden, self.rng.uniform(0.08, 0.2))
        self.cells[sq] = char
        self.show(hidden, self.rng.uniform(0.08, 0.2))

    def touch_all(self, changes: list[tuple[int, str]]) -> None:
        """Several discs set right at once under one hand (a correction of many faults)."""
        hidden: set[int] = set()
        for sq, _ in changes:
            hidden |= self.cover(sq)
        self.show(hidden, self.rng.uniform(0.08, 0.2))
        for sq, char in changes:
            self.cells[sq] = char
        self.show(hidden, self.rng.uniform(0.08, 0.2))

    def glimpse(self, sq: int) -> None:
        """The hand hovers beside ``sq`` so the square itself is seen for a moment."""
        hidden = self.cover(sq) - {sq}
        for _ in range(self.rng.randint(2, 3)):
            self.show(hidden)

    def retreat(self) -> None:
        """The hand leaves the board: every square is seen settled before anything else.

        A ``prompt`` player's press (if one follows) comes 0.15-0.4 s after the
        first frame without the hand, as people press (``PROMPT``); otherwise after
        four settled frames.
        """
        if self.prompt is None:
            self.still(4)
            return
        wait = self.prompt.uniform(*PROMPT)
        frames = int(wait / FRAME) + 1  # frames from the hand leaving up to the press
        for k in range(frames):
            self.show(dt=FRAME if k < frames - 1 else wait - (frames - 1) * FRAME)
