"""The own engine's strength: its levels against each other, the learned evaluation
against the square weights it replaced, and the discs each level loses against an
exact solve with 14 empties.

Games start from the position after 8 plies of WTHOR games that the evaluation was
not trained on (every tenth game of the file is held out, see
``training/train_patterns.py``), each played twice with colours swapped; moves get
:data:`SECONDS` of wall time each, in this process, as the engine would use them.
The disc-loss figure asks each level for its move at the default time per move and
compares the exact value of that move with the best move's.
"""

from __future__ import annotations

import os
import statistics
import time
from pathlib import Path

from controller.engine.own import DEFAULT_SECONDS, timed_analyse
from controller.engine.patterns import load_evaluator
from controller.engine.search import (
    LEVELS,
    Evaluator,
    Searcher,
    Settings,
    final_margin,
    square_evaluation,
)
from controller.position import Position
from controller.records import load_games

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KAESHI_SHARED", ROOT.parent / "shared"))
WTHOR = SHARED / "data" / "games" / "wthor" / "WTH_2001.wtb"
#: Wall time per move in the games between levels.
SECONDS = 1.0
OPENINGS = 4
OPENING_PLIES = 8
LOSS_POSITIONS = 10


class Side:
    """A player: a level, an evaluation and a time per move."""

    def __init__(self, name: str, settings: Settings, evaluate: Evaluator,
                 seconds: float = SECONDS) -> None:
        self.name, self.settings, self.evaluate, self.seconds = name, settings, evaluate, seconds

    def move(self, pos: Position) -> str | None:
        return timed_analyse(pos, self.settings, self.seconds, evaluate=self.evaluate).best


def play(black: Side, white: Side, start: Position) -> int:
    """Black's final margin (empties to the winner)."""
    pos = start
    while not pos.is_game_over():
        if not pos.legal_moves():
            pos = pos.pass_turn()
            continue
        side = black if pos.to_move.value == "black" else white
        square = side.move(pos)
        assert square is not None
        pos = pos.play(square)
    return final_margin(pos.black, pos.white)


def match(a: Side, b: Side, starts: list[Position]) -> tuple[float, float]:
    """``a``'s score (win 1, draw 0.5) share and mean disc margin over the games."""
    points, margins = 0.0, []
    for start in starts:
        for a_black in (True, False):
            m = play(a, b, start) if a_black else -play(b, a, start)
            margins.append(m)
            points += 1.0 if m > 0 else 0.5 if m == 0 else 0.0
    return points / len(margins), statistics.mean(margins)


def held_out_games() -> list:
    return load_games(WTHOR)[::10]


def main() -> None:
    if not WTHOR.is_file():
        print(f"skipped: {WTHOR} not found (set KAESHI_SHARED)")
        return
    learned = load_evaluator()
    if learned is None:
        print("skipped: no pattern weights shipped")
        return
    games = held_out_games()
    starts = [g.positions()[OPENING_PLIES] for g in games[:OPENINGS]]
    n = len(starts) * 2
    sides = [Side(s.name, s, learned) for s in LEVELS]
    for weaker, stronger in zip(sides, sides[1:], strict=False):
        t0 = time.perf_counter()
        share, margin = match(stronger, weaker, starts)
        print(f"{stronger.name} against {weaker.name}, {n} games at {SECONDS:g} s a move: "
              f"scores {share:.0%}, {margin:+.1f} discs a game ({time.perf_counter() - t0:.0f} s)")
    default = LEVELS[3]
    share, margin = match(Side("patterns", default, learned),
                          Side("squares", default, square_evaluation), starts)
    print(f"{default.name} with the learned evaluation against the same level with square "
          f"weights, {n} games: scores {share:.0%}, {margin:+.1f} discs a game")
    # disc loss against an exact solve, 14 empties, at the default time per move
    positions = []
    for g in games:
        for pos in g.positions():
            if 64 - (pos.black | pos.white).bit_count() == 14 and pos.legal_moves().bit_count() > 1:
                positions.append(pos)
                break
        if len(positions) == LOSS_POSITIONS:
            break
    t0 = time.perf_counter()
    exact = [Searcher(Settings(1, 64)).analyse(pos, 64).scores for pos in positions]
    solve = time.perf_counter() - t0
    for level in LEVELS:
        side = Side(level.name, level, learned, DEFAULT_SECONDS)
        losses, took = [], []
        for pos, scores in zip(positions, exact, strict=True):
            t0 = time.perf_counter()
            square = side.move(pos)
            took.append(time.perf_counter() - t0)
            losses.append(max(scores.values()) - scores[square])
        print(f"{level.name}: loses {statistics.mean(losses):.2f} discs a move against an "
              f"exact solve, 14 empties, {len(positions)} positions (best move in "
              f"{sum(x == 0 for x in losses)}); {max(took):.2f} s at most a move "
              f"({DEFAULT_SECONDS:g} s allowed)")
    print(f"(exact solves of every move: {solve:.0f} s)")
