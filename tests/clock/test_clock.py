"""The pure game clock, driven by a fake time down to the millisecond."""

from __future__ import annotations

import json

import pytest

from controller.clock import FlagResult, GameClock, TimeControl
from controller.squares import Color

B, W = Color.BLACK, Color.WHITE


def test_default_is_twenty_minutes_sudden_death():
    c = TimeControl()
    assert (c.main, c.increment, c.delay) == (1200.0, 0.0, 0.0)
    assert c.describe() == "20:00"
    assert TimeControl(300, increment=5).describe() == "05:00+5s"


def test_white_press_starts_black_time():
    clock = GameClock()
    assert clock.running is None
    assert clock.press(W, 10.0) is None  # rule 4: starts the game, no move ended
    assert clock.running is B
    assert clock.remaining(B, 10.5) == pytest.approx(1199.5)
    assert clock.remaining(W, 10.5) == 1200.0


# (presses as (player, time), then the expected remaining (black, white) at `at`)
SEQUENCES = [
    ("plain", TimeControl(60), [(W, 0.0), (B, 10.001), (W, 13.5)], 13.5, (49.999, 56.501)),
    (
        "increment",
        TimeControl(60, increment=2),
        [(W, 0.0), (B, 10.0), (W, 13.0)],
        13.0,
        (52.0, 59.0),
    ),
    ("delay inside", TimeControl(60, delay=5), [(W, 0.0), (B, 4.999), (W, 8.0)], 8.0, (60.0, 60.0)),
    (
        "delay exceeded",
        TimeControl(60, delay=5),
        [(W, 0.0), (B, 7.25), (W, 17.0)],
        17.0,
        (57.75, 55.25),
    ),
    ("running side charged live", TimeControl(60), [(W, 0.0), (B, 1.0)], 31.0, (59.0, 30.0)),
    (
        "press by the idle side ignored",
        TimeControl(60),
        [(W, 0.0), (W, 5.0), (B, 6.0)],
        6.0,
        (54.0, 60.0),
    ),
]


@pytest.mark.parametrize("name,control,presses,at,left", SEQUENCES, ids=[s[0] for s in SEQUENCES])
def test_press_sequences(name, control, presses, at, left):
    clock = GameClock(control)
    for player, t in presses:
        clock.press(player, t)
    assert clock.remaining(B, at) == pytest.approx(left[0], abs=1e-9)
    assert clock.remaining(W, at) == pytest.approx(left[1], abs=1e-9)


def test_press_returns_time_used_on_the_move():
    clock = GameClock()
    clock.press(W, 1.0)
    assert clock.press(B, 4.321) == pytest.approx(3.321)
    assert clock.press(B, 5.0) is None  # black's time is no longer running
    assert clock.press(W, 9.0) == pytest.approx(4.679)


def test_pause_resume_and_adjust():
    clock = GameClock(TimeControl(100))
    clock.press(W, 0.0)
    clock.pause(10.0)  # the arbiter stops the clock (rule 10)
    assert clock.paused
    assert clock.remaining(B, 500.0) == pytest.approx(90.0)
    assert clock.press(B, 600.0) is None  # buttons do nothing while stopped
    clock.resume(600.0)
    assert clock.press(B, 605.0) == pytest.approx(15.0)  # time used excludes the pause
    assert clock.remaining(B, 605.0) == pytest.approx(85.0)
    clock.adjust(W, -30.0, 606.0)  # time correction by the arbiter (rule 25)
    clock.adjust(B, 12.5, 606.0)
    assert clock.remaining(W, 606.0) == pytest.approx(69.0)
    assert clock.remaining(B, 606.0) == pytest.approx(97.5)


FLAGS = [
    # name, control, presses, time, draw-win right, expected flag
    ("time left", 60, [(W, 0.0)], 59.999, None, None),
    ("black's flag falls", 60, [(W, 0.0)], 60.0, None, FlagResult(B, W, "time")),
    ("white's flag falls", 60, [(W, 0.0), (B, 1.0)], 61.001, None, FlagResult(W, B, "time")),
    # a press after zero is too late: black stays on move and stays lost
    ("late press does not save", 60, [(W, 0.0), (B, 70.0)], 130.5, W, FlagResult(B, W, "time")),
]


@pytest.mark.parametrize("name,main,presses,at,right,expected", FLAGS, ids=[f[0] for f in FLAGS])
def test_flag_rules(name, main, presses, at, right, expected):
    clock = GameClock(TimeControl(main), draw_win_right=right)
    for player, t in presses:
        clock.press(player, t)
    assert clock.flag(at) == expected


@pytest.mark.parametrize("right,expected", [
    (W, FlagResult(B, W, "both_flags")),
    (B, FlagResult(W, B, "both_flags")),
    (None, FlagResult(None, None, "both_flags")),
])
def test_both_flags_down_after_a_correction(right, expected):
    """Rule 14: both flags can be down only when a time correction took the idle side's."""
    clock = GameClock(TimeControl(60), draw_win_right=right)
    clock.press(W, 0.0)
    clock.adjust(W, -61.0, 1.0)
    assert clock.flag(59.0) == FlagResult(W, B, "time")
    assert clock.flag(60.0) == expected


@pytest.mark.parametrize("increment,delay", [(0, 0), (5, 0), (0, 3), (10, 2)])
@pytest.mark.parametrize("late", [1e-9, 0.001, 0.1, 3.0])
def test_press_after_the_fall_is_too_late_whatever_the_polling(increment, delay, late):
    """The fall is at an exact instant; a press after it changes nothing, increment or not."""
    clock = GameClock(TimeControl(30, increment=increment, delay=delay))
    clock.press(W, 0.0)
    clock.press(B, 10.0)  # black used 10 s (less the delay), gets the increment
    clock.press(W, 12.5)
    fall = clock.fall_time()
    assert fall == pytest.approx(12.5 + 30 - max(0, 10 - delay) + increment + delay)
    assert clock.flag(fall - 1e-6) is None
    assert clock.press(B, fall + late) is None  # too late: no switch, no increment
    assert clock.running is B
    assert clock.flag(fall + late) == FlagResult(B, W, "time")
    assert clock.flag(fall) == FlagResult(B, W, "time")  # down at the very instant


def test_press_just_before_the_fall_saves():
    clock = GameClock(TimeControl(30, increment=5))
    clock.press(W, 0.0)
    assert clock.press(B, 29.999) == pytest.approx(29.999)
    assert clock.remaining(B, 30.0) == pytest.approx(5.001)
    assert clock.fall_time() == pytest.approx(29.999 + 30)


def test_fall_time_follows_pauses():
    clock = GameClock(TimeControl(60))
    assert clock.fall_time() is None
    clock.press(W, 0.0)
    clock.pause(20.0)
    assert clock.fall_time() is None  # a stopped clock has no fall instant
    clock.resume(100.0)
    assert clock.fall_time() == pytest.approx(140.0)


def test_resume_hands_the_clock_to_the_side_to_move():
    """Moves judged while the clock stood: the ended move is charged up to the pause."""
    clock = GameClock(TimeControl(60, increment=2))
    clock.press(W, 0.0)
    clock.pause(10.0)  # black had used 10 s
    clock.resume(50.0, to_move=W)  # black moved while the clock stood
    assert clock.running is W
    assert clock.remaining(B, 55.0) == pytest.approx(52.0)
    assert clock.remaining(W, 55.0) == pytest.approx(55.0)
    clock.pause(60.0)
    clock.resume(70.0, to_move=W)  # same side: only the pause is skipped
    assert clock.remaining(W, 75.0) == pytest.approx(45.0)


def test_snapshot_restores_mid_move():
    clock = GameClock(TimeControl(300, increment=3, delay=1), draw_win_right=W)
    clock.press(W, 0.0)
    clock.press(B, 12.0)
    clock.pause(20.0)
    again = GameClock.restore(json.loads(json.dumps(clock.snapshot())))
    for c in (clock, again):
        c.resume(25.0)
        c.press(W, 31.0)
    assert again.snapshot() == clock.snapshot()
    assert again.remaining(B, 40.0) == clock.remaining(B, 40.0)
    assert again.flag(10_000.0) == clock.flag(10_000.0)


def test_bad_time_controls_are_refused():
    with pytest.raises(ValueError, match="main"):
        TimeControl(0)
    with pytest.raises(ValueError, match="negative"):
        TimeControl(60, increment=-1)
