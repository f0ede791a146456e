"""The tournament game clock as a pure model: every method takes the time as ``now``.

Nothing here reads a wall clock, so the service drives it from the real press
times, the arbiter from observation timestamps, and the tests from a fake clock
down to the millisecond.

A flag falls at an instant the model computes (:meth:`GameClock.fall_time`), not
when somebody happens to look: "time runs out at the moment it is used up" (rule
2 of the championship rules). A press that arrives after that instant does not
end the move — no increment, no switch — so how often the service polls cannot
change who lost on time. Time keeps counting below zero, so a flag nobody acted
on stays visible; both flags can be down only after an arbiter's time correction,
and then rule 14 (the draw-win right) decides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from controller.squares import Color


@dataclass(frozen=True)
class TimeControl:
    """Main time per side in seconds; Fischer ``increment`` and simple ``delay`` per move."""

    main: float = 1200.0
    increment: float = 0.0
    delay: float = 0.0

    def __post_init__(self) -> None:
        if self.main <= 0:
            raise ValueError(f"main time must be positive, not {self.main}")
        if self.increment < 0 or self.delay < 0:
            raise ValueError("increment and delay must not be negative")

    def describe(self) -> str:
        """GGF-like text (``20:00``, ``+5s``/``d5s``) for records."""
        minutes, seconds = divmod(round(self.main), 60)
        text = f"{minutes:02d}:{seconds:02d}"
        if self.increment:
            text += f"+{self.increment:g}s"
        if self.delay:
            text += f" d{self.delay:g}s"
        return text


@dataclass(frozen=True)
class FlagResult:
    """A decided time-out: ``winner`` is None when both flags fell and nobody holds the right."""

    loser: Color | None
    winner: Color | None
    reason: str  # "time" (one flag) or "both_flags" (rule 14)


class GameClock:
    """Two countdowns and the button logic of a tournament clock."""

    def __init__(
        self, control: TimeControl | None = None, draw_win_right: Color | None = None
    ) -> None:
        self.control = control or TimeControl()
        self.draw_win_right = draw_win_right
        self._left = {Color.BLACK: self.control.main, Color.WHITE: self.control.main}
        self.running: Color | None = None
        self.paused = False
        self._since = 0.0  # start of the current running stretch (after the last resume)
        self._used = 0.0  # time already spent on the current move before a pause

    # ---------------------------------------------------------------- buttons
    def press(self, player: Color, now: float) -> float | None:
        """``player`` presses their button: their turn ends and the other side's time runs.

        The first press starts the clock (rule 4: white's press starts black's time).
        A press on a button whose time is not running does nothing on a real clock,
        and does nothing here; nor does a press at or after the instant the presser's
        flag fell (it is too late: the time was already used up). Returns the time
        ``player`` used on the move just ended.
        """
        if self.paused:
            return None
        if self.running is None:
            self.running = player.opponent
            self._since, self._used = now, 0.0
            return None
        if self.running is not player:
            return None
        fall = self.fall_time()
        if fall is not None and now >= fall:
            return None
        used = self._used + max(0.0, now - self._since)
        self._left[player] -= self._charge(used)
        self._left[player] += self.control.increment
        self.running = player.opponent
        self._since, self._used = now, 0.0
        return used

    def pause(self, now: float) -> None:
        """Arbiter stops the clock (rule 10); the running side keeps the move's time so far."""
        if self.paused or self.running is None:
            return
        self._used += max(0.0, now - self._since)
        self.paused = True

    def end_move_while_paused(self, player: Color) -> None:
        """A move by ``player`` was judged while the clock stood (the board is watched
        during a pause): it is charged the time used before the pause, increment
        included, and the other side is on move — with no time running until resume."""
        if not self.paused or self.running is not player:
            return
        self._left[player] -= self._charge(self._used)
        self._left[player] += self.control.increment
        self.running = player.opponent
        self._used = 0.0

    def resume(self, now: float, to_move: Color | None = None) -> None:
        """Start the stopped clock again, for ``to_move`` when given (the side the
        arbiter has on move, should the clock disagree)."""
        if not self.paused:
            return
        if to_move is not None and self.running is not None and to_move is not self.running:
            self.end_move_while_paused(self.running)
        self.paused = False
        self._since = now

    def adjust(self, player: Color, delta: float, now: float) -> None:
        """Arbiter's time correction (rule 25): add ``delta`` seconds (negative takes away)."""
        del now  # the adjustment is independent of when it is made; kept for a uniform API
        self._left[player] += delta

    # ---------------------------------------------------------------- reading
    def _charge(self, used: float) -> float:
        return max(0.0, used - self.control.delay)

    def move_time(self, now: float) -> float:
        """Time the running side has spent on the current move."""
        if self.running is None:
            return 0.0
        if self.paused:
            return self._used
        return self._used + max(0.0, now - self._since)

    def remaining(self, player: Color, now: float) -> float:
        """Seconds left; negative once the flag has fallen."""
        left = self._left[player]
        if player is self.running:
            left -= self._charge(self.move_time(now))
        return left

    def fall_time(self) -> float | None:
        """The instant the running side's flag falls (or fell); None while no time runs.

        Exact (no polling): the service schedules its flag check for this instant and
        the core stamps the time-out with it. A stopped clock has no such instant
        (it moves with the resume).
        """
        side = self.running
        if side is None or self.paused:
            return None
        room = self._left[side] + self.control.delay - self._used  # running time to zero
        return self._since + max(0.0, room) if self._left[side] > 0 else self._since

    def _out(self, player: Color, now: float) -> bool:
        if player is self.running and not self.paused:
            fall = self.fall_time()
            return fall is not None and now >= fall
        return self.remaining(player, now) <= 0

    def flag(self, now: float) -> FlagResult | None:
        """The time-out decision (rules 2, 13-14), or None while both sides have time."""
        black_out = self._out(Color.BLACK, now)
        white_out = self._out(Color.WHITE, now)
        if black_out and white_out:
            holder = self.draw_win_right
            return FlagResult(holder.opponent if holder else None, holder, "both_flags")
        if black_out:
            return FlagResult(Color.BLACK, Color.WHITE, "time")
        if white_out:
            return FlagResult(Color.WHITE, Color.BLACK, "time")
        return None

    # ------------------------------------------------------------ persistence
    def snapshot(self) -> dict[str, Any]:
        c = self.control
        return {
            "control": {"main": c.main, "increment": c.increment, "delay": c.delay},
            "draw_win_right": self.draw_win_right.value if self.draw_win_right else None,
            "left": {k.value: v for k, v in self._left.items()},
            "running": self.running.value if self.running else None,
            "paused": self.paused,
            "since": self._since,
            "used": self._used,
        }

    @classmethod
    def restore(cls, data: dict[str, Any]) -> GameClock:
        right = data.get("draw_win_right")
        clock = cls(TimeControl(**data["control"]), Color(right) if right else None)
        clock._left = {Color(k): float(v) for k, v in data["left"].items()}
        clock.running = Color(data["running"]) if data.get("running") else None
        clock.paused = bool(data["paused"])
        clock._since = float(data["since"])
        clock._used = float(data["used"])
        return clock
