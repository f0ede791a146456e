"""An APA102 or SK9822 strip: its frames carry any colours and a damaged one is refused,
read back by the test's own decoder; it blinks as the other strip does."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.hall.messages import LedPattern
from controller.leds import LedCell
from controller.leds.apa102 import Apa102SpiLeds, decode_apa102, encode_apa102
from controller.squares import parse_square

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
