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

import math
from dataclasses import dataclass, field, replace

import numpy as np

from controller.observation import Observation
from controller.vision.calibrating.fit import turn
from controller.vision.geometry import apply_homography
from controller.vision.reading.board_reading import Reading
from controller.vision.reading.reader import SquareReader
from controller.vision.setup import CameraSetup
from controller.vision.watching.grid_guard import agreement, explained_boards
from controller.vision.watching.turn_in_play import TurnGate, quarter_turn_squares

MOTION_LEVEL = 18.0  # mean absolute grey change (0..255) that marks a square as moving
REPEATS = 1  # extra lines written for a new board while it holds
FOLLOW_CONFIDENCE = 0.8  # discs read at least this surely show the light's colour levels
BOARD_VISIBLE = 0.35  # share of square corners that must show felt for a board to be in view
BUMP_SQUARES = 6  # reported squares reading otherwise at once, no hand in view: a bump?
BUMP_CORNERS = 0.75  # ... or the squares' corners showing this much less felt than before
BUMP_DROP = 0.15  # ... or this much less (share of the corners) in every quarter of the board
REFIT_MOVED = 0.08  # squares the grid must have moved for a re-fit to be taken
REFIT_NET = 0.12  # grid seen on the lines less between them for a re-fitted grid to hold
REFIT_BETTER = 6  # squares a re-fitted grid must read rightly more than the old one
REFIT_PAUSE = 1.0  # seconds before a re-fit is tried again after one was refused


#: How a refused re-fit is told (``kaeshi watch`` prints it; the service tells the arbiter).
KEPT_GRID = "the grid was kept (the camera may have moved)"


@dataclass
class WatchStats:
    frames: int = 0
    no_board: int = 0
    emitted: int = 0
    messages: list[str] = field(default_factory=list)


class BoardWatcher:
    """Feeds frames through a :class:`SquareReader` and debounces the readings."""

    def __init__(self, reader: SquareReader, stable: int = 2, keepalive: float | None = None,
                 turn_unsettled: bool = False):
        """``turn_unsettled``: the calibration could not tell which way round the board
        is up to a quarter turn; the game's first boards settle it (see
        :mod:`controller.vision.watching.turn_in_play`), and ``turn_settled`` is then set."""
        if stable < 1:
            raise ValueError("stable must be at least 1 frame")
        self.reader = reader
        self.stable = stable
        self.keepalive = keepalive
        squares = reader.n * reader.n
        self.candidate = np.full(squares, "?", dtype="<U1")
        self.count = np.zeros(squares, dtype=int)
        self.reported = np.full(squares, "?", dtype="<U1")
        self.last_line: str | None = None
        self.confirm = 0
        self.last_t = float("-inf")
        self.prev_grey: np.ndarray | None = None
        self.board_seen = True
        self.corner_felt: np.ndarray | None = None  # felt in the squares' corners, by quarter
        self.anchor: str | None = None  # the last board line written with every square read
        self.refused_at = float("-inf")  # when a re-fitted grid was last refused
        self.suspect = False  # the last line was no position legal play explains
        self.turn_gate = TurnGate() if turn_unsettled else None
        self.late: list[Observation] = []  # held by the gate, then released: see take_late
        self.stats = WatchStats()

    @classmethod
    def on_setup(cls, setup: CameraSetup, stable: int = 2,
                 keepalive: float | None = None) -> BoardWatcher:
        """A watcher reading with a saved set-up, its turn unsettled if the set-up's is."""
        return cls(setup.reader(), stable, keepalive, turn_unsettled=setup.turn_unsettled)

    @property
    def turn_unsettled(self) -> bool:
        return self.turn_gate is not None and self.turn_gate.open

    @property
    def turn_settled(self) -> bool:
        """The game settled an unsettled turn: the reader's grid is then the one to
        keep (a caller may save it with the calibration)."""
        return self.turn_gate is not None and self.turn_gate.settled

    def settled_setup(self, setup: CameraSetup) -> CameraSetup:
        """``setup`` with the grid the game settled the turn on (see ``turn_settled``)."""
        bias = self.reader.disc_bias
        return replace(setup, homography=self.reader.homography.copy(),
                       disc_bias=(float(bias[0]), float(bias[1])), turn_unsettled=False,
                       doubtful=self.reader.doubtful)

    def _motion(self, canvas: np.ndarray) -> np.ndarray:
        lay = self.reader.layout
        grey = canvas.mean(axis=2, dtype=np.float32).ravel()
        moving = np.zeros(lay.squares, dtype=bool)
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
        bumped = self._bumped(reading, moving)
        if not bumped and self.suspect and not moving.any():
            bumped = "suspect"
        refitted = None
        if bumped and t - self.refused_at >= REFIT_PAUSE:
            refitted = self._refit(t, image, anew=bumped == "suspect")
            if bumped == "suspect":
                self._suspect_checked(refitted is not None)
            if refitted is None and bumped == "unreadable":
                return None  # not judged: a frame of a moved grid is no position
        if bumped and refitted is not None:
            canvas = self.reader.warp(image)
            reading = self.reader.read_canvas(canvas)
            moving = np.zeros(self.reader.layout.squares, dtype=bool)
            self.prev_grey = canvas.mean(axis=2, dtype=np.float32).ravel()
        if not reading.hand and not moving.any():
            felt = _quarters(reading.felt_corners)
            self.corner_felt = felt if self.corner_felt is None else (
                0.9 * self.corner_felt + 0.1 * felt)
        self._follow_light(t, reading, moving)
        return self.update(t, reading, moving)

    def _bumped(self, reading: Reading, moving: np.ndarray) -> str:
        """Whether the board or the camera seems to have moved since the grid was fitted.

        A still frame with no hand in which many squares read otherwise than the
        reported board, or whose squares' corners suddenly show much less felt (the
        grid now falls on lines and discs), is not a move: no player turns six discs
        without a hand in view. A hand or an arm can hide felt in every quarter of a
        small board too, and a grid that slipped can itself read as a hand, so with
        a hand in view the felt alone proposes a re-fit, which is taken only if it
        reads the board clearly better (:meth:`_reads_better`). Returns
        ``unreadable`` (the grid no longer fits), ``changed`` (many squares changed:
        a bump, or a big move whose hand left between two frames) or ``""``.
        """
        if moving.any() or self.reader.layout is None:
            return ""
        quarters = _quarters(reading.felt_corners)
        base = self.corner_felt
        if base is not None and bool(np.all(quarters < BUMP_CORNERS * base)):
            return "unreadable"  # all over the board at once: no hand does that
        if base is not None and bool(np.all(base - quarters >= BUMP_DROP)):
            return "changed"
        if reading.hand:
            return ""
        chars = np.array(list(reading.board))
        known = (self.reported != "?") & (chars != "?")
        changed = int((chars[known] != self.reported[known]).sum())
        return "changed" if changed >= BUMP_SQUARES else ""

    def _suspect_checked(self, refitted: bool) -> None:
        """A suspect line's grid was checked: a grid that held reads the board as it is."""
        self.suspect = False
        if not refitted and self.last_line is not None:
            self.anchor = self.last_line

    def _refit(self, t: float, image: np.ndarray, anew: bool = False) -> SquareReader | None:
        """Fit the grid again where the board now is, keeping a1 where it was.

        ``anew``: find the board anew at once (the grid reads nonsense: it may sit on
        the printed lines a whole square off, where they would hold it)."""
        from controller.vision.finding.finder import BoardNotFound
        from controller.vision.finding.grid import grid_coverage, refine_on_grid
        from controller.vision.geometry import aligned_grid, corners_of
        from controller.vision.pipeline import locate
        from controller.vision.setup import CameraSetup

        old = self.reader
        n = old.n
        h = old.homography if anew else refine_on_grid(image, old.homography, n=n)[0]
        if anew or (grid_coverage(image, h, n=n) - grid_coverage(image, h, offset=0.5, n=n)
                    < REFIT_NET):
            try:  # moved too far for the old grid to pull it back: find the board anew
                found = locate(image, n=n).homography
            except BoardNotFound:
                return None
            keep = CameraSetup(old.image_size, found, size=n)
            h = aligned_grid(keep.homography, corners_of(old.homography, n), n)
        corners = corners_of(h, n)
        before = corners_of(old.homography, n)
        side = float(np.linalg.norm(before[1] - before[0])) / n
        if float(np.abs(corners - before).max()) < REFIT_MOVED * side:
            return None
        candidate = old.on_grid(h)
        if not self._reads_better(image, candidate):
            self.refused_at = t
            self.stats.messages.append(
                f"t={t:.2f}: the picture changed as if the camera moved, but a grid fitted "
                f"again reads the board no better: {KEPT_GRID}")
            return None
        self.reader = candidate
        self.count[:] = 0
        self.reported[:] = "?"  # what the old grid read is no reading of the board
        self.corner_felt = None
        self.stats.messages.append(
            f"t={t:.2f}: the board or the camera moved; the grid was fitted again")
        return self.reader

    def _reads_better(self, image: np.ndarray, candidate: SquareReader) -> bool:
        """Whether ``candidate`` reads the position in play (the last whole board
        line, or one legal move on) clearly better than the current grid, on the
        squares each sees."""
        if self.anchor is None:
            return True  # nothing read yet: nothing to tell the grids apart by
        boards = explained_boards(self.anchor)
        new = agreement(candidate.read(image).board, boards)
        return new >= agreement(self.reader.read(image).board, boards) + REFIT_BETTER

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
        self._check_explained(t, line)
        self.stats.emitted += 1
        if self.turn_gate is not None and self.turn_gate.open:
            return self._through_gate(Observation(t, board=line))
        return Observation(t, board=line)

    def _check_explained(self, t: float, line: str) -> None:
        """Keep the line as the position in play, or, if legal play cannot explain it
        from the last one (more than ``REFIT_BETTER`` squares read otherwise), have
        the next still frame check the grid: a grid a square off reads nonsense at
        once, and is noticed then, not a minute later."""
        known = sum(c != "?" for c in line)
        if self.anchor is None or self.turn_unsettled:
            if "?" not in line:
                self.anchor = line
            return
        if agreement(line, explained_boards(self.anchor)) < known - 2 * REFIT_BETTER:
            if not self.suspect:
                self.stats.messages.append(
                    f"t={t:.2f}: no legal play explains the board read; the grid is checked")
            self.suspect = True
        elif "?" not in line:
            self.anchor = line

    def _through_gate(self, obs: Observation) -> Observation | None:
        """``obs`` as the settled turn reads it, or None while the gate holds it."""
        assert self.turn_gate is not None
        passage = self.turn_gate.let_through(obs)
        if passage.turned and passage.line is not None:  # a turn comes with the line
            self._turn_quarter()
            self.last_line = passage.line.board
        if passage.message:
            self.stats.messages.append(passage.message)
        self.late += passage.late
        return passage.line

    def take_late(self) -> list[Observation]:
        """Boards held back while the turn was unsettled and now released, oldest
        first: to be written before the board :meth:`feed` returned with them."""
        late, self.late = self.late, []
        return late

    def _turn_quarter(self) -> None:
        """Turn the grid a quarter, relabelling what was seen on each square."""
        old = self.reader
        n = old.n
        h = turn(old.homography, 1, n)
        # the discs' systematic offset, a vector on the board, in the turned labels
        mid = n / 2
        moved = apply_homography(np.linalg.inv(h) @ old.homography,
                                 np.array([[mid, mid], [mid + old.disc_bias[0],
                                                        mid + old.disc_bias[1]]]))
        bias = moved[1] - moved[0]
        was = quarter_turn_squares(n)
        doubtful = tuple(i for i in range(n * n) if was[i] in old.doubtful)  # the same felt
        self.reader = old.on_grid(h, (float(bias[0]), float(bias[1])), doubtful)
        self.candidate = self.candidate[was]
        self.count = self.count[was]
        self.reported = self.reported[was]
        if self.anchor is not None:
            self.anchor = "".join(np.array(list(self.anchor))[was])
        self.prev_grey = None  # the canvas is laid out anew
        self.corner_felt = None


def _quarters(values: np.ndarray) -> np.ndarray:
    """Mean of a per-square value over each quarter of the board (4 values)."""
    half = math.isqrt(np.size(values)) // 2
    v = np.asarray(values, dtype=np.float64).reshape(2, half, 2, half)
    return v.mean(axis=(1, 3)).ravel()
