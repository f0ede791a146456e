"""An APA102 (DotStar) or SK9822 strip on the Pi's SPI: data on MOSI, clock on SCLK.

A clocked strip has no bit timing to meet, so it runs from any SPI rate and keeps its
colours steady when the Pi is busy, which a WS2812 fed at 2.4 MHz does not promise;
it costs one more wire. Each frame is a start frame of 32 zero bits, then per LED
``111`` and a 5-bit global brightness followed by blue, green and red, then an end
frame: 32 zero bits (the SK9822 latches on them) and half a clock per LED more, so the
data reaches the strip's last LED.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.leds.plan import Rgb
from controller.leds.strip import SpiStripLeds

#: The SPI clock: well inside what the strip takes, slow enough for a long wire.
APA102_SPI_HZ = 4_000_000
_LED_HEADER = 0b1110_0000
#: Full global brightness: the brightness cap is applied to the colours themselves.
_GLOBAL = 0b1_1111


def _end_frame(count: int) -> bytes:
    return bytes(4 + (count + 15) // 16)


def encode_apa102(colours: Sequence[Rgb]) -> bytes:
    """SPI bytes for a chain of LEDs, first LED first, start and end frames included."""
    out = bytearray(4)
    for r, g, b in colours:
        out += bytes((_LED_HEADER | _GLOBAL, b, g, r))
    return bytes(out) + _end_frame(len(colours))


def decode_apa102(data: bytes, count: int) -> list[Rgb]:
    """The colours of ``count`` LEDs in a stream made by :func:`encode_apa102`; refuses a
    stream whose frames are not where they belong."""
    if data[:4] != bytes(4):
        raise ValueError("APA102 stream: no start frame of 32 zero bits")
    end = 4 + 4 * count
    if data[end:] != _end_frame(count):
        raise ValueError(f"APA102 stream: {len(data) - end} bytes after {count} LEDs are "
                         "not the end frame")
    out = []
    for i in range(4, end, 4):
        header, b, g, r = data[i : i + 4]
        if header >> 5 != 0b111:
            raise ValueError(f"APA102 LED {(i - 4) // 4}: header {header:08b} lacks its "
                             "three 1 bits")
        out.append((r, g, b))
    return out


class Apa102SpiLeds(SpiStripLeds):
    """An APA102 strip: the shared strip, with :func:`encode_apa102`."""

    encode = staticmethod(encode_apa102)
