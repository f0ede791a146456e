"""Every irregularity kind, with and without a clock, naming exactly the right discs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from arbiter_logs import Log, brief

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.arbiter.judge import judge
from controller.events import Irregularity
from controller.position import Position
from controller.squares import Color, mask_of

MOVE_F5 = ("move", "black", "f5", ("e5",))
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


def test_illegal_pass_names_every_legal_move():
    log = Log()
    log.press("white")
    log.show(3)
    t = log.press("black")
    events = arbitrate(log.obs)
    assert brief(events) == [("pass", "black"), ("illegal_pass", "black", ("d3", "c4", "f5", "e6"))]
    assert events[0].t == t


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
