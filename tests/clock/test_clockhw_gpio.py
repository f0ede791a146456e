"""The GPIO edge: a line another device holds is refused naming the line and what it was
for, and the lines claimed before it are given back."""

from __future__ import annotations

import pytest
from clockhw_support import PINS, Rig

from controller.clockhw.gpio import GpioError
from controller.clockhw.hardware import ClockHardware
from controller.squares import Color


def test_clockhw_pin_in_use_is_named(rig: Rig) -> None:
    with pytest.raises(GpioError, match="GPIO 5 for the black display CLK"):
        ClockHardware(PINS, lambda c, t: None, lambda t: None, pin_factory=rig.factory)
    # the failed attempt released what it had claimed: the first clock still works
    rig.press(PINS.black_button, 2.0)
    assert rig.presses == [(Color.BLACK, 2.0)]
