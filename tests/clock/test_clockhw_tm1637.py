"""The TM1637 modules: the times drawn digit by digit, colon and brightness as the
paused and running clock asks, read back from the recorded bus by the test's own
reading of the protocol (``clockhw_support.decode_bus``)."""

from __future__ import annotations

from clockhw_support import PINS, Rig

from controller.squares import Color


def test_clockhw_displays_show_times_digit_by_digit(rig: Rig) -> None:
    rig.hw.show(1197.5, 1200.0, Color.WHITE, paused=False)
    assert rig.display(Color.BLACK) == ("1958", True, PINS.brightness)
    assert rig.display(Color.WHITE) == ("2000", True, PINS.brightness)
    rig.hw.show(1197.5, 1199.2, Color.WHITE, paused=False)  # running colon off
    assert rig.display(Color.WHITE) == ("2000", False, PINS.brightness)
    rig.hw.show(9.4, 75.0, None, paused=True)
    assert rig.display(Color.BLACK) == (" 94 ", True, PINS.dim_brightness)
    assert rig.display(Color.WHITE) == (" 115", True, PINS.dim_brightness)
