"""Whole random legal games of any board size, for simulations, tests and benchmarks.

No record of a 6x6 or 10x10 game is needed to play one on the simulated board: a seeded
random legal game stands in, the same for a seed wherever it is asked for.
"""

from __future__ import annotations

import random

from controller.bitboard import bit_indices
from controller.position import Position
from controller.records.model import GameRecord
from controller.squares import square_name


def random_game(size: int, seed: int) -> GameRecord:
    """A whole random legal game on a ``size`` board, played to its end (passes where forced)."""
    rng = random.Random(seed)
    pos = Position.start(size)
    squares: list[str] = []
    while not pos.is_game_over():
        if not pos.legal_moves():
            pos = pos.pass_turn()
            continue
        sq = rng.choice(bit_indices(pos.legal_moves()))
        squares.append(square_name(sq, size))
        pos = pos.play(sq)
    return GameRecord.from_squares(squares, Position.start(size))
