"""A WS2812 strip driven straight from the Pi's SPI MOSI (for camera setups).

At 2.4 MHz each WS2812 bit becomes three SPI bits — ``100`` for 0, ``110`` for 1 —
which gives the 0.42 us / 0.83 us high times the LEDs expect within tolerance, with
no timing-critical code on the Pi. Colours go green, red, blue, most significant bit
first; 90 zero bytes (300 us low) latch the frame, enough for the newer parts that
need 280 us. The board runs no firmware here, so blink patterns run in software.
"""

from __future__ import annotations

from collections.abc import Sequence

from controller.leds.plan import Rgb
from controller.leds.strip import SpiStripLeds

RESET_BYTES = 90
_ZERO, _ONE = 0b100, 0b110


def _expand(byte: int) -> bytes:
    bits = 0
    for i in range(7, -1, -1):
        bits = bits << 3 | (_ONE if byte >> i & 1 else _ZERO)
    return bits.to_bytes(3, "big")


_TABLE = [_expand(b) for b in range(256)]


def encode_spi(colours: Sequence[Rgb]) -> bytes:
    """SPI bytes for a chain of LEDs, first LED first, reset gap included."""
    out = bytearray()
    for r, g, b in colours:
        out += _TABLE[g] + _TABLE[r] + _TABLE[b]
    return bytes(out) + bytes(RESET_BYTES)


def decode_spi(data: bytes) -> list[Rgb]:
    """The colours in an SPI stream made by :func:`encode_spi`; rejects malformed bits."""
    body = data.rstrip(b"\x00")
    if len(body) % 9:
        body += bytes(9 - len(body) % 9)  # the last LED's trailing zero bits were stripped
    bits = int.from_bytes(body, "big")
    nbits = len(body) * 8
    values = []
    for i in range(nbits // 3):
        sym = bits >> (nbits - 3 * (i + 1)) & 0b111
        if sym not in (_ZERO, _ONE):
            raise ValueError(f"WS2812 bit {i}: SPI pattern {sym:03b} is neither 100 nor 110")
        values.append(1 if sym == _ONE else 0)
    out = []
    for led in range(len(values) // 24):
        word = values[led * 24 : led * 24 + 24]
        g, r, b = (int("".join(map(str, word[k : k + 8])), 2) for k in (0, 8, 16))
        out.append((r, g, b))
    return out


class Ws2812SpiLeds(SpiStripLeds):
    """A WS2812 strip on the SPI's MOSI: the shared strip, with :func:`encode_spi`."""

    encode = staticmethod(encode_spi)
