"""What a 4-digit clock display shows for a remaining time: pure, so it is tested exhaustively.

Format (decided for readability at a glance, the way club clocks do it):

* 10 minutes and more: ``MM:SS`` (``20:00``); below: `` M:SS`` with a dark first digit.
* under 20 seconds: seconds and tenths, ``SS:t`` with the last digit dark (`` 9:4 ``
  reads "9.4 s"); the colon then stands for the decimal point and never blinks.
* at or below zero: `` 0:00`` (the flag has fallen; the buzzer says so).
* 100 minutes and more: held at ``99:59`` (no Othello time control comes near it).

Seconds are rounded *up*, so a fresh 20-minute clock shows ``20:00`` and ``0:00``
appears exactly when the time is gone. On the running side the colon blinks at 1 Hz
(lit during the first half of each displayed second); the waiting side's colon is steady.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Segment bits of the TM1637 digit registers: bit 0 = a ... bit 6 = g, bit 7 = colon/dp.
SEGMENTS: dict[str, int] = {
    "0": 0x3F,
    "1": 0x06,
    "2": 0x5B,
    "3": 0x4F,
    "4": 0x66,
    "5": 0x6D,
    "6": 0x7D,
    "7": 0x07,
    "8": 0x7F,
    "9": 0x6F,
    "-": 0x40,
    " ": 0x00,
}
COLON = 0x80
#: The colon of the common 4-digit clock modules is wired to bit 7 of the second digit.
COLON_DIGIT = 1

TENTHS_BELOW = 20.0
MAX_SECONDS = 99 * 60 + 59


@dataclass(frozen=True, slots=True)
class DisplayFrame:
    """Four characters (digits, ``-`` or blank), the colon, and a brightness 0..7."""

    text: str
    colon: bool
    brightness: int = 5

    def __post_init__(self) -> None:
        if len(self.text) != 4 or any(ch not in SEGMENTS for ch in self.text):
            raise ValueError(f"display text must be 4 of {''.join(SEGMENTS)!r}: {self.text!r}")
        if not 0 <= self.brightness <= 7:
            raise ValueError(f"brightness must be 0..7, not {self.brightness}")

    def segments(self) -> bytes:
        """The four digit-register bytes, colon included."""
        out = bytearray(SEGMENTS[ch] for ch in self.text)
        if self.colon:
            out[COLON_DIGIT] |= COLON
        return bytes(out)

    def render(self) -> str:
        """How it reads, e.g. ``"20:00"`` or ``" 9:4 "``: for logs, docs and tests."""
        sep = ":" if self.colon else " "
        return f"{self.text[:2]}{sep}{self.text[2:]}"


def format_time(seconds: float, running: bool = False, brightness: int = 5) -> DisplayFrame:
    """The frame for ``seconds`` of remaining time (see the module doc for the format)."""
    if seconds != seconds:
        raise ValueError("remaining time is not a number")
    if seconds <= 0:
        return DisplayFrame(" 000", True, brightness)
    tenths = math.ceil(seconds * 10 - 1e-9)
    if tenths < TENTHS_BELOW * 10:
        whole, tenth = divmod(tenths, 10)
        return DisplayFrame(f"{whole:>2}{tenth} ", True, brightness)
    total = min(math.ceil(seconds - 1e-9), MAX_SECONDS)
    minutes, secs = divmod(total, 60)
    colon = True
    if running and seconds < MAX_SECONDS:
        colon = seconds - math.floor(seconds) >= 0.5 or seconds == math.floor(seconds)
    return DisplayFrame(f"{minutes:>2}{secs:02d}", colon, brightness)
