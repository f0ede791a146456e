"""Time as engines know it: the game's clocks, and the share of them one move may use.

Pure. The client writes the clocks into every request (NBoard's ``TI[]`` and the
per-move times of ``set game``; GTP's ``time_settings`` and ``time_left``), Kaeshi's
own engine reads them back, and both budget a move with :func:`move_budget`, so the
client knows how long the answer may take without guessing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from controller.squares import Color

#: Own moves still to come, at least, when sharing out the clock: the last moves
#: are quick (few choices, solved), so the share is a little generous.
MIN_MOVES_LEFT = 4


class TimeFormatError(ValueError):
    """A clock value that is not a time (the message quotes it)."""


@dataclass(frozen=True)
class Clock:
    """The game's clocks when the engine is asked: each player's main time and
    increment, and the seconds each has left now."""

    main: float
    increment: float
    black: float
    white: float

    def __post_init__(self) -> None:
        for name in ("main", "increment", "black", "white"):
            value = getattr(self, name)
            if not math.isfinite(value) or not 0 <= value <= 360_000:
                raise TimeFormatError(f"clock {name} must be 0 to 100 hours, not {value!r}")

    def left(self, color: Color) -> float:
        return self.black if color is Color.BLACK else self.white


def move_budget(seconds: float, left: float | None, increment: float, empties: int) -> float:
    """Seconds for one move: the level's ``seconds``, or less when the clock is short —
    what is left shared over the mover's moves still to come, plus most of the
    increment, never more than half of what is left."""
    if left is None:
        return seconds
    moves = max(MIN_MOVES_LEFT, (empties + 1) // 2)
    share = left / moves + 0.8 * increment
    return max(0.0, min(seconds, share, 0.5 * left + 0.8 * increment))


# ---------------------------------------------------------------- GGF clocks
def ggf_time(seconds: float) -> str:
    """Seconds as a GGF clock value: ``m:ss`` (``h:mm:ss`` from an hour)."""
    total = max(0, round(seconds))
    h, rest = divmod(total, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


def ggf_time_control(main: float, increment: float) -> str:
    """GGF's ``TI`` value: main time, then ``/increment/`` when there is one."""
    return ggf_time(main) + (f"/{ggf_time(increment)}/" if increment else "")


_CLOCK = re.compile(r"^\s*(?:(\d{1,3}):)?(?:(\d{1,5}):)?(\d{1,6}(?:\.\d+)?)\s*$")


def parse_ggf_time(text: str) -> float:
    """``15:00``, ``1:00:00``, ``90`` (seconds) -> seconds; GGF's letter options
    (``N``, ``L``) are ignored."""
    t = re.sub(r"[A-Za-z]", "", text)
    m = _CLOCK.match(t)
    if m is None:
        raise TimeFormatError(f"not a clock time: {text[:30]!r}")
    a, b, c = m.groups()
    parts = [float(x) for x in (a, b) if x is not None] + [float(c)]
    seconds = 0.0
    for x in parts:
        seconds = seconds * 60 + x
    return seconds


def parse_ggf_time_control(text: str) -> tuple[float, float]:
    """``TI`` -> (main, increment) seconds; ``15:00//2:00`` has no increment."""
    fields = text.split("/")
    main = parse_ggf_time(fields[0]) if fields[0].strip() else 0.0
    inc = parse_ggf_time(fields[1]) if len(fields) > 1 and fields[1].strip() else 0.0
    return main, inc
