"""What the camera page is told (``health``): too dark, cut off, oblique, not found, a
hand, the camera moved, an exposure jump, a blurred frame."""

from __future__ import annotations

import numpy as np

from controller.browser.health import look_at


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
