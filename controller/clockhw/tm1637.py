"""The TM1637 two-wire protocol, bit-banged on two output lines.

The TM1637 is not I2C: bytes go least-significant bit first, framed by a start
condition (DIO falls while CLK is high) and a stop condition (DIO rises while CLK
is high); the chip acknowledges each byte on a ninth clock. We drive DIO low during
that ninth clock rather than reading the acknowledge, so the line is never fought
over (the chip also pulls low) and a plain output pin is enough; a missing display
then simply stays dark instead of stalling the service.

One frame writes all four digits: data command 0x40 (write, auto-increment),
address command 0xC0 followed by the four digit bytes, display control 0x88 | brightness.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol

DATA_AUTO_INCREMENT = 0x40
ADDRESS_FIRST_DIGIT = 0xC0
DISPLAY_ON = 0x88
DISPLAY_OFF = 0x80


class OutputLine(Protocol):
    """What a pin must offer (gpiozero's DigitalOutputDevice does)."""

    def on(self) -> None: ...

    def off(self) -> None: ...


def _no_wait() -> None:
    return None


def busy_wait(seconds: float) -> Callable[[], None]:
    """A delay precise at microseconds, where ``time.sleep`` oversleeps by 50-100 us."""
    if seconds <= 0:
        return _no_wait

    def wait() -> None:
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass

    return wait


class Tm1637:
    """One display on its own CLK and DIO lines.

    ``half_period`` is the wait after each line change; the chip accepts clocks up to
    about 250 kHz with the usual 10 kOhm pull-ups and filter capacitors, so 5 us is
    safe and one frame takes about 3 ms.
    """

    def __init__(self, clk: OutputLine, dio: OutputLine, half_period: float = 5e-6) -> None:
        self._clk = clk
        self._dio = dio
        self._wait = busy_wait(half_period)
        self._clk.on()
        self._dio.on()

    def _set(self, line: OutputLine, high: bool) -> None:
        line.on() if high else line.off()
        self._wait()

    def _start(self) -> None:
        self._set(self._clk, True)
        self._set(self._dio, True)
        self._set(self._dio, False)

    def _stop(self) -> None:
        self._set(self._clk, False)
        self._set(self._dio, False)
        self._set(self._clk, True)
        self._set(self._dio, True)

    def _byte(self, value: int) -> None:
        for bit in range(8):
            self._set(self._clk, False)
            self._set(self._dio, bool(value >> bit & 1))
            self._set(self._clk, True)
        # ninth clock: the acknowledge slot
        self._set(self._clk, False)
        self._set(self._dio, False)
        self._set(self._clk, True)
        self._set(self._clk, False)

    def _command(self, *data: int) -> None:
        self._start()
        for value in data:
            self._byte(value)
        self._stop()

    def write(self, digits: bytes, brightness: int) -> None:
        """Show four digit-register bytes at ``brightness`` 0..7."""
        if len(digits) != 4:
            raise ValueError(f"a TM1637 frame has 4 digits, not {len(digits)}")
        if not 0 <= brightness <= 7:
            raise ValueError(f"brightness must be 0..7, not {brightness}")
        self._command(DATA_AUTO_INCREMENT)
        self._command(ADDRESS_FIRST_DIGIT, *digits)
        self._command(DISPLAY_ON | brightness)

    def blank(self) -> None:
        """Switch the display off (used when the service stops)."""
        self._command(DISPLAY_OFF)
