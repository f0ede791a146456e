"""An LED strip laid under the board, one LED per square, fed a frame at a time over SPI.

What every strip shares lives here: the order the strip runs through the squares
(``leds.order``), the brightness cap and the software blinking (the Pi runs no
firmware for a strip). How a frame becomes bytes on the wire is the one thing a strip
kind adds: :class:`SpiStripLeds` takes that encoder, so a new strip is an encoder and
a line in the driver registry.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence

from controller.boardsize import COLUMN_LETTERS as COLUMNS
from controller.boardsize import STANDARD
from controller.leds.plan import LedCell, Rgb, pattern_level

#: The board a strip is laid under: one LED per square of an 8x8 board.
STRIP_SIZE = STANDARD
#: A quarter of full white: bright enough under a disc, not dazzling on a table.
MAX_BRIGHTNESS = 0.25

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


class SpiStripLeds(ABC):
    """Shows plans on a strip; :meth:`run` animates blinking squares (a small task).
    A strip kind is a subclass that names its :meth:`encode`."""

    @staticmethod
    @abstractmethod
    def encode(colours: Sequence[Rgb]) -> bytes:
        """The bytes on the wire for one frame, first LED first."""

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
        data = self.encode(self.frame(self._clock() if t is None else t))
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
