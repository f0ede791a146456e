"""The board the arbiter trusts (``readings``): hands hiding squares, a disc turned and
turned back, a one-frame misread — none of it is a fault."""

from __future__ import annotations

from arbiter_logs import MOVE_F5, Log, brief

from controller.arbiter import arbitrate


def test_mid_move_states_are_never_flagged():
    """Hands hiding squares, a disc turned and turned back, a disc lifted and put down."""
    log = Log()
    log.press("white")
    log.set(f5="X")
    log.show(3, hidden=("e5", "f4", "e4"))  # the hand over the disc being turned
    log.set(d4="X").set(d4="O")  # turned and turned back
    log.set(e4="-").set(e4="X")  # lifted and put down again
    log.cells[36] = "X"  # e5 is turned under the hand ...
    log.show(2, hidden=("e5", "d5"))
    log.show(2)  # ... and seen once the hand is gone
    log.press("black")
    events = arbitrate(log.obs)
    assert brief(events) == [MOVE_F5]


def test_hidden_square_at_the_press_keeps_its_last_definite_reading():
    log = Log()
    log.press("white")
    log.move("f5", "black", ("e5",))
    log.show(1, hidden=("e5", "f5", "f6"))  # the hand leaves as the button is pressed
    log.press("black")
    assert brief(arbitrate(log.obs)) == [MOVE_F5]


def test_one_frame_misread_is_ignored():
    log = Log()
    log.press("white")
    log.move("f5", "black", ("e5",))
    log.cells[0] = "O"
    log.show(1)  # a1 misread for one frame
    log.cells[0] = "-"
    log.show(2)
    log.press("black")
    assert brief(arbitrate(log.obs)) == [MOVE_F5]
