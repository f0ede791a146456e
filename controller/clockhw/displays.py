"""The clock displays by name: ``clock.display`` in the configuration picks one.

Each entry says in a line what it is (the configuration's documentation comes from
these lines) and builds one player's display on the two GPIO lines ``[gpio]`` gives
that player (``black_clk``/``black_dio``, ``white_clk``/``white_dio``). Adding a
display is one entry here and its module beside this one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol


class ClockDisplay(Protocol):
    """One player's display: four digit-register bytes (segments as in
    ``controller.clockhw.display``, colon in bit 7 of the second) at a brightness."""

    def write(self, digits: bytes, brightness: int) -> None: ...

    def blank(self) -> None: ...


@dataclass(frozen=True, slots=True)
class DisplayLines:
    """What a display is built on: its name for messages, its two lines, and the
    hardware object's ``claim`` (which releases every device it was given on close)."""

    what: str
    clk: int | str
    dio: int | str
    pin_factory: object | None
    half_period: float
    claim: Callable[[Any], Any]


@dataclass(frozen=True, slots=True)
class DisplayKind:
    """One ``clock.display`` value: its line of documentation and how it is built."""

    help: str
    make: Callable[[DisplayLines], ClockDisplay]


class NoDisplay:
    """Buttons without displays (the times are on the web page): draws nothing and
    claims no line."""

    def write(self, digits: bytes, brightness: int) -> None:
        return None

    def blank(self) -> None:
        return None


def _tm1637(lines: DisplayLines) -> ClockDisplay:
    from controller.clockhw import gpio
    from controller.clockhw.tm1637 import Tm1637

    return Tm1637(lines.claim(gpio.output(f"{lines.what} CLK", lines.clk, lines.pin_factory)),
                  lines.claim(gpio.output(f"{lines.what} DIO", lines.dio, lines.pin_factory)),
                  lines.half_period)


def _none(lines: DisplayLines) -> ClockDisplay:
    return NoDisplay()


CLOCK_DISPLAYS: dict[str, DisplayKind] = {
    "tm1637": DisplayKind("a 4-digit TM1637 module per player, on its CLK and DIO lines",
                          _tm1637),
    "none": DisplayKind("no displays: the buttons only, the times on the web page", _none),
}


def documentation() -> str:
    """The choices in words, for the option's documentation."""
    return ", ".join(f"`{name}` ({kind.help})" for name, kind in CLOCK_DISPLAYS.items())
