"""Home play against an engine: what the player is shown, and when the engine may be asked.

Pure: the engine's answer comes in as an :class:`EngineMove`, the board as a board
string; what goes out is an instruction (the square to put a disc on, then the
discs to turn) and its LED plan. The arbiter still judges the player's execution of
the engine's move like any other move, so a disc on the wrong square or a forgotten
flip is flagged the usual way; this module only adds the guidance.

Rule 21 forbids advice during a tournament game, so :func:`may_consult` is the one
gate every engine request of a live game goes through: only ``home`` mode passes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.engine.client import Game
from controller.engine.protocol import EngineMove
from controller.hall.messages import LedPattern
from controller.leds.plan import LedCell, Plan
from controller.position import IllegalMoveError, Position
from controller.records.model import Move
from controller.squares import Color, parse_square, square_name, squares_of

#: The engine's move: where to put its disc, then the discs to turn.
PUT: tuple[int, int, int] = (255, 255, 255)
TURN: tuple[int, int, int] = (255, 150, 0)
WRONG: tuple[int, int, int] = (255, 0, 0)
#: Hint heat map: from a bad move (cold) to the best one (hot).
COLD: tuple[int, int, int] = (0, 60, 255)
HOT: tuple[int, int, int] = (255, 40, 0)


class EngineRefused(ValueError):
    """The engine may not be consulted now (a tournament game, or no engine set up)."""


def may_consult(mode: object) -> bool:
    """Only a home game may ask an engine anything (rule 21: no advice in a tournament)."""
    return str(getattr(mode, "value", mode)) == "home"


def require_home(mode: object) -> None:
    if not may_consult(mode):
        raise EngineRefused(f"the engine is never consulted in {getattr(mode, 'value', mode)} "
                            "mode (rule 21: no advice during a game)")


def engine_game(start: Position, moves: list[Move], position: Position) -> Game:
    """What to ask the engine about: the moves from the start while they replay to the
    board as it stands; otherwise (a fault left on the board changed it) the position
    alone, as a set-up start."""
    squares = tuple(m.square for m in moves)
    game = Game(start, squares)
    try:
        if game.position() == position:
            return game
    except IllegalMoveError:
        pass
    return Game(position, ())


@dataclass(frozen=True)
class Instruction:
    """The engine's move as the player must carry it out on the board."""

    player: Color
    square: str | None  # None: the engine passes (press its clock)
    flips: tuple[str, ...] = ()
    score: float | None = None
    before: str = ""  # the board (``-XO``) the move is played on

    @classmethod
    def of(cls, position: Position, move: EngineMove) -> Instruction:
        flips = () if move.square is None else tuple(
            squares_of(position.flips(move.square)))
        return cls(position.to_move, move.square, flips, move.score, position.board_string())

    def step(self, board: str) -> tuple[str, list[str], list[str]]:
        """Where the player is, on ``board`` as read now: ``("put", [square], wrong)``,
        ``("turn", [discs left], wrong)``, ``("press", [], wrong)`` — ``wrong`` lists new
        discs of the engine's colour on other squares than its move."""
        mine = self.player.symbol
        wrong = [sq for sq in _new_discs(self.before, board, mine)
                 if sq != self.square]
        if self.square is None:
            return "press", [], wrong
        if board[parse_square(self.square)].upper() != mine:
            return "put", [self.square], wrong
        left = [sq for sq in self.flips if board[parse_square(sq)].upper() != mine]
        return ("turn" if left else "press"), left, wrong

    def plan(self, board: str) -> Plan:
        """The LEDs for the instruction: the square to put, then the discs still to turn."""
        stage, squares, wrong = self.step(board)
        plan: Plan = {}
        for sq in squares:
            plan[sq] = LedCell(PUT, LedPattern.BREATHE) if stage == "put" else \
                LedCell(TURN, LedPattern.SLOW_BLINK)
        for sq in wrong:
            plan[sq] = LedCell(WRONG, LedPattern.FAST_BLINK)
        return plan

    def to_json(self, board: str | None = None, faulty: str = "") -> dict[str, Any]:
        """The instruction, and with ``board`` where the player is and its one text;
        ``faulty``: the arbiter's instruction while the move is being put right."""
        out: dict[str, Any] = {"player": self.player.value, "square": self.square,
                               "flips": list(self.flips), "score": self.score}
        if board is not None:
            stage, squares, wrong = self.step(board)
            if faulty:
                stage = "faulty"
            out.update(stage=stage, squares=squares, wrong=wrong,
                       text=self.text(stage, squares, wrong, faulty))
        return out

    def text(self, stage: str, squares: list[str], wrong: list[str], faulty: str = "") -> str:
        """The engine move's flow in words, one text per stage: shown (put, then turn),
        carried out (press), faulty (what to fix), done."""
        me, cap = self.player.value, self.player.value.capitalize()
        head = f"Engine ({cap}): "
        if stage == "faulty":
            return f"The engine's move {self.square or 'pass'} was not carried out as shown. " \
                   + faulty
        if stage == "done":
            return f"{head}played {self.square or 'a pass'}."
        if self.square is None:
            return f"{head}passes: press {cap}'s clock."
        off = ""
        if wrong:
            many = "s" if len(wrong) > 1 else ""
            off = f"take the {me} disc{many} off {' and '.join(wrong)}: the move is " \
                  f"{self.square}. "
        if stage == "put":
            turn = f", then turn {_and(list(self.flips))} to {me}" if self.flips else ""
            return f"{head}{off}put a {me} disc on {self.square}{turn}, then press {cap}'s clock."
        if stage == "turn":
            return f"{head}{off}turn {_and(squares)} to {me}, then press {cap}'s clock."
        return f"{head}{off}{self.square} is on the board: press {cap}'s clock."


def _and(squares: list[str]) -> str:
    if len(squares) <= 1:
        return "".join(squares)
    return ", ".join(squares[:-1]) + " and " + squares[-1]


def _new_discs(before: str, board: str, mine: str) -> list[str]:
    return [square_name(i) for i, (a, b) in enumerate(zip(before, board, strict=False))
            if a == "-" and b.upper() == mine]


@dataclass(frozen=True)
class Hints:
    """Scores of the legal moves for the side to move (None where the engine gives none)."""

    player: Color
    scores: dict[str, float | None] = field(default_factory=dict)

    @property
    def best(self) -> str | None:
        scored = [(s, sq) for sq, s in self.scores.items() if s is not None]
        if scored:
            return max(scored)[1]
        return next(iter(self.scores), None)

    def plan(self, heat: bool) -> Plan:
        """The best move alone, or (``heat``) every scored move coloured from cold to hot."""
        best = self.best
        if not heat or best is None:
            return {} if best is None else {best: LedCell(HOT, LedPattern.BREATHE)}
        scored = {sq: s for sq, s in self.scores.items() if s is not None}
        if not scored:
            return {best: LedCell(HOT, LedPattern.BREATHE)}
        lo, hi = min(scored.values()), max(scored.values())
        plan: Plan = {}
        for sq, s in scored.items():
            x = 1.0 if hi == lo else (s - lo) / (hi - lo)
            rgb = tuple(round(c + (h - c) * x) for c, h in zip(COLD, HOT, strict=True))
            plan[sq] = LedCell(rgb, LedPattern.STEADY)  # type: ignore[arg-type]
        return plan

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player.value, "best": self.best,
                "scores": dict(sorted(self.scores.items(),
                                      key=lambda kv: -(kv[1] if kv[1] is not None else -99)))}
