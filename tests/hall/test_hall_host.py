"""The asyncio face of the driver, as the service uses it."""

from __future__ import annotations

from hall_fake_device import START, FakeDevice, run_link_scenario, set_leds_and_close

from controller.hall import messages as m
from controller.hall.host import open_link
from controller.hall.link import LinkState, LinkStatus
from controller.observation import Observation


def test_service_api_open_iterate_set_leds_close():
    async def scenario(dev: FakeDevice) -> list[object]:
        link = open_link(dev.port, m.BAUD)
        seen: list[object] = []
        async for item in link.items():
            seen.append(item)
            if isinstance(item, Observation):
                await set_leds_and_close(link, dev, {"d3": ((255, 255, 255), 1)})
        return seen

    seen, leds = run_link_scenario(scenario)
    assert isinstance(seen[0], LinkStatus) and seen[0].state is LinkState.CONNECTED
    assert seen[0].up
    assert any(isinstance(i, Observation) and i.board == START for i in seen)
    assert len(leds) == 1 and leds[0][24 + 19] == 0x11
