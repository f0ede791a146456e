"""The engine's lights over the overlay: over legal moves, under the arbiter's flags."""

from __future__ import annotations

from controller.engine.home import PUT, TURN
from controller.engine.home import WRONG as ENGINE_WRONG
from controller.hall.messages import LedPattern
from controller.leds.plan import LAST_MOVE, LEGAL, PENDING, WRONG, LedCell, with_engine


def test_the_engine_wins_over_legal_and_last_move_marks_and_loses_to_a_flag() -> None:
    plan = {"d3": LedCell(LEGAL, LedPattern.BREATHE), "c4": LedCell(LEGAL, LedPattern.BREATHE),
            "f5": LedCell(LAST_MOVE), "e4": LedCell(PENDING, LedPattern.SLOW_BLINK),
            "a1": LedCell(WRONG, LedPattern.FAST_BLINK)}
    engine = {"d3": LedCell(PUT, LedPattern.BREATHE), "f5": LedCell(TURN, LedPattern.SLOW_BLINK),
              "e4": LedCell(TURN, LedPattern.SLOW_BLINK),
              "b2": LedCell(ENGINE_WRONG, LedPattern.FAST_BLINK)}
    out = with_engine(plan, engine)
    assert out["d3"].rgb == PUT and out["f5"].rgb == TURN and out["b2"].rgb == ENGINE_WRONG
    assert out["c4"].rgb == LEGAL  # a legal move the engine does not name keeps its mark
    assert out["e4"].rgb == PENDING and out["a1"].rgb == WRONG  # the arbiter's flags win
    assert with_engine(plan, {}) == plan
