"""Time as engines know it: the clocks written into NBoard and GTP requests, read back
by Kaeshi's own engine, and the share of the clock one move may use."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.client import EngineSpec, Game
from controller.engine.own import GtpServer, NBoardServer
from controller.engine.protocol import ggf_game, gtp_time_left, gtp_time_settings
from controller.engine.timing import (
    Clock,
    TimeFormatError,
    ggf_time_control,
    move_budget,
    parse_ggf_time_control,
)
from controller.position import Position
from controller.records import read_ggf_text
from controller.squares import Color

OPENING = ("f5", "f6", "e6", "f4", "e3")


@given(st.floats(0, 10_000), st.floats(0, 60), st.integers(0, 60), st.floats(0.1, 600))
def test_a_move_never_gets_more_than_the_level_or_half_the_clock(left, inc, empties, secs):
    budget = move_budget(secs, left, inc, empties)
    assert 0 <= budget <= secs
    assert budget <= 0.5 * left + 0.8 * inc + 1e-9
    assert move_budget(secs, None, inc, empties) == secs  # no clock: the level's time


@given(st.integers(0, 35_999), st.integers(0, 600))
def test_ggf_time_controls_read_back(main, inc):
    assert parse_ggf_time_control(ggf_time_control(main, inc)) == (main, inc)


def test_ggf_time_controls_as_records_write_them():
    assert parse_ggf_time_control("15:00") == (900, 0)
    assert parse_ggf_time_control("20:00//02:00") == (1200, 0)
    assert parse_ggf_time_control("1:00:00/10/") == (3600, 10)
    with pytest.raises(TimeFormatError):
        parse_ggf_time_control("soon")


def test_set_game_carries_the_clocks_and_the_own_engine_reads_them_back():
    clock = Clock(main=600, increment=5, black=580.5, white=12.25)
    text = ggf_game(Position.start(), list(OPENING), clock)
    record = read_ggf_text(text)[0]
    assert record.time_control == "10:00/0:05/"
    server = NBoardServer(lambda line: None)
    server.handle(f"set game {text}")
    assert server.clocks.left[Color.BLACK] == pytest.approx(580.5, abs=0.02)
    assert server.clocks.left[Color.WHITE] == pytest.approx(12.25, abs=0.02)
    # white to move with 12 s left and 5 s a move: its share of the 12 s and most of
    # the increment, the same the client allows for
    pos = Game(Position.start(), OPENING).position()
    spec = EngineSpec(("engine",), seconds=5.0)
    budget = spec.budget(Game(Position.start(), OPENING, clock))
    assert budget == pytest.approx(server.clocks.budget(5.0, pos), abs=0.01)
    assert budget == pytest.approx(12.25 / 28 + 0.8 * 5, abs=0.01)


def test_gtp_clocks_are_told_and_read():
    assert gtp_time_settings(600.4) == "time_settings 600 0 0"
    assert gtp_time_left(Color.WHITE, 12.9) == "time_left white 12 0"
    out: list[str] = []
    server = GtpServer(out.append)
    for line in ("time_settings 600 0 0", "time_left white 12 0", "time_left black x 0"):
        server.handle(line)
    assert out[:2] == ["=\n\n", "=\n\n"] and out[2].startswith("?")
    assert server.clocks.left == {Color.BLACK: 600.0, Color.WHITE: 12.0}
    assert "time_left" in GtpServer.COMMANDS


def test_a_game_without_a_clock_is_told_one_that_gives_the_time_per_move():
    from controller.engine.client import EngineClient

    client = EngineClient(EngineSpec(("engine",), seconds=2.0))
    game = Game(Position.start(), OPENING)
    told = client.told(game)
    assert told.clock is not None and told.moves == game.moves
    server = NBoardServer(lambda line: None)
    server.handle(f"set game {ggf_game(told.start, list(told.moves), told.clock)}")
    assert server.clocks.budget(5.0, game.position()) == pytest.approx(2.0, abs=0.01)
    clocked = Game(Position.start(), OPENING, Clock(600, 0, 30, 40))
    assert client.told(clocked) is clocked  # a real clock is told as it is


@given(st.text(max_size=30))
def test_a_time_control_is_read_or_refused_with_a_reason(text):
    try:
        main, inc = parse_ggf_time_control(text)
    except TimeFormatError as exc:
        assert "not a clock time" in str(exc)
    else:
        assert main >= 0 and inc >= 0
