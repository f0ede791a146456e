"""LED drivers: the sensor board's SET_LEDS payload, a WS2812 strip's SPI stream, the web."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.arbiter import Overlay
from controller.hall.leds import decode_led_payload, led_payload
from controller.hall.messages import LedPattern
from controller.leds import (
    PENDING,
    WRONG,
    LedCell,
    LedDriver,
    SensorBoardLeds,
    WebLeds,
    Ws2812SpiLeds,
    chain_order,
    decode_spi,
    encode_spi,
    plan_overlay,
)
from controller.leds.apa102 import Apa102SpiLeds, decode_apa102, encode_apa102
from controller.squares import parse_square

PLAN = {
    "e5": LedCell(PENDING, LedPattern.SLOW_BLINK),
    "d4": LedCell(WRONG, LedPattern.FAST_BLINK),
    "a1": LedCell((10, 20, 30), LedPattern.STEADY),
}


class PayloadLink:
    """A hall link that builds the real SET_LEDS payload, as the board would receive it."""

    def __init__(self) -> None:
        self.payloads: list[bytes] = []

    def set_leds(self, assignments: dict) -> None:
        self.payloads.append(led_payload(assignments))


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


def spi_symbols(data: bytes) -> list[int]:
    """Independent decoder: split the SPI stream into 3-bit WS2812 symbols."""
    bits = "".join(f"{b:08b}" for b in data)
    return [int(bits[i : i + 3], 2) for i in range(0, len(bits) - len(bits) % 3, 3)]


def test_leds_ws2812_spi_bits_grb_and_reset_gap() -> None:
    data = encode_spi([(0xFF, 0x00, 0x81)])
    body, gap = data[:9], data[9:]
    assert len(gap) * 8 / 2.4e6 >= 280e-6  # latch: at least 280 us low
    assert set(gap) == {0}
    symbols = spi_symbols(body)
    assert set(symbols) <= {0b100, 0b110}
    bits = [1 if s == 0b110 else 0 for s in symbols]
    green, red, blue = bits[0:8], bits[8:16], bits[16:24]
    assert green == [0] * 8
    assert red == [1] * 8
    assert blue == [1, 0, 0, 0, 0, 0, 0, 1]  # most significant bit first


def test_leds_ws2812_high_times_are_within_spec() -> None:
    # one SPI bit at 2.4 MHz lasts 417 ns: a 0 is high for 1 bit, a 1 for 2 bits
    bit = 1 / 2.4e6
    assert 0.2e-6 <= bit <= 0.5e-6  # T0H
    assert 0.55e-6 <= 2 * bit <= 1.0e-6  # T1H
    assert 1.2e-6 <= 3 * bit <= 1.4e-6  # bit period 1.25 us +- 150 ns


def test_leds_ws2812_strip_shows_the_plan_in_chain_order() -> None:
    writes: list[bytes] = []
    order = chain_order("serpentine")
    assert order[:2] == ["a1", "b1"] and order[8:10] == ["h2", "g2"]
    strip = Ws2812SpiLeds(writes.append, order=order, brightness=0.25, clock=lambda: 0.1)
    plan = {"g2": LedCell((200, 0, 0)), "h8": LedCell((0, 0, 100))}
    asyncio.run(strip.show(plan))
    colours = decode_spi(writes[-1])
    assert len(colours) == 64
    assert colours[9] == (50, 0, 0)  # g2 is the 10th LED of a serpentine chain
    assert colours[56] == (0, 0, 25)  # h8 runs backwards too: row 8 is even-numbered
    assert sum(1 for c in colours if c != (0, 0, 0)) == 2


def test_leds_ws2812_blinks_in_software() -> None:
    writes: list[bytes] = []
    now = [0.1]
    strip = Ws2812SpiLeds(writes.append, clock=lambda: now[0])
    asyncio.run(strip.show({"c3": LedCell((255, 255, 255), LedPattern.SLOW_BLINK)}))
    on = decode_spi(writes[-1])[parse_square("c3")]
    now[0] = 0.7
    strip.render()
    off = decode_spi(writes[-1])[parse_square("c3")]
    assert on == (64, 64, 64) and off == (0, 0, 0)
    count = len(writes)
    strip.render()  # same frame: not written again
    assert len(writes) == count


def test_leds_ws2812_run_task_animates_and_stops_cleanly() -> None:
    writes: list[bytes] = []

    async def blinked() -> None:
        while len(writes) < 3 or not {(64, 0, 0), (0, 0, 0)} <= {decode_spi(w)[0] for w in writes}:
            await asyncio.sleep(0.02)

    async def go() -> None:
        strip = Ws2812SpiLeds(writes.append, fps=100)
        await strip.show({"a1": LedCell((255, 0, 0), LedPattern.FAST_BLINK)})
        task = asyncio.create_task(strip.run())
        # fast blink toggles every 125 ms; a busy host only makes that take longer
        await asyncio.wait_for(blinked(), 30)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        strip.off()

    asyncio.run(go())
    states = [decode_spi(w)[0] for w in writes]
    assert (64, 0, 0) in states and (0, 0, 0) in states
    assert len(writes) >= 3
    assert decode_spi(writes[-1]) == [(0, 0, 0)] * 64


def test_leds_ws2812_decoder_rejects_garbage() -> None:
    with pytest.raises(ValueError, match="neither 100 nor 110"):
        decode_spi(b"\xff" * 9)


def test_leds_web_keeps_plan_and_announces_changes() -> None:
    changes = []
    web = WebLeds(lambda: changes.append(1))
    plan = plan_overlay("home", Overlay(last_move="f5", pending=["e5"], wrong=[]), "playing")

    async def go() -> None:
        await web.show(plan)
        await web.show(dict(plan))

    asyncio.run(go())
    assert len(changes) == 1
    assert web.cells()["e5"] == {"rgb": list(PENDING), "pattern": "slow_blink"}
    assert web.cells()["f5"]["pattern"] == "steady"


# ------------------------------------------------------------ drivers by name
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


# ------------------------------------------------------------ APA102
BYTE = st.integers(0, 255)


@given(st.lists(st.tuples(BYTE, BYTE, BYTE), max_size=100))
def test_leds_apa102_frames_carry_any_colours(colours: list[tuple[int, int, int]]) -> None:
    data = encode_apa102(colours)
    assert data[:4] == bytes(4)
    assert all(data[4 + 4 * i] == 0xFF for i in range(len(colours)))  # 111, full global
    assert decode_apa102(data, len(colours)) == colours


@given(st.lists(st.tuples(BYTE, BYTE, BYTE), min_size=1, max_size=64), st.data())
def test_leds_apa102_decoder_refuses_a_damaged_frame(colours: list[tuple[int, int, int]],
                                                     data: st.DataObject) -> None:
    """A header bit cleared, a start bit set or a byte lost is never read as colours."""
    stream = bytearray(encode_apa102(colours))
    led = data.draw(st.integers(0, len(colours) - 1))
    damage = data.draw(st.sampled_from(["header", "start", "short"]))
    if damage == "header":
        stream[4 + 4 * led] &= ~(1 << data.draw(st.integers(5, 7)))
    elif damage == "start":
        stream[data.draw(st.integers(0, 3))] |= 1 << data.draw(st.integers(0, 7))
    else:
        del stream[4 + 4 * led]
    with pytest.raises(ValueError, match="APA102"):
        decode_apa102(bytes(stream), len(colours))


def test_leds_apa102_blinks_in_software_as_the_other_strip() -> None:
    writes: list[bytes] = []
    now = [0.1]
    strip = Apa102SpiLeds(writes.append, clock=lambda: now[0])
    asyncio.run(strip.show({"c3": LedCell((255, 255, 255), LedPattern.SLOW_BLINK)}))
    on = decode_apa102(writes[-1], 64)[parse_square("c3")]
    now[0] = 0.7
    strip.render()
    assert on == (64, 64, 64) and decode_apa102(writes[-1], 64)[parse_square("c3")] == (0, 0, 0)
    strip.off()
    assert decode_apa102(writes[-1], 64) == [(0, 0, 0)] * 64
