"""A turn judged and what follows it (``turns``): passes, the end of the game, draw rules,
handicaps."""

from __future__ import annotations

import pytest
from arbiter_logs import Log, brief, judged

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.position import Position
from controller.squares import Color, squares_of

# Black a1 turns b1; then white has no move and black has f8 (turning g8).
SOLO = Position.from_board_string("-OX-----" + "-" * 48 + "------OX", Color.BLACK)
# Black a1 turns b1 and ends the game with three discs each (32-32 with the empties).
EVEN = Position.from_board_string("-OX-----" + "-" * 48 + "---OOO--", Color.BLACK)


def test_legal_pass_with_clock_and_game_end_after_the_final_press():
    log = Log(SOLO)
    log.press("white")
    log.move("a1", "black", ("b1",))
    log.press("black")
    log.show(2)
    log.press("white")  # white has no move: a legal pass
    log.move("f8", "black", ("g8",))
    t = log.press("black")
    events = arbitrate(log.obs, ArbiterConfig(start=SOLO))
    assert brief(events) == [
        ("move", "black", "a1", ("b1",)),
        ("pass", "white"),
        ("move", "black", "f8", ("g8",)),
        ("game_over", 64, 0, "black"),
    ]  # the empty squares go to the winner
    assert events[-1].t == t


def test_passes_without_a_clock_are_read_from_the_board():
    log = Log(SOLO)
    log.move("a1", "black", ("b1",)).show(3)
    log.move("f8", "black", ("g8",)).show(3)
    assert judged(log, ArbiterConfig(start=SOLO)) == [
        ("move", "black", "a1", ("b1",)),
        ("pass", "white"),
        ("move", "black", "f8", ("g8",)),
        ("game_over", 64, 0, "black"),
    ]


@pytest.mark.parametrize(
    "draws_allowed,holder,winner,decided",
    [
        (True, None, "draw", False),
        (True, Color.WHITE, "draw", False),  # with draws, the right does not matter
        (False, Color.WHITE, "white", True),  # 引き分け勝ち (rule 1)
        (False, Color.BLACK, "black", True),
        (False, None, "black", True),  # usual default: black wins a drawn game
    ],
)
def test_draw_rules(draws_allowed, holder, winner, decided):
    log = Log(EVEN)
    log.press("white")
    log.move("a1", "black", ("b1",))
    log.press("black")
    config = ArbiterConfig(start=EVEN, draws_allowed=draws_allowed, draw_win_right=holder)
    arbiter = Arbiter(config)
    events = [e for o in log.obs for e in arbiter.feed(o)]
    end = events[-1]
    assert (end["black"], end["white"], end["winner"]) == (32, 32, winner)
    assert ("decided_by" in end.fields) is decided
    assert arbiter.record().result == (32, 32)


def test_handicap_game_starts_with_white_and_black_starts_the_clock():
    start = Position.handicap(2)
    square = start.legal_squares()[0]
    flips = tuple(squares_of(start.flips(square)))
    log = Log(start)
    log.press("white")  # the side to move cannot start its own clock: ignored
    log.move(square, "white", flips)
    log.press("black")  # starts white's time
    log.press("white")
    events = judged(log, ArbiterConfig(start=start))
    assert events == [("move", "white", square, flips)]
