"""The sensor board's LEDs: the SET_LEDS payload it is sent, read back by the hall's own
decoder, and only when the plan changed."""

from __future__ import annotations

import asyncio

from leds_support import PayloadLink

from controller.hall.leds import decode_led_payload
from controller.hall.messages import LedPattern
from controller.leds import PENDING, WRONG, LedCell, SensorBoardLeds
from controller.squares import parse_square

PLAN = {
    "e5": LedCell(PENDING, LedPattern.SLOW_BLINK),
    "d4": LedCell(WRONG, LedPattern.FAST_BLINK),
    "a1": LedCell((10, 20, 30), LedPattern.STEADY),
}


def test_leds_sensor_board_gets_palette_and_patterns() -> None:
    link = PayloadLink()
    asyncio.run(SensorBoardLeds(link).show(PLAN))
    (payload,) = link.payloads
    assert len(payload) == 88
    lit = decode_led_payload(payload)
    assert set(lit) == {parse_square("e5"), parse_square("d4"), parse_square("a1")}
    assert lit[parse_square("e5")][1] is LedPattern.SLOW_BLINK
    assert lit[parse_square("d4")][1] is LedPattern.FAST_BLINK
    assert lit[parse_square("a1")][1] is LedPattern.STEADY
    r, g, b = lit[parse_square("d4")][0]
    assert r > 0 and g == 0 and b == 0  # red, dimmed by the board's brightness cap
    assert payload[0:3] == bytes(3)  # palette entry 0 is "off"
    assert payload[24 + parse_square("h8")] == 0


def test_leds_sensor_board_sends_only_changes() -> None:
    link = PayloadLink()
    leds = SensorBoardLeds(link)

    async def go() -> None:
        await leds.show(PLAN)
        await leds.show(dict(PLAN))
        await leds.show({})
        await leds.show({})
        leds.forget()  # e.g. the board restarted
        await leds.show({})

    asyncio.run(go())
    assert len(link.payloads) == 3
    assert decode_led_payload(link.payloads[1]) == {}


def test_leds_sensor_board_accepts_an_async_link() -> None:
    sent = []

    class AsyncLink:
        async def set_leds(self, assignments: dict) -> None:
            await asyncio.sleep(0)
            sent.append(assignments)

    asyncio.run(SensorBoardLeds(AsyncLink()).show(PLAN))
    assert sent == [{sq: (c.rgb, int(c.pattern)) for sq, c in PLAN.items()}]
