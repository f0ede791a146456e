"""The clock display format: every boundary a player watches in time trouble."""

from __future__ import annotations

import pytest

from controller.clockhw.display import SEGMENTS, DisplayFrame, format_time


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [
        (1200.0, "20:00"),
        (1199.99, "20:00"),  # rounded up: a fresh clock never shows 19:59
        (1199.0, "19:59"),
        (600.0, "10:00"),
        (599.5, "10:00"),
        (599.0, " 9:59"),
        (61.0, " 1:01"),
        (60.0, " 1:00"),
        (20.05, " 0:21"),
        (20.0, " 0:20"),
        (19.95, " 0:20"),  # 19.95 s rounds up to 20.0 s: still minutes and seconds
        (19.9, "19:9 "),
        (10.01, "10:1 "),
        (9.41, " 9:5 "),
        (9.4, " 9:4 "),
        (0.05, " 0:1 "),
        (0.0, " 0:00"),
        (-3.0, " 0:00"),
        (100 * 60.0, "99:59"),
    ],
)
def test_clockhw_format_reads_as_documented(seconds: float, shown: str) -> None:
    assert format_time(seconds).render() == shown


def test_clockhw_running_colon_blinks_once_a_second() -> None:
    # lit in the first half of each displayed second (remaining fraction >= .5), dark after
    assert format_time(65.9, running=True).colon
    assert format_time(65.5, running=True).colon
    assert not format_time(65.4, running=True).colon
    assert not format_time(65.01, running=True).colon
    assert format_time(65.0, running=True).colon
    # waiting side: steady; tenths: the separator is a decimal point and never blinks
    assert format_time(65.4, running=False).colon
    assert format_time(12.3, running=True).colon


def test_clockhw_segments_carry_digits_and_colon_on_second_digit() -> None:
    frame = DisplayFrame("1234", colon=True, brightness=3)
    assert frame.segments() == bytes([0x06, 0x5B | 0x80, 0x4F, 0x66])
    assert DisplayFrame(" 0-8", colon=False).segments() == bytes([0, 0x3F, 0x40, 0x7F])
    assert len(SEGMENTS) == 12


@pytest.mark.parametrize(("text", "brightness"), [("123", 5), ("12a4", 5), ("1234", 8)])
def test_clockhw_frame_rejects_what_a_display_cannot_show(text: str, brightness: int) -> None:
    with pytest.raises(ValueError):
        DisplayFrame(text, True, brightness)


def test_clockhw_nan_time_is_refused() -> None:
    with pytest.raises(ValueError, match="not a number"):
        format_time(float("nan"))
