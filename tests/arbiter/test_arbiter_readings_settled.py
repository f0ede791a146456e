"""Readings reported once: confirmed by time, or at once from a settled source.

The camera watcher may report a board only once before it changes again, so the
last change before a press (or before the end) is not always read a second time.
Such a raw reading counts once it stood ``HOLD`` seconds until the next
observation; a camera's one-frame misread never stands that long. The sensor board
debounces every square itself: with ``ArbiterConfig(settled=True)`` each of its
readings counts as it arrives, however soon the press follows.
"""

from __future__ import annotations

from arbiter_logs import brief

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.arbiter.readings import HOLD, frame_masks
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color, parse_square

START = Position.start().board_string()
MOVE_F5 = ("move", "black", "f5", ("e5",))


def board(base: str = START, **squares: str) -> str:
    cells = list(base)
    for name, ch in squares.items():
        cells[parse_square(name)] = ch
    return "".join(cells)


F5 = board(f5="X")  # the disc is down, e5 not yet turned
AFTER_F5 = board(F5, e5="X")
AFTER_F6 = board(AFTER_F5, f6="O", e5="O")  # white f6 turns e5 back
AFTER_E6 = board(AFTER_F6, e6="X", e5="X")  # black e6 turns e5 again


def at(t: float, reading: str | Color) -> Observation:
    if isinstance(reading, Color):
        return Observation(t, press=reading)
    return Observation(t, board=reading)


def test_a_settled_board_read_once_is_judged_at_a_press_after_hold():
    log = [
        at(0.0, START), at(1.0, Color.WHITE),
        at(2.0, F5), at(2.6, AFTER_F5),  # each change reported once
        at(2.6 + HOLD, Color.BLACK),
    ]
    assert brief(arbitrate(log)) == [MOVE_F5]


def test_a_settled_reading_hidden_by_the_hand_later_still_counts():
    log = [
        at(0.0, START), at(1.0, Color.WHITE), at(2.0, F5), at(2.6, AFTER_F5),
        at(2.6 + HOLD, board(AFTER_F5, e5="?", f5="?")),  # the hand passes over e5
        at(3.5, Color.BLACK),
    ]
    assert brief(arbitrate(log)) == [MOVE_F5]


def test_a_one_frame_misread_followed_quickly_by_the_correct_frame_is_ignored():
    frame = 1 / 30
    log = [at(0.0, START), at(frame, START), at(0.5, Color.WHITE),
           at(1.0, F5), at(1.0 + frame, F5), at(1.1, AFTER_F5), at(1.1 + frame, AFTER_F5),
           at(1.2, board(AFTER_F5, a1="O")),  # a1 misread for one frame ...
           at(1.2 + frame, AFTER_F5),  # ... and read right on the next
           at(3.0, Color.BLACK)]  # long after: nothing stood but the real board
    assert brief(arbitrate(log)) == [MOVE_F5]


def test_a_live_service_has_a_lone_reading_count_once_it_stood():
    """No further reading comes: the service says when time has passed (elapse)."""
    arbiter = Arbiter(ArbiterConfig(clock=True))
    for obs in (at(0.0, START), at(1.0, Color.WHITE), at(2.0, F5)):
        arbiter.feed(obs)
    assert brief(arbiter.feed(at(2.5, Color.BLACK))) == [
        MOVE_F5, ("forgotten_flip", "black", ("e5",)),
    ]
    arbiter.feed(at(4.0, AFTER_F5))  # the forgotten disc is turned, reported once
    assert arbiter.settles_at() == 4.0 + HOLD
    assert arbiter.elapse(4.0 + HOLD / 2) == []
    assert brief(arbiter.elapse(4.0 + HOLD)) == [("corrected", "forgotten_flip", ("e5",))]
    assert arbiter.settles_at() is None


def test_a_misread_followed_by_a_press_within_hold_is_not_confirmed():
    misread = board(AFTER_F5, a1="O")
    log = [at(0.0, START), at(0.1, START), at(0.5, Color.WHITE),
           at(1.0, AFTER_F5), at(1.1, AFTER_F5),
           at(1.2, misread), at(1.2 + HOLD / 2, Color.BLACK),
           at(1.2 + HOLD, AFTER_F5)]
    assert brief(arbitrate(log)) == [MOVE_F5]
    # Read once and left standing until the press, the same disc is on the board.
    stood = [*log[:6], at(1.2 + HOLD, Color.BLACK)]
    assert brief(arbitrate(stood)) == [MOVE_F5, ("extra_disc", "black", ("a1", "f5"))]


def test_a_misread_hidden_by_a_hand_within_hold_is_not_confirmed():
    log = [at(0.0, START), at(0.1, START), at(0.5, Color.WHITE),
           at(1.0, AFTER_F5), at(1.1, AFTER_F5),
           at(1.2, board(AFTER_F5, a1="O")),
           at(1.3, board(AFTER_F5, a1="?", b1="?")),  # a hand comes over a1 ...
           at(2.0, board(AFTER_F5, a1="?", b1="?")),
           at(2.5, Color.BLACK)]  # ... and is there at the press
    assert brief(arbitrate(log)) == [MOVE_F5]


def test_without_a_clock_settled_boards_are_judged_when_the_next_move_begins():
    log = [at(0.0, START),
           at(1.0, F5), at(1.5, AFTER_F5),
           at(4.0, board(AFTER_F5, f6="O")), at(4.5, AFTER_F6),
           at(7.0, board(AFTER_F6, e6="X")), at(7.5, AFTER_E6),
           at(9.0, AFTER_E6)]  # the end of the log: the last board still stands
    assert brief(arbitrate(log)) == [
        MOVE_F5, ("move", "white", "f6", ("e5",)), ("move", "black", "e6", ("e5",)),
    ]


def test_without_a_clock_the_end_of_input_confirms_a_board_that_stood():
    arbiter = Arbiter()
    for obs in (at(0.0, START), at(1.0, F5), at(1.5, AFTER_F5)):
        assert arbiter.feed(obs) == []
    assert brief(arbiter.finish(1.5 + HOLD)) == [MOVE_F5]
    # A log that ends on a lone reading has no later time: it is not taken.
    assert brief(arbitrate([at(0.0, START), at(1.0, F5), at(1.5, AFTER_F5)])) == [
        ("move", "black", "f5", ("e5",)), ("forgotten_flip", "black", ("e5",)),
    ]


SETTLED = ArbiterConfig(settled=True)
#: A hall-like input: each change reported once, the press 0.01 s after the last flip.
QUICK_PRESS = [
    at(0.0, START), at(1.0, Color.WHITE),
    at(2.0, F5), at(2.3, AFTER_F5),
    at(2.31, Color.BLACK),
]


def test_a_settled_reading_counts_at_once_so_a_quick_press_has_no_irregularity():
    assert brief(arbitrate(QUICK_PRESS, SETTLED)) == [MOVE_F5]
    # Read as raw frames, the lone flip has not stood long enough to count.
    assert brief(arbitrate(QUICK_PRESS)) == [MOVE_F5, ("forgotten_flip", "black", ("e5",))]


def test_a_settled_input_leaves_nothing_for_time_to_confirm():
    arbiter = Arbiter(SETTLED)
    for obs in QUICK_PRESS[:4]:
        arbiter.feed(obs)
    assert arbiter.stable.masks() == frame_masks(AFTER_F5)[:3]
    assert arbiter.settles_at() is None


def test_a_settled_reading_under_a_hand_keeps_its_last_value():
    log = [*QUICK_PRESS[:4], at(2.305, board(AFTER_F5, e5="?", f5="?")), at(2.31, Color.BLACK)]
    assert brief(arbitrate(log, SETTLED)) == [MOVE_F5]


def test_without_a_clock_settled_boards_judge_a_quick_next_move_and_the_last_board():
    log = [at(0.0, START),
           at(1.0, F5), at(1.05, AFTER_F5),
           at(1.1, board(AFTER_F5, f6="O", e6="?")),  # white's disc down, a hand over e6
           at(1.15, AFTER_F6),  # e5 turned and the hand gone, read once ...
           at(1.2, board(AFTER_F6, e6="X")),  # ... just before black's disc goes down
           at(1.25, AFTER_E6)]  # the log ends here
    assert brief(arbitrate(log, SETTLED)) == [
        MOVE_F5, ("move", "white", "f6", ("e5",)), ("move", "black", "e6", ("e5",)),
    ]
