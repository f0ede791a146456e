"""Whole 6x6 and 10x10 games through the arbiter, every kind of irregularity injected.

The simulator plays a game on a physical board of the game's size and writes the
events a perfect arbiter emits; the arbiter must find exactly those. The games are
random legal games (no record of a 6x6 or 10x10 game is needed to play one).
"""

from __future__ import annotations

import json
from collections import Counter

import pytest

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.bitboard import bit_indices
from controller.events import Event, Irregularity
from controller.observation import Observation
from controller.position import Position
from controller.simulator import SimOptions, random_game, simulate_game
from controller.simulator.table import PRESS_WAIT
from controller.squares import Color, parse_square, square_name


def content(events: list[Event]) -> list[dict]:
    return [{k: v for k, v in e.to_dict().items() if k != "t"} for e in events]


@pytest.mark.parametrize("size", [6, 10])
@pytest.mark.parametrize("clock", [True, False])
def test_whole_games_with_every_irregularity_give_the_simulators_truth(size, clock):
    kinds: Counter[str] = Counter()
    corrected = 0
    games = 6 if size == 6 else 3
    # Misreads only without a clock: with one, a misread on the very frame before a
    # press, of a square the hand had just uncovered, is judged as read on any size.
    noise = 0.0 if clock else 0.03
    for i in range(games):
        sim = simulate_game(random_game(size, 100 + i), SimOptions(
            errors=0.35, seed=700 + i, clock=clock, noise=noise, habits=True))
        events = arbitrate(sim.observations, ArbiterConfig(
            start=Position.start(size), press_wait=PRESS_WAIT))
        assert content(events) == content(sim.truth), f"game {i}: {sim.injected}"
        over = events[-1].to_dict()
        assert over["event"] == "game_over"
        assert over["black"] + over["white"] == size * size  # the empties go to the winner
        for e in events:
            d = e.to_dict()
            if d["event"] == "irregularity":
                kinds[d["kind"]] += 1
            corrected += d["event"] == "corrected"
    clock_only = {Irregularity.WRONG_COLOR, Irregularity.ILLEGAL_PASS, Irregularity.OUT_OF_TURN}
    want = {k.value for k in Irregularity} - (set() if clock else {k.value for k in clock_only})
    assert set(kinds) == want, kinds
    assert corrected > 0 or not clock  # without a clock a fault put right is no event


def test_a_flag_on_a_ten_by_ten_board_names_squares_beyond_h8():
    """The j column and row 10 exist: a forgotten flip is named there."""
    found = set()
    for i in range(4):
        sim = simulate_game(random_game(10, 300 + i), SimOptions(errors=0.4, seed=i))
        for e in arbitrate(sim.observations, ArbiterConfig(start=Position.start(10))):
            d = e.to_dict()
            if d["event"] in ("move", "irregularity"):
                found.update(d.get("squares", []) + [d.get("square") or ""])
    assert any(s[:1] in "ij" or s[1:] == "10" for s in found if s)


def test_the_overlay_and_open_flags_name_squares_of_the_game_board():
    """A forgotten flip on 6x6 lights the squares of the 6x6 board, not of an 8x8 one."""
    pos = Position.start(6)
    assert pos.board_string()[14:16] == "OX"  # c3 white, d3 black: the centre four
    arbiter = Arbiter(ArbiterConfig(start=pos, clock=True))
    t = 0.0

    def feed(board: str | None = None, press: Color | None = None) -> list[Event]:
        nonlocal t
        t += 0.1
        return arbiter.feed(Observation(round(t, 3), board=board, press=press))

    feed(pos.board_string())
    feed(pos.board_string())
    feed(press=Color.WHITE)
    move = pos.legal_squares()[0]
    cells = list(pos.board_string())
    cells[parse_square(move, 6)] = "X"  # the disc put down, its flip forgotten
    feed("".join(cells))
    feed("".join(cells))
    events = feed(press=Color.BLACK)
    assert [e.to_dict().get("kind") for e in events] == [None, "forgotten_flip"]
    want = [square_name(i, 6) for i in bit_indices(pos.flips(move))]
    assert arbiter.overlay().pending == want
    assert arbiter.open_flags()[0]["squares"] == want


def test_a_board_string_of_another_size_is_refused():
    arbiter = Arbiter(ArbiterConfig(start=Position.start(6)))
    with pytest.raises(ValueError, match="6x6"):
        arbiter.feed(Observation(0.1, board=Position.start(8).board_string()))


def test_kaeshi_arbitrate_judges_a_ten_by_ten_log(tmp_path, capsys):
    from controller.cli import main
    from controller.observation import write_observations
    from controller.records import load_games

    sim = simulate_game(random_game(10, 77), SimOptions(errors=0.3, seed=4, clock=True))
    log = tmp_path / "g.jsonl"
    with open(log, "w") as f:
        write_observations(sim.observations, f)
    assert main(["arbitrate", str(log), "--size", "10", "--record", str(tmp_path / "g.ggf")]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [{k: v for k, v in d.items() if k != "t"} for d in lines] == content(sim.truth)
    (rec,) = load_games(tmp_path / "g.ggf")
    assert rec.start.size == 10
    assert main(["arbitrate", str(log)]) == 1  # an 8x8 reading of a 10x10 log: refused
    assert "board string has 100 squares, an 8x8 board has 64" in capsys.readouterr().err
