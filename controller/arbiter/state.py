"""The arbiter's whole state, in one place.

Every part of the arbiter (press waiting, corrections, the no-clock rules, the
explanations, the views) is a function over this one dataclass and the
configuration, so each field is declared once with one type, and what a part reads
and changes is in its signature. Nothing here judges anything: the parts do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.arbiter.judge import Flag, Judgement
from controller.arbiter.readings import StableBoard
from controller.events import Event
from controller.position import Position
from controller.records.model import Move
from controller.squares import Color, squares_of

#: Where the game stands between inputs: a clock game waits for the first press
#: (``WAITING``); a move may be made (``TURN``); the offender puts a pointed-out
#: fault right (``CORRECTING``); the game has ended (``OVER``).
WAITING, TURN, CORRECTING, OVER = "waiting", "turn", "correcting", "over"

#: Per frame since the last judgement without a clock: (occupied, known) as read,
#: the confirmed (black, white, shifted) after it, and its time.
Frame = tuple[int, int, int, int, int, float]


def names(mask: int, size: int) -> list[str]:
    return squares_of(mask, size)


@dataclass
class OpenMove:
    """The last judged move while its irregularities can still be corrected."""

    judgement: Judgement
    flags: list[Flag]
    record_index: int
    challenged: bool = False


@dataclass
class HeldPress:
    """A press waiting for the frames taken after it (see :mod:`~controller.arbiter.presswait`)."""

    t: float
    player: Color
    #: the confirmed (black, white, shifted) at the press
    masks: tuple[int, int, int]
    #: the readings started from those at the press: the board as it stood then
    view: StableBoard
    #: the last board string before the press
    at_press: str | None


@dataclass
class ArbiterState:
    """Everything the arbiter knows of one game; built from the start position."""

    #: the official position: every fault left on the board is part of it
    position: Position
    #: the readings the arbiter trusts (see :mod:`~controller.arbiter.readings`)
    stable: StableBoard
    #: True: a clock game; False: judged without a clock; None: not known yet
    clock: bool | None
    phase: str
    #: shifted discs on the official board
    shifted: int = 0
    last_board: str | None = None
    #: how often the last board string came again in a row
    repeats: int = 0
    #: the time of the latest observation
    last_t: float | None = None
    #: when the side to move's time began (the last judged move, or a press)
    turn_t: float | None = None
    #: the first new disc of the turn
    first: int | None = None
    #: the last move while its irregularities can still be corrected
    open: OpenMove | None = None
    moves: list[Move] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    result: tuple[int, int] | None = None
    last_move: str | None = None
    # A pointed-out move being put right (see ``corrections``):
    #: the move pointed out, while its offender corrects it
    challenged: OpenMove | None = None
    #: when it was pointed out
    challenge_t: float | None = None
    #: whether the game had ended when it was pointed out
    was_over: bool = False
    #: whether anything of it was put right
    fixed_any: bool = False
    #: a point-out not yet told (the press may still prove a pass)
    said: Event | None = None
    # Without a clock (see ``noclock``):
    #: every frame since the last judgement
    history: list[Frame] = field(default_factory=list)
    #: the confirmed (black, white, shifted) the history starts from
    base: tuple[int, int, int] = (0, 0, 0)
    #: a press waiting for the frames after it (see ``presswait``)
    held: HeldPress | None = None

    @classmethod
    def start(cls, position: Position, clock: bool | None) -> ArbiterState:
        """The state before the first observation of a game from ``position``."""
        return cls(
            position=position,
            stable=StableBoard.of(position.black, position.white),
            clock=clock,
            phase=WAITING if clock else TURN,
            base=(position.black, position.white, 0),
        )
