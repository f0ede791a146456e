"""What the arbiter shows (``views``): the game record with its comments, and the LED
overlay as the hand works and as each mode may show it."""

from __future__ import annotations

import pytest
from arbiter_logs import Log

from controller.arbiter import Arbiter, ArbiterConfig, Mode
from controller.leds.plan import WRONG, plan_overlay


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
