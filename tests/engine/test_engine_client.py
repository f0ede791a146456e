"""The engine client over real pipes: Kaeshi's own engine speaking NBoard and GTP, and
engines that hang, crash, print garbage or answer illegal moves mid-game."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.engine.client import EngineClient, EngineSpec, Game
from controller.engine.process import own_engine_argv
from controller.engine.protocol import (
    ProtocolError,
    final_hints,
    ggf_game,
    parse_gtp_reply,
    parse_nboard_move,
    parse_search_line,
)
from controller.engine.search import Settings, deepen, default_evaluator
from controller.position import Position
from controller.records import read_ggf_text

FAULTS = Path(__file__).with_name("engine_faults.py")


def own(protocol: str, level: int = 2, seconds: float = 5.0) -> EngineClient:
    return EngineClient(EngineSpec(tuple(own_engine_argv(protocol, level)), protocol, level,
                                   seconds))


def faulty(protocol: str, mode: str, after: int, seconds: float = 0.3,
           marker: Path | None = None) -> EngineClient:
    argv = [sys.executable, str(FAULTS), protocol, mode, str(after)]
    if marker is not None:
        argv.append(str(marker))
    return EngineClient(EngineSpec(tuple(argv), protocol, 2, seconds))


OPENING = Game(Position.start(), ("f5", "f6", "e6", "f4"))


def in_process(position: Position, count: int = 1):
    """What the engine answers at level 2 with all the time it wants, searched here."""
    return deepen(position, Settings.for_level(2), lambda: 1e9, count, default_evaluator())


@pytest.mark.parametrize("protocol", ["nboard", "gtp"])
def test_own_engine_plays_a_legal_move_through_a_pipe(protocol):
    client = own(protocol)
    try:
        move = client.choose(OPENING)
        assert move is not None and OPENING.position().is_legal(move.square)
        assert client.name.startswith("Kaeshi") and client.status == "ready"
        # the same answer the search gives in-process: the protocol loses nothing
        expected = in_process(OPENING.position())
        assert move.square == expected.best
        if protocol == "nboard":
            assert move.score == pytest.approx(expected.score, abs=0.01)
    finally:
        client.close()


def test_nboard_hints_score_every_legal_move_as_the_search_does():
    client = own("nboard")
    try:
        hints = client.hints(OPENING, 64)
        pos = OPENING.position()
        assert set(hints) == set(pos.legal_squares())
        searched = in_process(pos, 64).scores
        assert hints == pytest.approx(searched, abs=0.01)
    finally:
        client.close()


def test_nboard_carries_a_handicap_start_and_gtp_says_it_cannot():
    game = Game(Position.handicap(2), ("e3",))  # white moves first in a handicap game
    assert game.start.to_move.value == "white"
    nboard, gtp = own("nboard"), own("gtp")
    try:
        move = nboard.choose(game)
        assert move is not None and game.position().is_legal(move.square)
        assert gtp.choose(game) is None
        assert "handicap" in gtp.note and not gtp.gone and gtp.problem is None
        assert gtp.choose(OPENING) is not None  # the engine itself is fine
    finally:
        nboard.close()
        gtp.close()


def test_set_game_is_a_ggf_game_any_reader_takes():
    text = ggf_game(Position.handicap(1), ["e3"])
    game = read_ggf_text(text)[0]
    assert game.start == Position.handicap(1)
    assert [m.square for m in game.moves] == ["e3"]


@pytest.mark.parametrize("protocol", ["nboard", "gtp"])
@pytest.mark.parametrize("mode,why", [
    ("hang", "did not answer in time"),
    ("crash", "exited with code 139: segmentation fault"),
    ("garbage", "not a move"),
    ("illegal", "not a legal move"),
])
def test_a_misbehaving_engine_costs_its_answers_only(protocol, mode, why, tmp_path):
    marker = tmp_path / "starts"
    client = faulty(protocol, mode, after=1, marker=marker)
    try:
        assert client.choose(OPENING) is not None  # the first request is answered
        began = time.monotonic()
        assert client.choose(OPENING) is None  # then it misbehaves
        assert time.monotonic() - began < 3.0  # bounded: 0.3 s + 1 s grace at most
        assert why in client.problem and client.status == "restarting"
        assert not client.gone
        # started again on the next request, which it answers (its count starts over)
        assert client.choose(OPENING) is not None
        assert marker.read_text().count("started") == 2
        assert client.choose(OPENING) is None  # misbehaves again: now it stays gone
        assert client.gone and client.status == "gone"
        began = time.monotonic()
        assert client.choose(OPENING) is None and client.hints(OPENING) is None
        assert time.monotonic() - began < 0.1  # a gone engine is not waited for
        assert marker.read_text().count("started") == 2
        assert client.describe()["gone"] is True
    finally:
        client.close()


def test_an_engine_that_cannot_start_is_named():
    client = EngineClient(EngineSpec(("/nonexistent/edax", "-nboard"), "nboard", 4, 1.0))
    assert client.choose(OPENING) is None
    assert "cannot start /nonexistent/edax" in client.problem


def test_an_engine_that_never_answers_the_handshake_is_given_up(tmp_path):
    script = tmp_path / "mute.py"
    script.write_text("import time\ntime.sleep(60)\n")
    client = EngineClient(EngineSpec((sys.executable, str(script)), "nboard", 4, 0.2))
    import controller.engine.sessions as mod  # the sessions wait this long to start

    old = mod.START_SECONDS
    mod.START_SECONDS = 0.5
    try:
        assert client.choose(OPENING) is None
        assert "did not start properly" in client.problem
    finally:
        mod.START_SECONDS = old
        client.close()


def test_protocol_lines_parse_as_engines_write_them():
    assert parse_nboard_move("=== F5/1.50/0.2").square == "f5"
    assert parse_nboard_move("=== d6 -1.00 0.0").score == -1.0  # Edax's spacing
    assert parse_nboard_move("=== PA").square is None
    assert parse_search_line("search F5d6C3 (1,3) 0 12 extra") == ("f5", 2.0)
    assert parse_search_line("book E6 -2 30 20") == ("e6", -2.0)
    assert parse_gtp_reply(["=3 D6"]) == (True, "D6")
    assert parse_gtp_reply(["? illegal move"]) == (False, "illegal move")
    for bad in ("=== Z9", "=== ", "=== F5/abc"):
        with pytest.raises(ProtocolError):
            parse_nboard_move(bad)
    with pytest.raises(ProtocolError):
        parse_gtp_reply(["D6"])


def test_an_engine_command_that_cannot_be_split_stops_start_up():
    from controller.service.config import ConfigError, parse_config

    with pytest.raises(ConfigError, match=r"line 2.*engine.command"):
        parse_config('[engine]\ncommand = "/opt/edax -nboard \\"unclosed"\n', "k.toml")


@pytest.mark.parametrize("protocol", ["nboard", "gtp"])
def test_kaeshi_engine_is_the_same_engine_for_a_gui(protocol):
    argv = (sys.executable, "-m", "controller.cli", "engine", "--protocol", protocol,
            "--level", "2")
    client = EngineClient(EngineSpec(argv, protocol, 2, 10.0))
    try:
        move = client.choose(OPENING)
        assert move is not None and move.square == in_process(OPENING.position()).best
    finally:
        client.close()


def test_a_level_too_high_for_the_machine_costs_strength_not_time():
    spec = EngineSpec(tuple(own_engine_argv("nboard", 20, 0.5)), "nboard", 20, 0.5)
    client = EngineClient(spec)
    try:
        assert client.choose(Game(Position.start())) is not None  # started and ready
        began = time.monotonic()
        move = client.choose(OPENING)  # depth 20 in Python would take hours
        assert move is not None and time.monotonic() - began < 1.5 + 0.5
        assert client.status == "ready" and not client.problem
    finally:
        client.close()


DIALECTS = Path(__file__).with_name("dialect_engines.py")


def dialect(name: str, protocol: str) -> EngineClient:
    return EngineClient(EngineSpec((sys.executable, str(DIALECTS), name), protocol, 2, 10.0))


def test_an_ntest_style_engine_is_read_for_its_final_answer_not_a_shallow_line():
    client = dialect("ntest", "nboard")
    truth = in_process(OPENING.position())
    try:
        best = client.hints(OPENING, 1)
        assert best == {truth.best: pytest.approx(truth.score, abs=0.01)}
        assert client.depth == 2  # the depth of the final lines
        every = client.hints(OPENING, 64)
        assert every == pytest.approx(in_process(OPENING.position(), 64).scores, abs=0.01)
        assert not client.problem
    finally:
        client.close()


@pytest.mark.parametrize("name", ["edax-gtp", "refuse-gtp"])
def test_an_edax_style_reg_genmove_falls_back_to_genmove_and_says_so(caplog, name):
    client = dialect(name, "gtp")
    try:
        with caplog.at_level("WARNING", logger="kaeshi.engine"):
            move = client.choose(OPENING)  # reg_genmove answers f4, the last move
        assert move is not None and move.square == in_process(OPENING.position()).best
        assert client.problem is None and client.failures == 0
        assert any("reg_genmove" in r.message and "genmove" in r.message
                   for r in caplog.records)
        later = Game(Position.start(), OPENING.moves + (move.square,))
        again = client.choose(later)  # genmove from now on: no second warning
        assert again is not None and later.position().is_legal(again.square)
        assert sum("reg_genmove" in r.message for r in caplog.records) == 1
    finally:
        client.close()


def test_a_hint_past_its_time_is_a_weaker_answer_not_a_gone_engine(tmp_path):
    client = EngineClient(EngineSpec((sys.executable, str(DIALECTS), "slow"), "nboard", 1,
                                     0.3, grace=0.5))
    try:
        began = time.monotonic()
        hints = client.hints(OPENING, 64)  # the depth-1 lines, then it keeps thinking
        assert time.monotonic() - began < 3.0
        assert set(hints) == set(OPENING.position().legal_squares()) and client.depth == 1
        assert client.problem is None and client.failures == 0 and not client.gone
        # still busy, so it was started afresh: the next request is answered at once
        assert client.choose(OPENING) is not None and client.failures == 0
    finally:
        client.close()


def test_search_lines_rank_by_depth_and_book_lines_outrank_search():
    assert final_hints(["search F5 60 0 1", "search D6 2 0 8", "search C3 1 0 8"]) == (
        {"d6": 2.0, "c3": 1.0}, 8.0)
    assert final_hints(["search F5 3 0 21@98%", "search F5 1 0 21@100%"]) == (
        {"f5": 1.0}, 21.0)
    assert final_hints(["search F5 3 0 30", "book D6 0 12 20"])[0] == {"d6": 0.0}
    assert final_hints(["status thinking"]) == ({}, None)


SQUARES = ["F5", "D6", "C3", "E6", "F4"]


@given(st.lists(st.tuples(st.sampled_from(SQUARES), st.integers(-64, 64),
                          st.integers(1, 30)), min_size=1, max_size=30))
def test_the_final_answer_is_the_deepest_lines_whatever_the_order(lines):
    text = [f"search {sq} {score} 0 {depth}" for sq, score, depth in lines]
    scores, depth = final_hints(["status thinking", *text, "nodestats 12 0.1"])
    top = max(d for _, _, d in lines)
    assert depth == top
    expected = {}
    for sq, score, d in lines:
        if d == top:
            expected[sq.lower()] = float(score)  # the later of equally deep lines
    assert scores == expected
