"""A WS2812 strip driven straight from the Pi's SPI MOSI (for camera setups).

At 2.4 MHz each WS2812 bit becomes three SPI bits — ``100`` for 0, ``110`` for 1 —
which gives the 0.42 us / 0.83 us high times the LEDs expect within tolerance, with
no timing-critical code on the Pi. Colours go green, red, blue, most significant bit
first; 90 zero bytes (300 us low) latch the frame, enough for the newer parts that
need 280 us. The board runs no firmware here, so blink patterns run in software.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence

from controller.boardsize import COLUMN_LETTERS as COLUMNS
from controller.boardsize import STANDARD
from controller.leds.plan import LedCell, Rgb, pattern_level

#: The board the strip is laid under: one LED per square of an 8x8 board.
STRIP_SIZE = STANDARD
RESET_BYTES = 90
MAX_BRIGHTNESS = 0.25
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


#: How a strip may be wired through the squares (``leds.order``): ``rows`` runs a1..h1,
#: a2..h2, ...; ``serpentine`` snakes back on every second row, a1..h1, h2..a2, a3..h3,
#: ... (the shortest wiring).
STRIP_ORDERS: dict[str, str] = {
    "rows": "a1…h1, then a2…h2, every row from its a-file end",
    "serpentine": "a1…h1, then h2…a2: back along every second row, the shorter wiring",
}


def chain_order(layout: str = "rows", size: int = STRIP_SIZE) -> list[str]:
    """Squares in the order the strip runs (:data:`STRIP_ORDERS`)."""
    if layout not in STRIP_ORDERS:
        raise ValueError(f"unknown LED layout {layout!r} ({' or '.join(STRIP_ORDERS)})")
    order = []
    for row in range(size):
        cols = list(COLUMNS[:size])
        if layout == "serpentine" and row % 2:
            cols.reverse()
        order += [f"{c}{row + 1}" for c in cols]
    return order


class Ws2812SpiLeds:
    """Shows plans on a strip; :meth:`run` animates blinking squares (a small task)."""

    def __init__(
        self,
        spi_writer: Callable[[bytes], None],
        order: Sequence[str] | None = None,
        brightness: float = MAX_BRIGHTNESS,
        fps: float = 25.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._write = spi_writer
        self.order = list(order) if order is not None else chain_order()
        self._index = {sq: i for i, sq in enumerate(self.order)}
        self.brightness = min(max(brightness, 0.0), MAX_BRIGHTNESS)
        self.fps = fps
        self._clock = clock
        self._plan: dict[str, LedCell] = {}
        self._last: bytes | None = None
        self._changed = asyncio.Event()

    def frame(self, t: float) -> list[Rgb]:
        """The colours of every LED at time ``t``; pure."""
        out: list[Rgb] = [(0, 0, 0)] * len(self.order)
        for sq, cell in self._plan.items():
            i = self._index.get(sq)
            if i is None:
                continue
            k = self.brightness * pattern_level(cell.pattern, t)
            out[i] = (round(cell.rgb[0] * k), round(cell.rgb[1] * k), round(cell.rgb[2] * k))
        return out

    def render(self, t: float | None = None) -> None:
        """Write the frame for ``t`` (now by default) if it differs from the last one."""
        data = encode_spi(self.frame(self._clock() if t is None else t))
        if data != self._last:
            self._write(data)
            self._last = data

    async def show(self, plan: Mapping[str, LedCell]) -> None:
        self._plan = dict(plan)
        self.render()
        self._changed.set()

    def animated(self) -> bool:
        return any(int(c.pattern) != 0 for c in self._plan.values())

    async def run(self) -> None:
        """Redraw at ``fps`` while something blinks; sleep until the plan changes otherwise."""
        while True:
            if self.animated():
                self.render()
                try:
                    await asyncio.wait_for(self._changed.wait(), 1.0 / self.fps)
                except TimeoutError:
                    pass
            else:
                await self._changed.wait()
            self._changed.clear()

    def off(self) -> None:
        """Dark strip (on shutdown)."""
        self._plan = {}
        self.render()
