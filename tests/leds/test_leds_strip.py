"""What every strip under the board shares (``SpiStripLeds``): each strip, built by name
from the configuration, lights the LED its wiring order puts a square on, capped in
brightness. A new strip joins ``STRIPS`` with its own decoder."""

from __future__ import annotations

import asyncio

import pytest

from controller.leds import LedCell, LedDriver, decode_spi
from controller.leds.apa102 import decode_apa102


def _strip(name: str, order: str) -> tuple[LedDriver, list[bytes]]:
    from controller.leds.drivers import LedSetup, make_leds

    writes: list[bytes] = []
    driver = make_leds(name, LedSetup(None, lambda: None, order,
                                      open_spi=lambda: writes.append))
    assert driver is not None
    return driver, writes


def _decode_apa102(data: bytes) -> list[tuple[int, int, int]]:
    return decode_apa102(data, 64)


STRIPS = [("ws2812", decode_spi), ("apa102", _decode_apa102)]


@pytest.mark.parametrize(("name", "decode"), STRIPS)
@pytest.mark.parametrize(("order", "led"), [("rows", 15), ("serpentine", 8)])
def test_leds_strip_wiring_order_is_the_configured_one(name, decode, order: str,
                                                       led: int) -> None:
    """h2 is the 16th LED of a strip wired row by row, the 9th of a serpentine one."""
    from controller.service.config import parse_config

    cfg = parse_config(f'[leds]\ndriver = "{name}"\norder = "{order}"\n')
    driver, writes = _strip(cfg["leds.driver"], cfg["leds.order"])
    asyncio.run(driver.show({"h2": LedCell((0, 200, 0))}))
    colours = decode(writes[-1])
    assert [i for i, c in enumerate(colours) if c != (0, 0, 0)] == [led]
    assert colours[led] == (0, 50, 0)  # capped at a quarter of full
