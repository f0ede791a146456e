"""The browser source (``source``): what the pages tell the table of their devices, and
presses from the page and the GPIO clock taken by one rule."""

from __future__ import annotations

from controller.browser.source import BrowserSource
from controller.browser.wire import Health, Press
from controller.service.sources import Notice, Reading
from controller.squares import Color


class Clock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_a_hidden_page_and_a_low_battery_are_said_once():
    source = BrowserSource(10, monotonic=Clock())
    session = source.connect("camera")
    source.page_health(session, Health(True, 0.5, False))
    source.page_health(session, Health(False, 0.5, False))
    source.page_health(session, Health(False, 0.1, False))
    source.page_health(session, Health(False, 0.09, False))
    source.page_health(session, Health(False, 0.08, True))
    notes = [i.detail for i in source._out if isinstance(i, Notice)]
    assert notes == ["camera page: the page is hidden (backgrounded or screen locked)",
                     "camera page: battery low (10 %): plug the device in"]
    assert source.devices()["camera"]["visible"] is False


def test_a_page_press_and_a_gpio_press_go_through_one_order():
    clock = Clock()
    source = BrowserSource(10, monotonic=clock, network=0.3, sync_allowance=0.1)
    tablet = source.connect("clock")
    for n in range(3):  # the tablet's clock is 5 s ahead, the round trip 20 ms
        tablet.reader.pings[n] = clock.t
        tablet.sync.add(clock.t, clock.t + 0.02, (clock.t + 0.01 + 5.0) * 1000)
    source.page_press(tablet, Press(Color.BLACK, (99.5 + 5.0) * 1000, 1))  # arrives late
    source.press(Color.WHITE, 99.8)  # a GPIO edge, stamped on the service's clock
    clock.t = 100.5
    released = source.order.release(clock.t)
    assert [(round(at, 3), r.press) for at, r in released] == [(99.5, Color.BLACK),
                                                               (99.8, Color.WHITE)]
    assert all(isinstance(r, Reading) for _, r in released)
