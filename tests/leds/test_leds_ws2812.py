"""A WS2812 strip on SPI: its bit stream read back symbol by symbol, within the chip's
timing, shown in chain order and blinked in software."""

from __future__ import annotations

import asyncio

import pytest

from controller.hall.messages import LedPattern
from controller.leds import LedCell, Ws2812SpiLeds, chain_order, decode_spi, encode_spi
from controller.squares import parse_square


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
