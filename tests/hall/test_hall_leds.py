"""SET_LEDS payloads from the service's LED wishes."""

from __future__ import annotations

import pytest

from controller.hall import messages as m
from controller.hall.leds import MAX_BRIGHTNESS, decode_led_payload, led_payload


def test_payload_has_palette_then_one_byte_per_square():
    p = led_payload({"a1": ((255, 0, 0), "steady"), 63: ((0, 0, 255), m.LedPattern.BREATHE)})
    assert len(p) == m.SET_LEDS_LEN
    assert p[0:3] == bytes(3)  # index 0 is off
    assert p[3:6] == bytes((64, 0, 0))  # capped at a quarter
    assert p[24] == 0x01 and p[24 + 63] == 0x32
    assert all(b == 0 for b in p[25 : 24 + 63])


def test_same_colour_shares_a_palette_entry_and_patterns_differ():
    p = led_payload({"d3": ((0, 255, 0), "slow_blink"), "e6": ((0, 255, 0), 2)})
    lit = decode_led_payload(p)
    assert lit[19] == ((0, 64, 0), m.LedPattern.SLOW_BLINK)
    assert lit[44] == ((0, 64, 0), m.LedPattern.FAST_BLINK)
    assert p[24 + 19] & 0x0F == p[24 + 44] & 0x0F


def test_brightness_is_capped_even_if_asked_for_more():
    full = decode_led_payload(led_payload({"a1": ((200, 100, 40), 0)}, brightness=1.0))
    assert full[0][0] == (50, 25, 10)
    assert MAX_BRIGHTNESS == 0.25
    dim = decode_led_payload(led_payload({"a1": ((200, 100, 40), 0)}, brightness=0.1))
    assert dim[0][0] == (20, 10, 4)


def test_more_than_seven_colours_is_refused():
    wishes = {i: ((30 * i, 0, 0), 0) for i in range(1, 9)}
    with pytest.raises(ValueError, match="at most 7 distinct"):
        led_payload(wishes)


@pytest.mark.parametrize(
    ("wish", "message"),
    [
        ({"z9": ((1, 1, 1), 0)}, "z9"),
        ({64: ((1, 1, 1), 0)}, "off the board"),
        ({"a1": ((300, 0, 0), 0)}, "outside 0..255"),
        ({"a1": ((100, 1, 1), "disco")}, "unknown LED pattern"),
        ({"a1": (1, 2)}, "expected"),
    ],
)
def test_bad_wishes_name_the_problem(wish, message):
    with pytest.raises(ValueError, match=message):
        led_payload(wish)
