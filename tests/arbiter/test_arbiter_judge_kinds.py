"""Every irregularity kind (``judge``), with and without a clock, naming exactly the right
discs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from arbiter_logs import MOVE_F5, Log, brief

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.arbiter.judge import judge
from controller.events import Irregularity
from controller.position import Position
from controller.squares import Color, mask_of

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
