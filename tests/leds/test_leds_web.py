"""The web page's LEDs: the plan kept for the page to draw, and a change announced once."""

from __future__ import annotations

import asyncio

from controller.arbiter import Overlay
from controller.leds import PENDING, WebLeds, plan_overlay


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
