"""LEDs behind the sensor board: the plan becomes one SET_LEDS command of its protocol.

The board holds the 8-colour palette and runs the blink patterns itself, so the host
only sends when the plan changes.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from controller.leds.plan import LedCell, Rgb


@runtime_checkable
class LedLink(Protocol):
    """The hall link's LED entry point (``controller.hall``): square -> (rgb, pattern)."""

    def set_leds(self, assignments: Mapping[str, tuple[Rgb, int]]) -> Any: ...


class SensorBoardLeds:
    def __init__(self, link: LedLink) -> None:
        self._link = link
        self._sent: dict[str, LedCell] | None = None

    async def show(self, plan: Mapping[str, LedCell]) -> None:
        """Send ``plan`` unless it is what the board already shows."""
        wanted = dict(plan)
        if wanted == self._sent:
            return
        result = self._link.set_leds({sq: (c.rgb, int(c.pattern)) for sq, c in wanted.items()})
        if inspect.isawaitable(result):
            await result
        self._sent = wanted

    def forget(self) -> None:
        """The board was reset or reconnected: the next plan is sent even if unchanged."""
        self._sent = None
