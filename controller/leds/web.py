"""The overlay as the web page draws it: the driver just keeps the latest plan."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from controller.leds.plan import LedCell


class WebLeds:
    def __init__(self, on_change: Callable[[], None] | None = None) -> None:
        self._plan: dict[str, LedCell] = {}
        self._on_change = on_change

    async def show(self, plan: Mapping[str, LedCell]) -> None:
        new = dict(plan)
        if new != self._plan:
            self._plan = new
            if self._on_change is not None:
                self._on_change()

    @property
    def plan(self) -> dict[str, LedCell]:
        return dict(self._plan)

    def cells(self) -> dict[str, dict[str, object]]:
        """JSON-ready ``{square: {"rgb": [r, g, b], "pattern": "slow_blink"}}``."""
        return {sq: cell.to_json() for sq, cell in self._plan.items()}
