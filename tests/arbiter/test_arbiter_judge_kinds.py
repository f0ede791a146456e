"""Every irregularity kind (``judge``), with and without a clock, naming exactly the right
discs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from arbiter_logs import MOVE_F5, Log, brief

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.arbiter.judge import judge
from controller.events import Irregularity
from controller.irregular_flow import Stage
from controller.position import Position
from controller.records.irregular import STOOD, WITHDRAWN, History, for_people
from controller.squares import Color, mask_of, squares_of

MOVE_C4 = ("move", "black", "c4", ("d4",))
AFTER_F5_D6 = Position.start().play("f5").play("d6")  # black to move: c4 turns d4

# A position where black's a1 turns b1 and c1, and b2 is a white disc nearby.
LINE = Position.from_board_string(
    "-OOX-----O------------------------------------------------------",
    Color.BLACK,
)

Step = Callable[[Log], object]

CASES: list[tuple[str, Position, Step, list[tuple]]] = [
    ("correct", Position.start(), lambda L: L.move("f5", "black", ("e5",)), [MOVE_F5]),
    (
        "forgotten_flip",
        Position.start(),
        lambda L: L.set(f5="X"),
        [MOVE_F5, ("forgotten_flip", "black", ("e5",))],
    ),
    (
        "over_flip",
        AFTER_F5_D6,
        lambda L: L.move("c4", "black", ("d4",)).set(d5="X"),
        [MOVE_C4, ("over_flip", "black", ("d5",))],
    ),
    (
        "wrong_color",
        Position.start(),
        lambda L: L.set(f5="O").set(e5="X"),
        [MOVE_F5, ("wrong_color", "black", ("f5",))],
    ),
    (
        "illegal_square",
        Position.start(),
        lambda L: L.set(a1="X"),
        [("move", "black", "a1", ()), ("illegal_square", "black", ("a1",))],
    ),
    (
        "illegal_square_with_flip",
        Position.start(),
        lambda L: L.set(c6="X").set(d4="X"),
        [
            ("move", "black", "c6", ()),
            ("over_flip", "black", ("d4",)),
            ("illegal_square", "black", ("c6",)),
        ],
    ),
    (
        "extra_disc",
        Position.start(),
        lambda L: L.move("f5", "black", ("e5",)).set(a1="X"),
        [MOVE_F5, ("extra_disc", "black", ("a1", "f5"))],
    ),
    (
        "removed_disc",
        AFTER_F5_D6,
        lambda L: L.move("c4", "black", ("d4",)).set(d6="-"),
        [MOVE_C4, ("removed_disc", "black", ("d6",))],
    ),
    (
        "removed_own_disc",
        AFTER_F5_D6,
        lambda L: L.move("c4", "black", ("d4",)).set(f5="-"),
        [MOVE_C4, ("removed_disc", "black", ("f5",))],
    ),
    (
        "shifted_disc",
        Position.start(),
        lambda L: L.set(f5="x").set(e5="X"),
        [MOVE_F5, ("shifted_disc", "black", ("f5",))],
    ),
    (
        "shifted_turned_disc",
        Position.start(),
        lambda L: L.set(f5="X").set(e5="x"),
        [MOVE_F5, ("shifted_disc", "black", ("e5",))],
    ),
    (
        "forgotten_and_over",
        LINE,
        lambda L: L.set(a1="X").set(b1="X").set(b2="X"),
        [
            ("move", "black", "a1", ("b1", "c1")),
            ("forgotten_flip", "black", ("c1",)),
            ("over_flip", "black", ("b2",)),
        ],
    ),
    (
        "wrong_color_and_forgotten",
        LINE,
        lambda L: L.set(a1="O").set(b1="X"),
        [
            ("move", "black", "a1", ("b1", "c1")),
            ("forgotten_flip", "black", ("c1",)),
            ("wrong_color", "black", ("a1",)),
        ],
    ),
]

NO_CLOCK_SKIP = {"extra_disc"}  # without a clock a second new disc starts the next turn


@pytest.mark.parametrize("name,start,step,expected", CASES, ids=[c[0] for c in CASES])
def test_kind_with_clock(name, start, step, expected):
    log = Log(start)
    arbiter = Arbiter(ArbiterConfig(start=start))
    log.press(start.to_move.opponent)  # rule 4: the clock is started by the side not to move
    step(log)
    quiet = [e for o in log.obs for e in arbiter.feed(o)]
    assert quiet == []  # nothing is said before the press
    t = log.press(start.to_move)
    events = arbiter.feed(log.obs[-1])
    assert brief(events) == expected
    assert all(e.t == t for e in events)


NO_CLOCK_CASES = [c for c in CASES if c[0] not in NO_CLOCK_SKIP]


@pytest.mark.parametrize(
    "name,start,step,expected", NO_CLOCK_CASES, ids=[c[0] for c in NO_CLOCK_CASES]
)
def test_kind_without_clock_judged_at_end(name, start, step, expected):
    log = Log(start)
    step(log)
    log.show(3)
    events = arbitrate(log.obs, ArbiterConfig(start=start))
    assert brief(events) == expected


def test_illegal_pass_names_every_legal_move():
    log = Log()
    log.press("white")
    log.show(3)
    t = log.press("black")
    events = arbitrate(log.obs)
    assert brief(events) == [("pass", "black"), ("illegal_pass", "black", ("d3", "c4", "f5", "e6"))]
    assert events[0].t == t


def test_judge_prefers_the_disc_put_down_first_on_a_tie():
    # Black d3 and c4 both turn d4: with both on the board, the one put down first is the move.
    before = Position.start()
    b = before.black | mask_of(["d3", "c4", "d4"])
    w = before.white & ~mask_of(["d4"])
    j1 = judge(before, 0, Color.BLACK, b, w, 0, first=26)  # c4 first
    j2 = judge(before, 0, Color.BLACK, b, w, 0, first=19)  # d3 first
    assert (j1.square, j2.square) == (26, 19)
    assert [(f.kind, f.squares) for f in j1.flags] == [
        (Irregularity.EXTRA_DISC, mask_of(["d3", "c4"]))
    ]


# ------------------------------------------------------------ a move out of turn
#: White's e3 (turning e4), a legal move for white, played while black is to move.
OUT_OF_TURN = [("move", "white", "e3", ("e4",)), ("out_of_turn", "white", ("e3",))]


def _white_plays_out_of_turn(arbiter: Arbiter, log: Log) -> list[tuple]:
    log.press("white")  # black's time runs ...
    log.move("e3", "white", ("e4",))  # ... but white plays a move of their own and presses
    log.press("white")
    return brief([e for o in log.obs for e in arbiter.feed(o)])


def _feed_new(arbiter: Arbiter, log: Log, seen: int) -> list[tuple]:
    return brief([e for o in log.obs[seen:] for e in arbiter.feed(o)])


def test_a_move_out_of_turn_pointed_out_is_taken_back_and_the_side_on_move_plays():
    log = Log()
    arbiter = Arbiter()
    assert _white_plays_out_of_turn(arbiter, log) == OUT_OF_TURN
    step = arbiter.flow().step()
    assert (step.stage, step.who, step.press) == (Stage.MAY_POINT_OUT, "black", "black")
    assert "Move 1: White played e3 out of turn." in step.text
    assert "Black may point out e3: press Black's clock" in step.text
    assert arbiter.to_move is Color.BLACK  # the point-out is black's press to make

    seen = len(log.obs)
    log.press("black")  # black points it out on the unchanged board
    assert _feed_new(arbiter, log, seen) == [("pointed_out", "white", ("e3",))]
    step = arbiter.flow().step()
    assert (step.stage, step.press) == (Stage.POINTED_OUT, "white")
    assert step.text == ("Pointed out: White must take the disc on e3 back and turn back "
                         "what it turned, then press White's clock.")

    seen = len(log.obs)
    log.set(e3="-", e4="X")  # white takes the disc back and turns e4 back
    (said,) = [e for o in log.obs[seen:] for e in arbiter.feed(o)]
    assert brief([said]) == [("corrected", "out_of_turn", ("e3",))]
    assert said["pointed_out"] is True
    step = arbiter.flow().step()
    assert (step.stage, step.press) == (Stage.PUT_RIGHT, "white")
    assert "then Black is to move" in step.text

    seen = len(log.obs)
    log.press("white")  # the offender's press hands the turn back to black
    assert _feed_new(arbiter, log, seen) == []
    assert arbiter.position == Position.start()  # before the disc, black to move
    assert arbiter.flow().step().stage is Stage.CLEAR

    seen = len(log.obs)
    log.move("f5", "black", ("e5",))
    log.press("black")
    assert _feed_new(arbiter, log, seen) == [MOVE_F5]
    record = arbiter.record()
    assert [(m.player, m.square) for m in record.moves] == [(Color.BLACK, "f5")]
    assert any("white e3 withdrawn after it was pointed out" in c for c in record.comments)
    history = History()
    history.take([e.to_dict() for e in arbitrate(log.obs)], 1, log.t)
    (entry,) = history.entries
    assert (entry.kind, entry.status, entry.counts) == ("out_of_turn", WITHDRAWN, False)


def test_a_move_out_of_turn_taken_back_unprompted_leaves_black_to_move():
    log = Log()
    arbiter = Arbiter()
    assert _white_plays_out_of_turn(arbiter, log) == OUT_OF_TURN
    seen = len(log.obs)
    log.set(e3="-", e4="X")
    (said,) = [e for o in log.obs[seen:] for e in arbiter.feed(o)]
    assert brief([said]) == [("corrected", "out_of_turn", ("e3",))]
    assert said["pointed_out"] is False
    assert arbiter.position == Position.start()
    assert arbiter.flow().step().stage is Stage.CLEAR
    seen = len(log.obs)
    log.press("white")  # pressed again on the board as it was: nothing to judge
    log.move("f5", "black", ("e5",))
    log.press("black")
    assert _feed_new(arbiter, log, seen) == [MOVE_F5]


def test_a_move_out_of_turn_played_on_stands_and_the_turns_go_on_from_it():
    """Black plays on instead of pointing it out: the disc stays, as white's move; black
    has had their turn, so white is to move next, and the game goes on in turn."""
    log = Log()
    arbiter = Arbiter()
    assert _white_plays_out_of_turn(arbiter, log) == OUT_OF_TURN
    black_began = log.obs[2].t  # white's first press: black's time runs from there
    stood = Position.start().with_to_move(Color.WHITE).play("e3")
    black = stood.play("f3")
    seen = len(log.obs)
    log.move("f3", "black", tuple(squares_of(stood.flips("f3"))))
    black_pressed = log.press("black")
    assert _feed_new(arbiter, log, seen) == [
        ("move", "black", "f3", tuple(squares_of(stood.flips("f3"))))]
    assert arbiter.position == black and arbiter.to_move is Color.WHITE
    seen = len(log.obs)
    log.move("g3", "white", tuple(squares_of(black.flips("g3"))))
    log.press("white")
    assert _feed_new(arbiter, log, seen) == [
        ("move", "white", "g3", tuple(squares_of(black.flips("g3"))))]
    assert arbiter.position == black.play("g3") and arbiter.to_move is Color.BLACK
    moves = arbiter.record().moves
    assert [(m.player.value, m.square) for m in moves] == [
        ("white", "e3"), ("black", "f3"), ("white", "g3")]
    assert moves[0].comment == "out_of_turn e3"
    assert moves[0].time is None  # played in black's time, which ran on
    assert moves[1].time == round(black_pressed - black_began, 3)


def test_a_record_keeps_a_move_out_of_turn_that_stood_and_reads_back():
    """The rules give black the move there, so the record says the board play went on
    from; the record's positions then follow the game."""
    log = Log()
    arbiter = Arbiter()
    history = History()
    after = {0: arbiter.position}
    stood = Position.start().with_to_move(Color.WHITE).play("e3")
    log.press("white")
    log.move("e3", "white", ("e4",))
    log.press("white")
    log.move("f3", "black", tuple(squares_of(stood.flips("f3"))))
    log.press("black")
    for obs in log.obs:
        history.take(arbiter.feed(obs), len(arbiter.moves), obs.t, arbiter.open_flags())
        after[len(arbiter.moves)] = arbiter.position
    record = for_people(arbiter.record(), history, after)
    assert record.moves[0].stands == stood
    assert "White played e3 out of turn. It was not pointed out and stands." in (
        record.moves[0].comment)
    assert record.positions()[-1] == stood.play("f3")
    assert history.entries[0].status == STOOD

