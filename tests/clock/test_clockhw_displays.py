"""The clock displays' registry: the kind the configuration names is the one built, its
option documented from the registry, and ``none`` keeps the buttons while leaving the
display lines free for another device."""

from __future__ import annotations

import pytest
from clockhw_support import BUS_LOG, PINS, Rig, gpio

from controller.clockhw.hardware import ClockHardware
from controller.squares import Color


def test_clockhw_displays_come_from_the_registry_the_configuration_names() -> None:
    from controller.clockhw.displays import CLOCK_DISPLAYS
    from controller.service.config import BY_NAME, parse_config

    option = BY_NAME["clock.display"]
    assert option.choices == tuple(CLOCK_DISPLAYS) and option.default == "tm1637"
    assert all(f"`{name}` ({kind.help})" in option.doc for name, kind in CLOCK_DISPLAYS.items())
    assert parse_config('[clock]\ndisplay = "none"\n')["clock.display"] == "none"
    with pytest.raises(ValueError, match="unknown clock display 'lcd'"):
        ClockHardware(PINS, lambda c, t: None, lambda t: None, display="lcd")


def test_clockhw_without_displays_keeps_the_buttons_and_leaves_the_display_lines_free(
        rig: Rig) -> None:
    rig.hw.close()
    BUS_LOG.clear()
    presses: list[tuple[Color, float]] = []
    hw = ClockHardware(PINS, lambda c, t: presses.append((c, t)), lambda t: None,
                       pin_factory=rig.factory, time_source=lambda: rig.now, display="none")
    try:
        hw.show(60.0, 50.0, Color.BLACK, paused=False)
        displays = {gpio(p) for p in (PINS.black_clk, PINS.black_dio, PINS.white_clk,
                                      PINS.white_dio)}
        assert not [name for name, _ in BUS_LOG if name in displays]  # nothing drawn
        rig.press(PINS.white_button, 3.0)
        assert presses == [(Color.WHITE, 3.0)]
        # the display lines were never claimed: another device may take them
        rig.factory.pin(PINS.black_clk)  # exists and is free
        from gpiozero import DigitalOutputDevice
        DigitalOutputDevice(PINS.black_clk, pin_factory=rig.factory).close()
    finally:
        hw.close()
