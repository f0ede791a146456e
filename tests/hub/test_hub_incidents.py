"""The hall's incident log: an irregularity stays listed after its flag is settled, with
how it ended, the open ones first."""

from __future__ import annotations

from hub_web_support import START, Hall, board_after, moves_of

from controller.hall_protocol.protocol import EventMessage
from controller.hub.incidents import Incidents

FLIP = {"event": "irregularity", "player": "white", "kind": "forgotten_flip",
        "squares": ["d5"]}


def test_a_flag_is_logged_open_then_with_how_it_ended() -> None:
    hall = Hall()
    moves = moves_of(["f5", "d6", "c3", "d3"])
    for ev in moves[:2]:
        hall.event(1, "g1", ev, 100.0)
    hall.event(1, "g1", {"t": 1.5, **FLIP}, 101.0)
    hall.event(2, "g2", moves[0], 100.0)
    hall.event(2, "g2", {"t": 0.5, "event": "irregularity", "player": "black",
                         "kind": "forgotten_flip", "squares": ["e5"]}, 102.0)
    hall.event(2, "g2", {"t": 0.7, "event": "pointed_out", "player": "black",
                         "squares": ["e5"]}, 102.5)
    hall.state(1, 101.0, game="g1")
    hall.state(2, 102.0, game="g2")
    log = Incidents(hall.store)
    first = log.log(hall.store.tables(), {(1, "g1"): 1}, everything=True)
    assert [(e["table"], e["round"], e["open"], e["outcome"]) for e in first] == [
        (2, None, True, "It was pointed out and is being put right."),
        (1, 1, True, "It may still be pointed out.")]
    # black plays on at table 1: the flip stands; table 2's is put right after the point-out
    hall.event(1, "g1", moves[2], 103.0)
    hall.event(2, "g2", {"t": 1.0, "event": "corrected", "kind": "forgotten_flip",
                         "squares": ["e5"], "pointed_out": True}, 104.0)
    hall.state(1, 103.0, game="g1")
    hall.state(2, 104.0, game="g2")
    after = log.log(hall.store.tables(), {}, everything=False)
    assert [(e["table"], e["n"], e["text"], e["outcome"]) for e in after] == [
        (2, 1, "Black did not turn the disc on e5", "It was pointed out and put right."),
        (1, 2, "White did not turn the disc on d5", "It was not pointed out and stands.")]


def test_an_event_no_reader_takes_is_left_out_of_the_log_alone() -> None:
    hall = Hall()
    hall.event(1, "g1", moves_of(["f5"])[0], 100.0)
    hall.event(1, "g1", {"t": 1.0, "event": "irregularity", "kind": "forgotten_flip"}, 101.0)
    hall.event(1, "g1", {"t": 2.0, **FLIP}, 102.0)
    log = Incidents(hall.store).log(hall.store.tables(), {}, everything=True)
    assert [e["text"] for e in log] == ["White did not turn the disc on d5"]


def test_a_position_the_arbiter_set_ends_what_was_open() -> None:
    """A ruling has no event of its own: the next step's official board shows it."""
    hall = Hall()
    board = START
    seq = 0

    def send(event: dict, board: str) -> None:
        nonlocal seq
        seq += 1
        hall.store.announce(1, "g1")
        assert hall.store.add_event(EventMessage(1, "g1", seq, event, None, board, "white"),
                                    100.0 + seq).value == "stored"

    after = board_after(["f5"])
    send(moves_of(["f5"])[0], after)
    send({"t": 1.0, "event": "irregularity", "player": "black", "kind": "forgotten_flip",
          "squares": ["e5"]}, after)
    # the players put one right (a correction in the same step)...
    send({"t": 2.0, "event": "irregularity", "player": "black", "kind": "over_flip",
          "squares": ["d4"]}, after)
    fixed = "X" + after[1:]
    send({"t": 3.0, "event": "corrected", "kind": "over_flip", "squares": ["d4"],
          "pointed_out": False}, fixed)
    send({"t": 3.0, "event": "clock", "black": 500.0, "white": 500.0, "running": "white",
          "paused": False}, fixed)
    # ...then the arbiter sets the position: the clock reading after it carries the board
    send({"t": 9.0, "event": "clock", "black": 500.0, "white": 490.0, "running": "white",
          "paused": False}, board)
    log = Incidents(hall.store).log(hall.store.tables(), {}, everything=True)
    assert [(e["kind"], e["outcome"]) for e in log] == [
        ("over_flip", "It was put right without being pointed out."),
        ("forgotten_flip", "The arbiter set the position.")]
