"""Without a clock (``noclock``): a move is judged when the next mover's disc appears;
a second disc of the mover's own colour, or one put down and taken back, stays in the
turn, and after a pass the mover plays twice."""

from __future__ import annotations

from arbiter_logs import MOVE_F5, Log, brief

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.position import Position
from controller.squares import Color


def test_without_clock_move_judged_when_next_move_begins():
    log = Log()
    log.set(f5="X")  # black forgets e5
    log.show(4)
    arbiter = Arbiter()
    assert [e for o in log.obs for e in arbiter.feed(o)] == []
    # White (to move on the physical board, e5 still white) begins f6: the judgement comes now.
    log.obs.clear()
    log.set(f6="O")
    events = [e for o in log.obs for e in arbiter.feed(o)]
    assert brief(events) == [MOVE_F5, ("forgotten_flip", "black", ("e5",))]
    assert events[0].t == log.obs[-1].t
    # White's f6 is judged against the board as it really is (e5 still white): there it
    # turns nothing, so it is an illegal square.
    log.obs.clear()
    log.show(2)
    events = [e for o in log.obs for e in arbiter.feed(o)] + arbiter.finish(log.t)
    assert brief(events) == [("move", "white", "f6", ()), ("illegal_square", "white", ("f6",))]


def test_without_clock_a_second_disc_of_the_movers_colour_stays_in_the_turn():
    """docs/arbiter.md: the next move begins when a disc of the *other* colour appears."""
    log = Log()
    log.move("f5", "black", ("e5",)).show(2).set(a1="X").show(2)
    assert brief(arbitrate(log.obs)) == [MOVE_F5, ("extra_disc", "black", ("a1", "f5"))]
    # White's disc then begins the next move: black's turn is judged with both discs.
    log.move("f6", "white", ("e5",)).show(2)
    assert brief(arbitrate(log.obs)) == [
        MOVE_F5, ("extra_disc", "black", ("a1", "f5")), ("move", "white", "f6", ("e5",))]


def test_without_clock_a_disc_put_down_and_taken_back_is_not_a_move():
    log = Log()
    log.move("f5", "black", ("e5",)).show(2)
    log.set(c3="X").set(c3="-")  # put down by mistake and taken back
    log.move("f6", "white", ("e5",)).show(3)
    assert brief(arbitrate(log.obs)) == [MOVE_F5, ("move", "white", "f6", ("e5",))]


def test_without_clock_a_pass_lets_the_mover_play_twice():
    # Black a1 turns b1; white then has no move, so black's next disc begins the next move.
    solo = Position.from_board_string("-OX-----" + "-" * 48 + "------OX", Color.BLACK)
    log = Log(solo)
    log.move("a1", "black", ("b1",)).show(2).move("f8", "black", ("g8",)).show(3)
    assert brief(arbitrate(log.obs, ArbiterConfig(start=solo))) == [
        ("move", "black", "a1", ("b1",)),
        ("pass", "white"),
        ("move", "black", "f8", ("g8",)),
        ("game_over", 64, 0, "black"),
    ]
