"""How a game is run: the mode, the start, the draw rule, the clock — and who may see what."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from controller.position import Position
from controller.squares import Color, check_size


class Mode(StrEnum):
    """Who is told about an irregularity, and when.

    ``home``: the players, at once (practice). ``tournament``: only the arbiter's
    channel, because advice to players is forbidden (rule 21). ``record``: nobody
    live; irregularities only appear in the game record.
    """

    HOME = "home"
    TOURNAMENT = "tournament"
    RECORD = "record"


@dataclass(frozen=True)
class ArbiterConfig:
    mode: Mode = Mode.HOME
    start: Position = field(default_factory=Position.start)
    #: False: a 32-32 game is won by the draw-win right holder (引き分け勝ち, rule 1).
    draws_allowed: bool = True
    #: Holder of the draw-win right; with draws not allowed and nobody named, black
    #: holds it ("引き分けのときは黒勝ち", the usual tournament default).
    draw_win_right: Color | None = None
    #: None: decided by the log — a press before the first move means a clock game.
    clock: bool | None = None
    #: True for an input whose every board is already debounced, such as the sensor
    #: board (its firmware settles each square, its driver passes on only changes):
    #: a definite reading counts the moment it arrives, so a press right after the
    #: last flip sees it. False for raw frames (a camera, a simulated log), where a
    #: reading counts once a second one agrees or it stood ``HOLD`` seconds.
    settled: bool = False
    #: Seconds a press is held for the readings taken after it, which show the board
    #: as it stood at the press (a camera's finished move reaches the log after a
    #: prompt press: see :mod:`controller.arbiter.presswait`). 0: judged at once,
    #: as a settled source and a hand-made log want.
    press_wait: float = 0.0

    def __post_init__(self) -> None:
        check_size(self.start.size)  # the arbiter judges every size the rules play
        if not self.press_wait >= 0:
            raise ValueError(f"press_wait must be 0 or more seconds, not {self.press_wait}")

    def draw_winner(self) -> Color | None:
        if self.draws_allowed:
            return None
        return self.draw_win_right or Color.BLACK
