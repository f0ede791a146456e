"""The clock's GPIO lines: the defaults are the wiring of hardware/clock.md, and a
line given twice or a setting out of range is refused naming it."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

import pytest

from controller.clockhw.pins import ClockPins

WIRING = Path(__file__).resolve().parents[2] / "hardware" / "clock.md"
#: What the wiring table (hardware/clock.md) says each default line goes to.
ROLES = {"black_button": "black's button", "white_button": "white's button",
         "pause_button": "pause button", "black_clk": "black's display CLK",
         "black_dio": "black's display DIO", "white_clk": "white's display CLK",
         "white_dio": "white's display DIO", "buzzer": "the buzzer"}
LINES = tuple(ROLES)


def test_the_default_lines_are_all_different():
    pins = ClockPins()
    used = [getattr(pins, name) for name in LINES]
    assert len(set(used)) == len(used)


def test_every_default_line_is_wired_as_the_wiring_table_says():
    text = WIRING.read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| GPIO(\d+) \| \d+ \| ([^|]+)\|", text, re.M))
    pins = ClockPins()
    for name, role in ROLES.items():
        assert role in table[str(getattr(pins, name))], name


@pytest.mark.parametrize("other", [name for name in LINES if name != "black_button"])
def test_a_line_given_twice_is_refused_naming_it(other):
    with pytest.raises(ValueError, match="GPIO 17 is assigned twice"):
        ClockPins(black_button=17, **{other: 17})


def test_no_buzzer_frees_its_line():
    assert ClockPins(buzzer=None, black_button=26).black_button == 26
    with pytest.raises(ValueError, match="GPIO 26 is assigned twice"):
        ClockPins(black_button=26)


@pytest.mark.parametrize(("setting", "value", "message"), [
    ("brightness", 8, "brightness must be 0..7, not 8"),
    ("brightness", -1, "brightness must be 0..7, not -1"),
    ("dim_brightness", 9, "dim_brightness must be 0..7, not 9"),
    ("debounce", 0.6, "debounce must be 0..0.5 s, not 0.6"),
    ("debounce", -0.01, "debounce must be 0..0.5 s, not -0.01"),
])
def test_a_setting_out_of_range_is_refused_naming_it(setting, value, message):
    with pytest.raises(ValueError, match=message):
        ClockPins(**{setting: value})


@pytest.mark.parametrize(("setting", "value"), [
    ("brightness", 0), ("brightness", 7), ("dim_brightness", 0), ("debounce", 0.0),
    ("debounce", 0.5),
])
def test_the_ends_of_each_range_are_accepted(setting, value):
    assert getattr(ClockPins(**{setting: value}), setting) == value


def test_the_lines_listed_here_are_every_line_of_the_clock():
    lines = {f.name for f in fields(ClockPins)} - {"debounce", "brightness", "dim_brightness"}
    assert lines == set(LINES)


def test_clockhw_pins_reject_double_use() -> None:
    with pytest.raises(ValueError, match="GPIO 17 is assigned twice"):
        ClockPins(white_button=17)
