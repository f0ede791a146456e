"""Rules 11–12 at the table: the arbiter's actions for a player who has not come.

The arbiter marks the absent player (``late``, with their colour on the sheet); the
present player's next press — made on the arbiter's word — starts the absent
player's time, exactly as the clock's buttons do (the first press runs the other
side).  On arrival (``late_arrived``) the clock stops; the late player then plays on
(``late_play_on``: the game starts as any other, rule 4, with their time reduced by
what ran) or takes the forfeit (``late_forfeit``: the game ends without a board
result, 不戦敗, not rated).  A flag that falls before they came ends it the same way.
The time left is charged to the colour the late player was listed with; should the
伏せ石 give them the other colour, the arbiter moves it with the time adjustment.

Every step is an ordinary journaled input of :class:`~controller.service.core.GameCore`,
so a restart replays it, and the record names what happened.
"""

from __future__ import annotations

from typing import Any, Protocol

from controller.arbiter.core import Arbiter
from controller.clock import GameClock, TimeControl
from controller.scorecard import LateArrival, ScoreCardError
from controller.squares import Color


class _LateSettings(Protocol):
    @property
    def black(self) -> str: ...
    @property
    def white(self) -> str: ...
    @property
    def main(self) -> float: ...
    def time_control(self) -> TimeControl: ...


class LateTable(Protocol):
    """What a late arrival changes of a game (the service's ``GameCore``): its clock
    and its late-arrival record, judged against its settings and its moves."""

    clock: GameClock | None
    late: LateArrival | None
    late_color: Color | None

    @property
    def settings(self) -> _LateSettings: ...
    @property
    def arbiter(self) -> Arbiter: ...


LATE_ACTIONS = ("late", "late_arrived", "late_play_on", "late_forfeit")


class LateRefused(ValueError):
    """A late-arrival step that makes no sense now (turned into ActionRefused)."""


def late_action(core: LateTable, t: float, data: dict[str, Any]) -> None:
    """Apply one of :data:`LATE_ACTIONS` at table time ``t``."""
    action = data["action"]
    s = core.settings
    try:
        if action == "late":
            if core.late is not None:
                raise LateRefused(f"{core.late.late} is already marked late")
            if core.arbiter.moves or (
                    core.clock is not None and core.clock.running is not None):
                raise LateRefused("the game has begun: a late arrival is marked before it")
            color = Color(data["color"])
            names = {Color.BLACK: s.black or "black", Color.WHITE: s.white or "white"}
            core.late = LateArrival(names[color], names[color.opponent], s.main / 60.0)
            core.late_color = color
        elif core.late is None:
            raise LateRefused("nobody is marked late at this table")
        elif action == "late_arrived":
            core.late = core.late.arrive(t)
            if core.clock is not None:
                core.clock.pause(t)
        elif action == "late_play_on":
            core.late = core.late.play_on()
            if core.clock is not None and core.late_color is not None:
                left = core.clock.remaining(core.late_color, t)
                core.clock = GameClock(s.time_control(), core.clock.draw_win_right)
                core.clock.adjust(core.late_color, left - s.main, t)
        elif action == "late_forfeit":
            core.late = core.late.take_forfeit()
    except ScoreCardError as exc:
        raise LateRefused(str(exc)) from None


def late_press(core: LateTable, player: Color, t: float) -> bool:
    """The present player's press on the arbiter's word starts the absent one's time.
    True when the press was that one: it starts the clock and ends no move."""
    if (core.late is not None and core.late.state == "absent"
            and core.late_color is not None and player is core.late_color.opponent):
        core.late = core.late.start_clock(t)
        if core.clock is not None:
            core.clock.press(player, t)
        return True
    return False
