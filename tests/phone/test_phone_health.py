"""What the pages tell the table of their devices, and presses from the page and the GPIO
clock taken by one rule."""

from __future__ import annotations

import numpy as np

from controller.browser.health import look_at
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


def test_the_camera_page_is_told_what_to_fix():
    class Watcher:
        board_seen = False
        last_line = "?" * 64

        class stats:  # noqa: N801 - the watcher's attribute
            messages = ["t=1.00: the board or the camera moved; the grid was fitted again"]

        class reader:  # noqa: N801
            homography = np.array([[60.0, 0, -100], [0, 20, 20], [0, 0, 1]])
            n = 8

    dark = np.full((240, 320, 3), 20, np.uint8)
    look = look_at(dark, Watcher(), None)
    fixes = " / ".join(look.advice.fix)
    assert "too dark" in fixes and "cut off" in fixes and "oblique" in fixes
    assert "board not found" in fixes
    assert look.advice.hand and look.advice.moved
    bright = look_at(np.full((240, 320, 3), 120, np.uint8), Watcher(), look)
    assert bright.exposure_jump and not look_at(dark, Watcher(), None).exposure_jump


def test_a_blurred_frame_is_told_as_focus_hunting():
    import cv2

    class Watcher:
        board_seen = True
        last_line = "-" * 64

        class stats:  # noqa: N801
            messages: list[str] = []

        class reader:  # noqa: N801
            homography = np.array([[30.0, 0, 40], [0, 25, 20], [0, 0, 1]])
            n = 8

    rng = np.random.default_rng(1)
    sharp = (rng.random((240, 320, 3)) * 255).astype(np.uint8)
    look = None
    for _ in range(5):
        look = look_at(sharp, Watcher(), look)
        assert not look.blurred
    blurred = look_at(cv2.GaussianBlur(sharp, (0, 0), 4), Watcher(), look)
    assert blurred.blurred and any("out of focus" in f for f in blurred.advice.fix)
    assert not look_at(sharp, Watcher(), blurred).blurred


def test_a_smaller_board_wholly_in_view_is_not_told_cut_off():
    """The board's corners are its own size's: a 6x6 board filling the picture is in
    view, though an 8x8 one on the same squares would run past its edge."""

    def watcher(size: int) -> object:
        class Watcher:
            board_seen = True
            last_line = "-" * (size * size)

            class stats:  # noqa: N801
                messages: list[str] = []

            class reader:  # noqa: N801
                homography = np.array([[45.0, 0, 20], [0, 35, 15], [0, 0, 1]])
                n = size

        return Watcher()

    image = np.full((240, 320, 3), 120, np.uint8)
    assert not any("cut off" in f for f in look_at(image, watcher(6), None).advice.fix)
    assert any("cut off" in f for f in look_at(image, watcher(8), None).advice.fix)
