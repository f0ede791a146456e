"""The arbiter as a whole (``core``): when there is a clock, which presses count, one
finding in every mode, and inputs it refuses."""

from __future__ import annotations

import pytest
from arbiter_logs import Log, brief, judged

from controller.arbiter import Arbiter, ArbiterConfig, Mode, arbitrate
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color


def test_clock_detection_and_judgement_times():
    log = Log()
    log.press("white")
    log.move("f5", "black", ("e5",))
    t = log.press("black")
    events = arbitrate(log.obs)  # clock=None: the press before the first move means a clock
    assert brief(events) == [("move", "black", "f5", ("e5",))] and events[0].t == t
    # Told there is no clock, the same log is judged at its end and presses are ignored.
    events = arbitrate(log.obs, ArbiterConfig(clock=False))
    assert brief(events) == [("move", "black", "f5", ("e5",))] and events[0].t == log.obs[-1].t


def test_presses_before_the_start_and_by_the_wrong_side_do_nothing():
    log = Log()
    log.press("black")  # the clock is not started by the side to move
    log.press("white")
    log.move("f5", "black", ("e5",))
    log.press("white")  # white's time is not running
    log.press("black")
    log.press("black")  # a second press by the same side
    assert judged(log) == [("move", "black", "f5", ("e5",))]


def test_events_are_the_same_in_every_mode():
    """The mode decides only who is shown what (controller/web/disclosure.py), never
    what the arbiter finds."""
    log = Log()
    log.press("white")
    log.set(f5="X")
    log.press("black")
    runs = {mode: arbitrate(log.obs, ArbiterConfig(mode=mode)) for mode in Mode}
    assert runs[Mode.HOME] == runs[Mode.TOURNAMENT] == runs[Mode.RECORD]
    assert [e.event for e in runs[Mode.HOME]] == ["move", "irregularity"]


def test_time_going_backwards_is_refused():
    arbiter = Arbiter()
    arbiter.feed(Observation(1.0, board=Position.start().board_string()))
    with pytest.raises(ValueError, match="backwards"):
        arbiter.feed(Observation(0.5, press=Color.WHITE))


@pytest.mark.parametrize("board", ["X" * 63, "Q" + "-" * 63, "-" * 30 + "z" + "-" * 33])
def test_a_bad_board_string_fed_directly_is_refused(board):
    with pytest.raises(ValueError, match="not an 8x8 observation board string"):
        Arbiter().feed(Observation(0.0, board=board))
