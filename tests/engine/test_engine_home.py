"""Home play against the engine on the simulated board: the engine's move is shown
(square, then discs to turn), the simulated player carries it out, the arbiter judges
that like any move, and the clock runs for both sides."""

from __future__ import annotations

import random

import pytest

from controller.arbiter import Arbiter, ArbiterConfig
from controller.arbiter.config import Mode
from controller.clock import GameClock, TimeControl
from controller.engine.client import EngineClient, EngineSpec
from controller.engine.home import (
    PUT,
    TURN,
    EngineRefused,
    Hints,
    Instruction,
    engine_game,
    may_consult,
    require_home,
)
from controller.engine.process import own_engine_argv
from controller.engine.protocol import EngineMove
from controller.position import Position
from controller.simulator.table import Table
from controller.squares import Color, parse_square, squares_of


class Board:
    """The simulated table, an arbiter and a clock fed from it as a service would."""

    def __init__(self, start: Position, seed: int) -> None:
        self.rng = random.Random(seed)
        self.table = Table(start.board_string(), self.rng, hand=True, noise=0.0)
        self.arbiter = Arbiter(ArbiterConfig(mode=Mode.HOME, start=start, clock=True))
        self.clock = GameClock(TimeControl(600.0, 0.0, 0.0))
        self.events: list[dict] = []
        self._fed = 0

    def feed(self) -> list[dict]:
        new = []
        for obs in self.table.observations[self._fed:]:
            if obs.press is not None:
                self.clock.press(obs.press, obs.t)
            new.extend(e.to_dict() for e in self.arbiter.feed(obs))
        self._fed = len(self.table.observations)
        self.events.extend(new)
        return new

    def put_and_turn(self, color: Color, square: str, flips: list[str],
                     forget: str | None = None) -> None:
        self.table.touch(parse_square(square), color.symbol)
        for sq in flips:
            if sq != forget:
                self.table.touch(parse_square(sq), color.symbol)
        self.table.retreat()


def play(client: EngineClient, start: Position, engine: Color, forget_on: int | None,
         seed: int = 7) -> tuple[Board, list[str], list[dict]]:
    """A whole game: the engine's side carried out from its instructions, the other side
    by a player choosing at random; on the engine's move number ``forget_on`` the player
    leaves one disc unturned, presses, then turns it when the arbiter flags it."""
    b = Board(start, seed)
    b.table.still(3)
    b.table.press(start.to_move.opponent)  # the opponent's press starts the first clock
    b.feed()
    engine_moves: list[str] = []
    flagged: list[dict] = []
    while not b.arbiter.game_over:
        pos = b.arbiter.position
        me = pos.to_move
        b.table.think()
        if not pos.legal_moves():
            b.table.press(me)
            b.feed()
            continue
        if me is engine:
            move = client.choose(engine_game(start, b.arbiter.moves, pos))
            assert move is not None, client.problem
            ins = Instruction.of(pos, move)
            # first the square to put the disc on, lit; nothing else
            assert ins.step(b.table.board()) == ("put", [move.square], [])
            assert ins.plan(b.table.board())[move.square].rgb == PUT
            b.table.touch(parse_square(move.square), me.symbol)
            # then the discs to turn, lit
            stage, left, wrong = ins.step(b.table.board())
            assert (stage, left, wrong) == ("turn", list(ins.flips), [])
            assert {sq for sq, c in ins.plan(b.table.board()).items() if c.rgb == TURN} \
                == set(ins.flips)
            engine_moves.append(move.square)
            forget = ins.flips[-1] if len(engine_moves) == forget_on else None
            for sq in ins.flips:
                if sq != forget:
                    b.table.touch(parse_square(sq), me.symbol)
            b.table.retreat()
            if forget is not None:
                assert ins.step(b.table.board()) == ("turn", [forget], [])
            else:
                assert ins.step(b.table.board())[0] == "press"
            b.table.press(me)
            new = b.feed()
            if forget is not None:
                flagged = [e for e in new if e["event"] == "irregularity"]
                b.table.still(2)
                b.table.touch(parse_square(forget), me.symbol)  # put right, as asked
                b.table.retreat()
                flagged += [e for e in b.feed() if e["event"] == "corrected"]
        else:
            sq = b.rng.choice(pos.legal_squares())
            b.put_and_turn(me, sq, squares_of(pos.flips(sq)))
            b.table.press(me)
            b.feed()
    return b, engine_moves, flagged


@pytest.fixture(scope="module")
def engine():
    client = EngineClient(EngineSpec(tuple(own_engine_argv("nboard", 1)), "nboard", 1, 20.0))
    yield client
    client.close()


def test_a_whole_game_against_the_engine_with_one_forgotten_flip(engine):
    b, engine_moves, flagged = play(engine, Position.start(), Color.WHITE, forget_on=5)
    over = [e for e in b.events if e["event"] == "game_over"]
    assert len(over) == 1
    # every engine move was carried out as instructed and judged a move of white's
    played = [e["square"] for e in b.events if e["event"] == "move" and e["player"] == "white"]
    assert played == engine_moves and len(engine_moves) >= 20
    # the one forgotten flip: caught at the press, then put right
    assert [(e["event"], e.get("kind"), e["squares"]) for e in flagged] == [
        ("irregularity", "forgotten_flip", [flagged[0]["squares"][0]]),
        ("corrected", "forgotten_flip", [flagged[0]["squares"][0]]),
    ]
    assert flagged[0]["player"] == "white"
    assert sum(e["event"] == "irregularity" for e in b.events) == 1
    # the game ends as the rules say for the position reached
    final = b.arbiter.position
    black, white = final.final_score()
    assert (over[0]["black"], over[0]["white"]) == (black, white)
    # the clock ran for both sides
    t = b.table.t
    assert b.clock.remaining(Color.BLACK, t) < 600.0
    assert b.clock.remaining(Color.WHITE, t) < 600.0


def test_a_handicap_game_against_the_engine(engine):
    start = Position.handicap(2)  # black holds a1 and h8; white (the engine) moves first
    b, engine_moves, _ = play(engine, start, Color.WHITE, forget_on=None, seed=11)
    assert b.arbiter.game_over
    first = next(e for e in b.events if e["event"] == "move")
    assert first["player"] == "white" and first["square"] == engine_moves[0]
    assert not any(e["event"] == "irregularity" for e in b.events)
    assert b.arbiter.record().start == start


def test_a_disc_on_the_wrong_square_is_shown():
    pos = Position.start()
    ins = Instruction.of(pos, EngineMove("f5", 1.0))
    board = list(pos.board_string())
    board[parse_square("d3")] = "X"  # the player put the engine's disc on d3
    stage, squares, wrong = ins.step("".join(board))
    assert (stage, squares, wrong) == ("put", ["f5"], ["d3"])
    assert ins.plan("".join(board))["d3"].rgb == (255, 0, 0)


def test_hints_light_the_best_move_or_a_heat_map():
    hints = Hints(Color.BLACK, {"d3": -1.0, "c4": 2.0, "f5": 0.5})
    assert hints.best == "c4"
    assert list(hints.plan(heat=False)) == ["c4"]
    heat = hints.plan(heat=True)
    assert heat["c4"].rgb == (255, 40, 0) and heat["d3"].rgb == (0, 60, 255)
    assert heat["d3"].rgb[0] < heat["f5"].rgb[0] < heat["c4"].rgb[0]
    assert set(heat) == {"d3", "c4", "f5"}


def test_only_home_mode_may_consult_the_engine():
    assert may_consult("home") and may_consult(Mode.HOME)
    for mode in ("tournament", Mode.TOURNAMENT, "record"):
        assert not may_consult(mode)
        with pytest.raises(EngineRefused, match="rule 21"):
            require_home(mode)
