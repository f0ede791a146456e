"""From a stream of frames to the observation log.

A single frame can be caught mid-motion: a disc in the air, a hand sweeping in, a
blurred flip. So a square's state is only reported once it has read the same for
``stable`` frames in a row; anything else (including a square that changed a lot
since the previous frame) is held as it was, and squares under a hand are reported
as ``?`` at once. A board line is written when the reported board changes, and again
on the next frame if it still holds; a still board writes nothing more. That second
line is a frame that really read the same board: the arbiter counts it and takes
the board at once, where a lone line must first stand a while (a clock may be
pressed, or the video end, a moment after the last disc settles).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from controller.observation import Observation
from controller.vision.reader import Reading, SquareReader

MOTION_LEVEL = 18.0  # mean absolute grey change (0..255) that marks a square as moving
REPEATS = 1  # extra lines written for a new board while it holds
FOLLOW_CONFIDENCE = 0.8  # discs read at least this surely show the light's colour levels
BOARD_VISIBLE = 0.35  # share of square corners that must show felt for a board to be in view


@dataclass
class WatchStats:
    frames: int = 0
    no_board: int = 0
    emitted: int = 0
    messages: list[str] = field(default_factory=list)


class BoardWatcher:
    """Feeds frames through a :class:`SquareReader` and debounces the readings."""

    def __init__(self, reader: SquareReader, stable: int = 2, keepalive: float | None = None):
        if stable < 1:
            raise ValueError("stable must be at least 1 frame")
        self.reader = reader
        self.stable = stable
        self.keepalive = keepalive
        self.candidate = np.full(64, "?", dtype="<U1")
        self.count = np.zeros(64, dtype=int)
        self.reported = np.full(64, "?", dtype="<U1")
        self.last_line: str | None = None
        self.confirm = 0
        self.last_t = float("-inf")
        self.prev_grey: np.ndarray | None = None
        self.board_seen = True
        self.stats = WatchStats()

    def _motion(self, canvas: np.ndarray) -> np.ndarray:
        lay = self.reader.layout
        grey = canvas.mean(axis=2, dtype=np.float32).ravel()
        moving = np.zeros(64, dtype=bool)
        if self.prev_grey is not None:
            diff = np.abs(grey[lay.square] - self.prev_grey[lay.square]).mean(axis=1)
            moving = diff > MOTION_LEVEL
        self.prev_grey = grey
        return moving

    def feed(self, t: float, image: np.ndarray) -> Observation | None:
        """Read one frame; return a board observation when the reported board changes."""
        self.stats.frames += 1
        canvas = self.reader.warp(image)
        moving = self._motion(canvas)
        reading = self.reader.read_canvas(canvas)
        if float(np.mean(reading.felt_corners)) < BOARD_VISIBLE:
            # no board in view (camera knocked, lens covered): say so, record nothing
            self.stats.no_board += 1
            if self.board_seen:
                self.stats.messages.append(f"t={t:.2f}: the board is not in view")
            self.board_seen = False
            self.count[:] = 0
            return None
        if not self.board_seen:
            self.stats.messages.append(f"t={t:.2f}: the board is back in view")
            self.board_seen = True
        self._follow_light(t, reading, moving)
        return self.update(t, reading, moving)

    def _follow_light(self, t: float, reading: Reading, moving: np.ndarray) -> None:
        """Let the colour levels follow the light, from still frames without a hand.

        A frame caught mid-move (a disc in the air, a hand) could show anything;
        a still board's surely read discs show what black and white look like now.
        """
        if reading.hand or moving.any():
            return
        chars = np.array(list(reading.board))
        sure = reading.confidence >= FOLLOW_CONFIDENCE
        lr = reading.log_ratio
        model = self.reader.model
        followed = model.follow(lr[sure & (chars == "X")], lr[sure & (chars == "O")])
        if followed is not model:
            if not model.fitted:
                self.stats.messages.append(
                    f"t={t:.2f}: the colour levels were fitted on the board in play "
                    "(the calibration could not see both colours)"
                )
            self.reader.model = followed

    def update(
        self, t: float, reading: Reading, moving: np.ndarray | None = None
    ) -> Observation | None:
        chars = np.array(list(reading.board))
        if moving is not None:
            chars = np.where(moving, "?", chars)
        same = chars == self.candidate
        self.count = np.where(same, self.count + 1, 1)
        self.candidate = chars
        settled = (self.count >= self.stable) & (chars != "?")
        # a hand (or motion) hides a square at once; a new state waits until it settles
        self.reported = np.where(chars == "?", "?", np.where(settled, chars, self.reported))
        line = "".join(self.reported)
        if self.last_line is None and set(line) == {"?"}:
            return None  # nothing has settled yet: no line rather than an empty reading
        due = self.keepalive is not None and t - self.last_t >= self.keepalive
        if line == self.last_line and not due and self.confirm == 0:
            return None
        # a new board is written again on the next frame while it still holds (see above)
        if line != self.last_line:
            self.confirm = REPEATS
        elif self.confirm:
            self.confirm -= 1
        self.last_line = line
        self.last_t = t
        self.stats.emitted += 1
        return Observation(t, board=line)
