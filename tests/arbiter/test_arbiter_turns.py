"""Passes, the end of the game, draw rules, handicaps, modes, records, overlay."""

from __future__ import annotations

import pytest
from arbiter_logs import Log, brief

from controller.arbiter import Arbiter, ArbiterConfig, Mode, arbitrate
from controller.leds.plan import WRONG, plan_overlay
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color, squares_of

# Black a1 turns b1; then white has no move and black has f8 (turning g8).
SOLO = Position.from_board_string("-OX-----" + "-" * 48 + "------OX", Color.BLACK)
# Black a1 turns b1 and ends the game with three discs each (32-32 with the empties).
EVEN = Position.from_board_string("-OX-----" + "-" * 48 + "---OOO--", Color.BLACK)


def run(log: Log, config: ArbiterConfig | None = None) -> list[tuple]:
    return brief(arbitrate(log.obs, config))


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
    assert run(log, ArbiterConfig(start=SOLO)) == [
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
    events = run(log, ArbiterConfig(start=start))
    assert events == [("move", "white", square, flips)]


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
    assert run(log) == [("move", "black", "f5", ("e5",))]


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


def test_record_keeps_times_and_irregularities_as_comments():
    log = Log()
    log.press("white")  # t = 0.2
    log.set(f5="X")
    black_press = log.press("black")
    log.show(5)
    log.move("f4", "white", ("e4",))
    white_press = log.press("white")
    arbiter = Arbiter()
    for o in log.obs:
        arbiter.feed(o)
    record = arbiter.record()
    assert [m.square for m in record.moves] == ["f5", "f4"]
    assert record.moves[0].time == pytest.approx(black_press - 0.2)
    assert record.moves[1].time == pytest.approx(white_press - black_press)
    assert record.moves[0].comment == "forgotten_flip e5"
    assert record.moves[1].comment == ""


def test_overlay_shows_pending_and_wrong_discs_while_the_hand_works():
    log = Log()
    arbiter = Arbiter()
    log.press("white")
    log.set(f5="X")
    for o in log.obs:
        arbiter.feed(o)
    overlay = arbiter.overlay()
    assert overlay.pending == ["e5"] and overlay.wrong == [] and not overlay.irregular
    n = len(log.obs)
    log.set(e5="X", d4="X")
    for o in log.obs[n:]:
        arbiter.feed(o)
    assert arbiter.overlay().pending == [] and arbiter.overlay().wrong == ["d4"]
    n = len(log.obs)
    log.press("black")
    for o in log.obs[n:]:
        arbiter.feed(o)
    overlay = arbiter.overlay()
    assert overlay.irregular and overlay.wrong == ["d4"] and overlay.last_move == "f5"
    # home mode: the players' lights show it at once
    assert plan_overlay(Mode.HOME, overlay, "playing")["d4"].rgb == WRONG


def test_tournament_players_overlay_gives_no_advice():
    log = Log()
    log.press("white")
    log.set(f5="X")
    arbiter = Arbiter(ArbiterConfig(mode=Mode.TOURNAMENT))
    for o in log.obs:
        arbiter.feed(o)
    assert arbiter.overlay().pending == ["e5"]  # the arbiter's view
    assert plan_overlay(Mode.TOURNAMENT, arbiter.overlay(), "playing") == {}


def test_time_going_backwards_is_refused():
    arbiter = Arbiter()
    arbiter.feed(Observation(1.0, board=Position.start().board_string()))
    with pytest.raises(ValueError, match="backwards"):
        arbiter.feed(Observation(0.5, press=Color.WHITE))


@pytest.mark.parametrize("board", ["X" * 63, "Q" + "-" * 63, "-" * 30 + "z" + "-" * 33])
def test_a_bad_board_string_fed_directly_is_refused(board):
    with pytest.raises(ValueError, match="not an 8x8 observation board string"):
        Arbiter().feed(Observation(0.0, board=board))
