"""The service's time: a game time that never goes backwards, even across restarts.

The wall clock is read here only (journal rows and the hall's figures carry it;
play never does); game time runs on the monotonic clock, scaled for replays, and
continues from the last journaled instant when a game is resumed.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.service.bootclock import BootStamp


class GameTime:
    """The clocks of one service: wall, monotonic, boot, and the game time over them."""

    def __init__(self, wall: Callable[[], float], monotonic: Callable[[], float],
                 boot_clock: Callable[[], BootStamp], scale: float) -> None:
        self._wall = wall
        self._mono = monotonic
        #: The clock that measures an outage within one boot (never set, never jumps).
        self.boot_clock = boot_clock
        #: Game seconds per real second: 1 except for replays (and the demo's board).
        self._scale = scale
        self._base = 0.0
        self._m0 = monotonic()

    @property
    def scale(self) -> float:
        return self._scale

    def wall_time(self) -> float:
        """The wall clock (journal rows and the hall's figures carry it; play never does)."""
        return self._wall()

    def now(self) -> float:
        """Game time in seconds: monotonic, scaled for replays, continued across restarts."""
        return self._base + (self._mono() - self._m0) * self._scale

    def game_time(self, mono: float) -> float:
        """The game time of an instant of the monotonic clock (a button's edge)."""
        return self._base + (mono - self._m0) * self._scale

    def set_base(self, t: float) -> None:
        """Game time is ``t`` now (a resumed game, a replayed reading's own time)."""
        self._base = t
        self._m0 = self._mono()

    @property
    def base(self) -> float:
        """The game time at the last :meth:`set_base` (a replay's first reading continues it)."""
        return self._base

    def monotonic(self) -> float:
        return self._mono()
