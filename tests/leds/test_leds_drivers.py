"""The LED drivers' registry: each driver chosen by the name the configuration gives,
its option's choices and help made from the registry, a wrong name or a board driver
without a board refused saying so. Each driver's own output is tested in its own file."""

from __future__ import annotations

import pytest
from leds_support import PayloadLink

from controller.leds import SensorBoardLeds, WebLeds


def test_leds_drivers_are_chosen_and_documented_by_name() -> None:
    from controller.errors import KaeshiError
    from controller.leds.drivers import LED_DRIVERS, LedSetup, make_leds
    from controller.service.config import BY_NAME

    option = BY_NAME["leds.driver"]
    assert option.choices == tuple(LED_DRIVERS)
    assert all(f"`{name}` ({kind.help})" in option.doc for name, kind in LED_DRIVERS.items())
    assert BY_NAME["leds.order"].choices == ("rows", "serpentine")
    notified: list[int] = []
    setup = LedSetup(PayloadLink(), lambda: notified.append(1))
    assert make_leds("none", setup) is None
    assert isinstance(make_leds("web", setup), WebLeds)
    assert isinstance(make_leds("board", setup), SensorBoardLeds)
    with pytest.raises(KaeshiError, match='leds.driver = "board" needs source.kind = "hall"'):
        make_leds("board", LedSetup(object(), lambda: None))
    with pytest.raises(KaeshiError, match="unknown leds.driver 'neon'"):
        make_leds("neon", setup)
