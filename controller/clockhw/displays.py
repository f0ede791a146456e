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


def _claim_two(lines: DisplayLines, clk_name: str, dio_name: str) -> tuple[Any, Any]:
    """The display's two lines as outputs, claimed, named as its data sheet names them."""
    from controller.clockhw import gpio

    return (lines.claim(gpio.output(f"{lines.what} {clk_name}", lines.clk, lines.pin_factory)),
            lines.claim(gpio.output(f"{lines.what} {dio_name}", lines.dio, lines.pin_factory)))


def _tm1637(lines: DisplayLines) -> ClockDisplay:
    from controller.clockhw.tm1637 import Tm1637

    return Tm1637(*_claim_two(lines, "CLK", "DIO"), lines.half_period)


def _ht16k33(lines: DisplayLines) -> ClockDisplay:
    from controller.clockhw.ht16k33 import Ht16k33

    return Ht16k33(*_claim_two(lines, "SCL", "SDA"), lines.half_period)


def _none(lines: DisplayLines) -> ClockDisplay:
    return NoDisplay()


CLOCK_DISPLAYS: dict[str, DisplayKind] = {
    "tm1637": DisplayKind("a 4-digit TM1637 module per player, on its CLK and DIO lines",
                          _tm1637),
    "ht16k33": DisplayKind("a 4-digit HT16K33 backpack per player, its SCL on the CLK line "
                           "and SDA on the DIO line", _ht16k33),
    "none": DisplayKind("no displays: the buttons only, the times on the web page", _none),
}


def documentation() -> str:
    """The choices in words, for the option's documentation."""
    return ", ".join(f"`{name}` ({kind.help})" for name, kind in CLOCK_DISPLAYS.items())
