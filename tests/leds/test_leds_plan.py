"""What lights up per mode, from a real arbiter's overlay."""

from __future__ import annotations

import pytest

from controller.arbiter import Arbiter, ArbiterConfig, Mode, Overlay
from controller.hall.messages import LedPattern
from controller.leds import LAST_MOVE, LEGAL, PENDING, STATUS, WRONG, LedCell, plan_overlay
from controller.leds.plan import pattern_level
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color, parse_square

START = Position.start().board_string()


def put(board: str, **squares: str) -> str:
    cells = list(board)
    for sq, ch in squares.items():
        cells[parse_square(sq)] = ch
    return "".join(cells)


def forgotten_flip(mode: Mode) -> Arbiter:
    """Black plays f5 but leaves e5 white, and presses the clock."""
    arb = Arbiter(ArbiterConfig(mode=mode, clock=True))
    for obs in (
        Observation(0.0, board=START),
        Observation(0.1, board=START),
        Observation(0.5, press=Color.WHITE),
    ):
        arb.feed(obs)
    board = put(START, f5="X")
    for t in (2.0, 2.1):
        arb.feed(Observation(t, board=board))
    arb.feed(Observation(3.0, press=Color.BLACK))
    return arb


def test_leds_home_shows_last_move_and_discs_to_turn() -> None:
    arb = forgotten_flip(Mode.HOME)
    overlay = arb.overlay()
    assert overlay.pending == ["e5"] and overlay.last_move == "f5"
    plan = plan_overlay(Mode.HOME, overlay, "playing", None)
    assert plan["e5"] == LedCell(PENDING, LedPattern.SLOW_BLINK)
    assert all(cell.rgb != LEGAL for cell in plan.values())
    assert plan["f5"] == LedCell(LAST_MOVE, LedPattern.STEADY)
    assert set(plan) == {"e5", "f5"}


@pytest.mark.parametrize("mode", [Mode.TOURNAMENT, Mode.RECORD, "tournament", "record"])
def test_leds_tournament_and_record_show_players_nothing(mode: object) -> None:
    arb = forgotten_flip(Mode.TOURNAMENT)
    overlay = arb.overlay()
    assert overlay.pending  # there is something a player could be told ...
    legal = arb.position.legal_squares()
    for state in ("playing", "paused", "sensor_lost", "game_over"):
        assert plan_overlay(mode, overlay, state, legal) == {}  # ... and nothing is shown


def test_leds_arbiter_audience_sees_flags_in_tournament_not_in_record() -> None:
    overlay = forgotten_flip(Mode.TOURNAMENT).overlay()
    plan = plan_overlay(Mode.TOURNAMENT, overlay, "playing", ["c4"], audience="arbiter")
    assert plan["e5"].rgb == PENDING
    assert "c4" not in plan  # legal moves are for home players only
    assert plan_overlay(Mode.RECORD, overlay, "playing", None, audience="arbiter") == {}


def test_leds_legal_moves_only_on_request_and_when_settled() -> None:
    settled = Overlay(last_move="f5", pending=[], wrong=[])
    legal = ["d6", "f4", "f6"]
    assert not any(c.rgb == LEGAL for c in plan_overlay("home", settled, "playing").values())
    plan = plan_overlay("home", settled, "playing", legal)
    assert {sq for sq, c in plan.items() if c.rgb == LEGAL} == set(legal)
    assert plan["d6"].pattern is LedPattern.BREATHE
    busy = Overlay(last_move="f5", pending=["e5"], wrong=[])
    assert not any(c.rgb == LEGAL for c in plan_overlay("home", busy, "playing", legal).values())


def test_leds_more_urgent_meaning_wins_a_square() -> None:
    overlay = Overlay(last_move="d3", pending=["d3", "d4"], wrong=["d4"])
    plan = plan_overlay("home", overlay, "playing", None)
    assert plan["d3"] == LedCell(PENDING, LedPattern.SLOW_BLINK)
    assert plan["d4"] == LedCell(WRONG, LedPattern.FAST_BLINK)


def test_leds_home_board_shows_a_lost_sensor_on_its_corners() -> None:
    plan = plan_overlay("home", None, "sensor_lost")
    assert set(plan) == {"a1", "h1", "a8", "h8"}
    assert all(c == LedCell(STATUS, LedPattern.BREATHE) for c in plan.values())
    assert plan_overlay("home", None, "playing") == {}


def test_leds_unknown_mode_is_named() -> None:
    with pytest.raises(ValueError, match="unknown mode 'blitz'"):
        plan_overlay("blitz", None, "playing")


def test_leds_patterns_run_at_their_rates() -> None:
    assert pattern_level(LedPattern.STEADY, 12.3) == 1.0
    slow = [pattern_level(LedPattern.SLOW_BLINK, k / 10) for k in range(10)]
    assert slow == [1.0] * 5 + [0.0] * 5
    fast = [pattern_level(LedPattern.FAST_BLINK, k / 16) for k in range(16)]
    assert fast == ([1.0] * 2 + [0.0] * 2) * 4
    breathe = [pattern_level(LedPattern.BREATHE, k / 10) for k in range(20)]
    assert min(breathe) > 0 and max(breathe) == pytest.approx(1.0)
    assert breathe[10] > breathe[5] > breathe[0]
