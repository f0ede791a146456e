"""Every correction path: the mover before pressing, the opponent pointing it out, nobody."""

from __future__ import annotations

import pytest
from arbiter_logs import Log, brief

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.position import Position
from controller.squares import Color, squares_of

START = Position.start()
AFTER_F5_D6 = Position.start().play("f5").play("d6")
LINE = Position.from_board_string(
    "-OOX-----O--------------------------------------------------XO--",
    Color.BLACK,
)

# kind, start, the faulty move, the fix, the corrected events, the move square
FIXES = [
    (
        "forgotten_flip",
        START,
        lambda L: L.set(f5="X"),
        lambda L: L.set(e5="X"),
        [("corrected", "forgotten_flip", ("e5",))],
        "f5",
    ),
    (
        "over_flip",
        AFTER_F5_D6,
        lambda L: L.move("c4", "black", ("d4",)).set(d5="X"),
        lambda L: L.set(d5="O"),
        [("corrected", "over_flip", ("d5",))],
        "c4",
    ),
    (
        "wrong_color",
        START,
        lambda L: L.set(f5="O").set(e5="X"),
        lambda L: L.set(f5="X"),
        [("corrected", "wrong_color", ("f5",))],
        "f5",
    ),
    (
        "extra_disc",
        START,
        lambda L: L.move("f5", "black", ("e5",)).set(a1="X"),
        lambda L: L.set(a1="-"),
        [("corrected", "extra_disc", ("a1", "f5"))],
        "f5",
    ),
    (
        "removed_disc",
        AFTER_F5_D6,
        lambda L: L.move("c4", "black", ("d4",)).set(d6="-"),
        lambda L: L.set(d6="O"),
        [("corrected", "removed_disc", ("d6",))],
        "c4",
    ),
    (
        "shifted_disc",
        START,
        lambda L: L.set(f5="x").set(e5="X"),
        lambda L: L.set(f5="X"),
        [("corrected", "shifted_disc", ("f5",))],
        "f5",
    ),
    (
        "forgotten_and_over",
        LINE,
        lambda L: L.set(a1="X").set(b1="X").set(b2="X"),
        lambda L: L.set(c1="X").set(b2="O"),
        [("corrected", "forgotten_flip", ("c1",)), ("corrected", "over_flip", ("b2",))],
        "a1",
    ),
]
IDS = [f[0] for f in FIXES]


def feed(arbiter: Arbiter, log: Log, since: int) -> list:
    return [e for o in log.obs[since:] for e in arbiter.feed(o)]


def play(log: Log, pos: Position, square: str) -> Position:
    """Play a correct move on the log's board; return the position after it."""
    log.move(square, pos.to_move, tuple(squares_of(pos.flips(square))))
    return pos.play(square)


def flagged(start: Position, fault) -> tuple[Arbiter, Log, list]:
    log = Log(start)
    arbiter = Arbiter(ArbiterConfig(start=start))
    log.press(Color.WHITE)
    fault(log)
    log.press(Color.BLACK)
    return arbiter, log, feed(arbiter, log, 0)


@pytest.mark.parametrize("kind,start,fault,fix,fixed,square", FIXES, ids=IDS)
def test_opponent_presses_points_out_and_mover_corrects(kind, start, fault, fix, fixed, square):
    arbiter, log, events = flagged(start, fault)
    assert any(e.event == "irregularity" for e in events)
    n = len(log.obs)
    log.press(Color.WHITE)  # rule 5①: the opponent hands the turn back ...
    said = brief(feed(arbiter, log, n))
    assert [e[:2] for e in said] == [("pointed_out", "black")]
    flagged_squares = {sq for e in brief(events) if e[0] not in ("move", "pointed_out")
                       for sq in e[2]}
    assert set(said[0][2]) == flagged_squares
    assert arbiter.to_move is Color.BLACK
    n = len(log.obs)
    fix(log)  # ... and the mover puts it right
    assert brief(feed(arbiter, log, n)) == fixed
    right = start.play(square)
    assert (arbiter.position.black, arbiter.position.white) == (right.black, right.white)
    n = len(log.obs)
    log.press(Color.BLACK)  # and presses again
    assert feed(arbiter, log, n) == []
    assert arbiter.to_move is Color.WHITE
    # The game goes on from the right position: white's next move is judged clean.
    n = len(log.obs)
    reply = right.legal_squares()[0]
    play(log, right, reply)
    log.press(Color.WHITE)
    assert [e.event for e in feed(arbiter, log, n)] == ["move"]
    assert "corrected" in arbiter.record().moves[-2].comment


@pytest.mark.parametrize("kind,start,fault,fix,fixed,square", FIXES, ids=IDS)
def test_put_right_without_a_press(kind, start, fault, fix, fixed, square):
    arbiter, log, _ = flagged(start, fault)
    n = len(log.obs)
    fix(log)
    assert brief(feed(arbiter, log, n)) == fixed
    right = start.play(square)
    n = len(log.obs)
    play(log, right, right.legal_squares()[0])
    log.press(Color.WHITE)
    assert [e.event for e in feed(arbiter, log, n)] == ["move"]


@pytest.mark.parametrize("kind,start,fault,fix,fixed,square", FIXES, ids=IDS)
def test_mover_fixes_before_pressing(kind, start, fault, fix, fixed, square):
    log = Log(start)
    log.press(Color.WHITE)
    fault(log)
    fix(log)
    log.press(Color.BLACK)
    arbiter = Arbiter(ArbiterConfig(start=start))
    assert [e.event for e in feed(arbiter, log, 0)] == ["move"]


@pytest.mark.parametrize("kind,start,fault,fix,fixed,square", FIXES, ids=IDS)
def test_unnoticed_fault_stays_on_the_board(kind, start, fault, fix, fixed, square):
    arbiter, log, _ = flagged(start, fault)
    physical = arbiter.position
    assert physical.board_string() == "".join(log.cells).upper()
    assert physical.to_move is Color.WHITE
    n = len(log.obs)
    after = play(log, physical, physical.legal_squares()[0])
    log.press(Color.WHITE)
    assert [e.event for e in feed(arbiter, log, n)] == ["move"]  # no `corrected`
    assert arbiter.position.board_string() == after.board_string()
    assert kind.split("_and_")[0] in arbiter.record().moves[0].comment


def test_illegal_square_pointed_out_is_withdrawn_and_replayed():
    arbiter, log, events = flagged(START, lambda L: L.set(a1="X"))
    assert brief(events) == [("move", "black", "a1", ()), ("illegal_square", "black", ("a1",))]
    n = len(log.obs)
    log.press(Color.WHITE)
    log.set(a1="-")
    assert brief(feed(arbiter, log, n)) == [("pointed_out", "black", ("a1",)),
                                            ("corrected", "illegal_square", ("a1",))]
    assert arbiter.to_move is Color.BLACK
    n = len(log.obs)
    log.move("f5", "black", ("e5",))
    log.press(Color.BLACK)
    assert brief(feed(arbiter, log, n)) == [("move", "black", "f5", ("e5",))]
    record = arbiter.record()
    assert [m.square for m in record.moves] == ["f5"]
    assert any("a1" in note and "withdrawn" in note for note in record.comments)


def test_illegal_pass_pointed_out():
    log = Log()
    arbiter = Arbiter()
    log.press(Color.WHITE)
    log.show(2)
    log.press(Color.BLACK)
    log.press(Color.WHITE)  # "there is a move": the opponent presses and names the squares
    legal = ("d3", "c4", "f5", "e6")
    assert brief(feed(arbiter, log, 0)) == [
        ("pass", "black"),
        ("illegal_pass", "black", legal),
        ("pointed_out", "black", tuple(sorted(legal, key=lambda q: (q[1], q[0])))),
        ("corrected", "illegal_pass", legal),
    ]
    assert arbiter.to_move is Color.BLACK
    n = len(log.obs)
    log.move("f5", "black", ("e5",))
    log.press(Color.BLACK)
    assert brief(feed(arbiter, log, n)) == [("move", "black", "f5", ("e5",))]
    assert [m.square for m in arbiter.record().moves] == ["f5"]


def test_illegal_pass_unnoticed_the_opponent_moves_on():
    log = Log()
    arbiter = Arbiter()
    log.press(Color.WHITE)
    log.press(Color.BLACK)
    white = START.with_to_move(Color.WHITE)
    play(log, white, white.legal_squares()[0])
    log.press(Color.WHITE)
    events = brief(feed(arbiter, log, 0))
    assert [e[0] for e in events] == ["pass", "illegal_pass", "move"]
    assert events[2][1] == "white"


# Black a1 turns b1; afterwards white has no move at all, black still has f8.
SOLO = Position.from_board_string("-OX-----" + "-" * 48 + "------OX", Color.BLACK)


def test_a_press_after_a_flagged_move_that_was_a_pass_after_all():
    log = Log(SOLO)
    arbiter = Arbiter(ArbiterConfig(start=SOLO))
    log.press(Color.WHITE)
    log.set(a1="x").set(b1="X")  # black leaves a1 shifted
    log.press(Color.BLACK)
    challenge = log.press(Color.WHITE)  # white cannot move: this press is a pass
    log.move("f8", "black", ("g8",))
    final = log.press(Color.BLACK)
    events = feed(arbiter, log, 0)
    assert brief(events) == [
        ("move", "black", "a1", ("b1",)),
        ("shifted_disc", "black", ("a1",)),
        ("pass", "white"),
        ("move", "black", "f8", ("g8",)),
        ("game_over", 64, 0, "black"),
    ]
    assert events[2].t == challenge and events[3].t == final


def test_a_fault_in_the_last_move_can_still_be_pointed_out():
    """Rule 9: the last move may be pointed out too, so the game is only over once the
    fault is put right (one ``game_over``, on the corrected board)."""
    start = SOLO.play("a1").pass_turn()
    log = Log(start)
    arbiter = Arbiter(ArbiterConfig(start=start))
    log.press(Color.WHITE)
    log.set(f8="x").set(g8="X")  # the last disc is left off its square
    log.press(Color.BLACK)
    log.press(Color.WHITE)
    log.set(f8="X")
    log.press(Color.BLACK)
    assert brief(feed(arbiter, log, 0)) == [
        ("move", "black", "f8", ("g8",)),
        ("shifted_disc", "black", ("f8",)),
        # white had no move: the press is told as a point-out once something is put right
        ("pointed_out", "black", ("f8",)),
        ("corrected", "shifted_disc", ("f8",)),
        ("game_over", 64, 0, "black"),
    ]
    assert arbiter.game_over


def test_a_faulty_last_move_left_as_it_is_ends_the_game_with_the_log():
    """Nobody points the fault out: the game ends on the board as it stands."""
    start = SOLO.play("a1").pass_turn()
    log = Log(start)
    log.press(Color.WHITE)
    log.set(f8="x").set(g8="X")
    log.press(Color.BLACK)
    log.show(3)
    events = brief(arbitrate(log.obs, ArbiterConfig(start=start)))
    assert events[-1] == ("game_over", 64, 0, "black")
    assert [e[0] for e in events].count("game_over") == 1
