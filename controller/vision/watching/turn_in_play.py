"""Which way round the board is, settled by the game's first boards.

Under a lamp's reflection over the middle, calibration can read none of the four
start discs and still keep its grid; the picture then does not say which way round
the board is up to a quarter turn (see :mod:`controller.vision.calibrating.turn`), and a
quarter turn off would put every move on the wrong square. The game says it soon:
the opening looks the same turned half a turn, but not a quarter. Black's first
moves (d3, c4, f5, e6) turned a quarter are white's, so a first disc read beside
the middle fits the opening in one turn and contradicts it in the other.

So while the turn is unsettled, each board the watcher would report is compared
with the positions ``PLIES`` moves or fewer from the start, as it reads and turned a
quarter. One turn is taken when the board fits an opening position in it (but for
``SLACK`` squares: a disc under a reflection can read wrong for the whole game) and
contradicts every one in the other on ``CONTRADICTIONS`` squares more: one square
could be a misread, and settling the wrong way would misplace every move after. A
board that fits only the other turn, not surely enough yet, is held back (see
:class:`TurnGate`) rather than judged. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np

from controller.boardsize import STANDARD, size_of_board_string
from controller.observation import Observation
from controller.position import Position
from controller.vision.calibrating.fit import turn
from controller.vision.geometry import apply_homography

#: Opening positions compared: this many moves or fewer from the start (the first
#: boards of a game whose middle a reflection hides show little more).
PLIES = 4
#: Squares on which a board must contradict every opening position in one turn more
#: than in the other for the other to be taken ...
CONTRADICTIONS = 2
#: ... in which it contradicts one on this many at most: a disc under a reflection
#: can read wrong for many frames, and the turn must still be settled round it.
SLACK = 1

KEEP, QUARTER = 0, 1
#: Lines held back at most while the game settles the turn (a dozen boards): a game
#: must not stall behind them.
MAX_HELD = 24


@dataclass(frozen=True)
class TurnVerdict:
    """What one reported board says about the turn."""

    #: ``KEEP``, ``QUARTER`` (a1 a quarter turn clockwise), or None: not yet
    quarter: int | None = None
    #: the board fits the other turn only: hold it back rather than report it
    hold: bool = False
    #: past the opening with neither turn settled: nothing later will say
    given_up: bool = False
    #: the fewest moves from the start of a position the board fits in the turn taken
    #: (as read, unless ``QUARTER``); None: none
    ply: int | None = None
    #: the board fits a position turned a quarter too (see ``hold``)
    other_fits: bool = False


@cache
def _openings(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Every position of an ``n`` x ``n`` board ``PLIES`` moves or fewer from the start,
    as rows of one char per square, and the fewest moves each is from the start."""
    boards = {Position.start(n).board_string(): 0}
    frontier = [Position.start(n)]
    for ply in range(1, PLIES + 1):
        after = []
        for pos in frontier:
            for square in pos.legal_squares():
                nxt = pos.play(square)
                if nxt.board_string() not in boards:
                    boards[nxt.board_string()] = ply
                    after.append(nxt)
        frontier = after
    return (np.array([list(board) for board in boards], dtype="<U1"),
            np.array(list(boards.values())))


@cache
def quarter_turn_squares(n: int = STANDARD) -> np.ndarray:
    """``p`` such that, with a1 turned a quarter (:func:`controller.vision.calibrating.fit.turn`),
    square ``i`` is the square ``p[i]`` was: the board's own squares, relabelled."""
    identity = np.eye(3)
    centres = np.array([(i % n + 0.5, i // n + 0.5) for i in range(n * n)])
    was = apply_homography(turn(identity, 1, n), centres)
    return (np.floor(was[:, 1]) * n + np.floor(was[:, 0])).astype(int)


def turned_board(board: str) -> str:
    """``board`` as it reads with a1 turned a quarter."""
    return "".join(board[int(k)] for k in quarter_turn_squares(size_of_board_string(board)))


def _misfits(board: str) -> np.ndarray:
    """For each opening position, the squares read (not ``?``) on which ``board``
    differs from it (a disc's colour whether centred or not)."""
    chars = np.array(list(board.upper()), dtype="<U1")
    known = chars != "?"
    openings, _ = _openings(size_of_board_string(board))
    return (openings[:, known] != chars[known]).sum(axis=1).astype(float)


def _within(misfits: np.ndarray, reach: int, n: int) -> np.ndarray:
    """``misfits`` of the positions ``reach`` moves or fewer from the start; inf for
    those further."""
    return np.where(_openings(n)[1] <= reach, misfits, np.inf)


def judge_turn(board: str, last_ply: int = PLIES) -> TurnVerdict:
    """What ``board`` (as read in the calibration's turn) says about the turn, the
    board reported before it fitting a position ``last_ply`` moves from the start.

    It is first held against positions at most one move further, as a game reaches
    them; a board fitting neither turn exactly so (a move missed under a hand, or a
    misread) against all ``PLIES``. A board fits a turn with up to ``SLACK`` squares
    contradicting it (a disc misread for many frames under a reflection), and that
    turn is taken when the other contradicts every opening position on
    ``CONTRADICTIONS`` squares more."""
    n = size_of_board_string(board)
    misfit_here, misfit_there = _misfits(board), _misfits(turned_board(board))
    anywhere_here, anywhere_there = int(misfit_here.min()), int(misfit_there.min())
    reach = min(last_ply + 1, PLIES)
    if min(_within(misfit_here, reach, n).min(), _within(misfit_there, reach, n).min()):
        reach = PLIES
    as_read, other = _within(misfit_here, reach, n), _within(misfit_there, reach, n)
    here, there = int(as_read.min()), int(other.min())
    ply = _fewest_plies(as_read, n) if here <= SLACK else None
    if ply is not None and anywhere_there >= here + CONTRADICTIONS:
        return TurnVerdict(KEEP, ply=ply)
    if there <= SLACK and anywhere_here >= there + CONTRADICTIONS:
        return TurnVerdict(QUARTER, ply=_fewest_plies(other, n))
    if there <= SLACK and there < here:
        return TurnVerdict(hold=True, other_fits=True)
    discs = sum(c in "XO" for c in board.upper())
    past = min(anywhere_here, anywhere_there) > SLACK and discs > 4 + PLIES
    return TurnVerdict(given_up=past, ply=ply, other_fits=there <= SLACK and there <= here)


def _fewest_plies(misfits: np.ndarray, n: int) -> int:
    """The fewest moves from the start among the positions ``misfits`` says fit best."""
    return int(_openings(n)[1][misfits == misfits.min()].min())


@dataclass
class Passage:
    """What the gate lets through for one board line."""

    #: the line as the settled turn reads it, or None while held back
    line: Observation | None
    #: lines held back before it and released now, oldest first: written before it
    late: list[Observation]
    #: the turn was found a quarter off: turn the grid (``line`` and ``late`` are already)
    turned: bool = False
    #: what a user watching should hear
    message: str = ""


class TurnGate:
    """Lets board lines through while the game settles the turn.

    A board that fits only the other turn is held, and every board after it while
    the turn stays unsettled, so that they come out in order. They are released once
    the turn is settled either way (turned with it), as read once a board fits only
    the calibration's turn (the held one was a misread), or after ``MAX_HELD`` lines:
    the arbiter needs every move's board, not only the last, and a game must not
    stall. Pure: the caller turns its grid when told.
    """

    def __init__(self) -> None:
        self.open = True  # still settling
        self.settled = False  # settled by the game (not given up)
        self._ply = 0  # the last board let through fits the opening this far in
        self._held: list[Observation] = []

    def let_through(self, obs: Observation) -> Passage:
        assert obs.board is not None
        verdict = judge_turn(obs.board, self._ply)
        t, message, turned = obs.t, "", False
        if verdict.given_up:
            self.open = False
            message = (f"t={t:.2f}: the game is past its opening and its boards did not show "
                       "which way round the board is; a1 stays where the calibration put it "
                       "(calibrate again with --a1 if moves read on the wrong squares)")
        elif verdict.quarter is not None:
            self.open, self.settled, turned = False, True, verdict.quarter == QUARTER
            message = (f"t={t:.2f}: the board in play shows a1 a quarter turn from where the "
                       "calibration put it (its start discs could not be read): the grid was "
                       "turned, and the board is read from here on that way round" if turned
                       else f"t={t:.2f}: the board in play confirms which way round the "
                       "board is")
        elif verdict.hold or (self._held and (verdict.ply is None or verdict.other_fits)):
            if len(self._held) < MAX_HELD:
                self._held.append(obs)
                return Passage(None, [])
            message = (f"t={t:.2f}: the boards since t={self._held[0].t:.2f} fit the board "
                       "turned a quarter better than as calibrated, but not surely: written "
                       "as read")
        if verdict.ply is not None:
            self._ply = verdict.ply
        late, self._held = self._held, []
        if turned:
            late = [Observation(o.t, board=turned_board(o.board or "")) for o in late]
            obs = Observation(t, board=turned_board(obs.board))
        return Passage(obs, late, turned, message)
