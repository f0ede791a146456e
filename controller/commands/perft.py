"""``kaeshi perft``: count game-tree leaves, to check the rules engine."""

from __future__ import annotations

import argparse

from controller.boardsize import SIZES, STANDARD
from controller.perft import perft
from controller.position import Position
from controller.squares import Color


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("depth", type=int)
    p.add_argument("--board", help="board string of the --size board, a1 first "
                   "(default: the centre-four start)")
    p.add_argument("--to-move", default="X", help="side to move with --board: X or O")
    p.add_argument("--size", type=int, default=STANDARD, choices=SIZES,
                   help="board size (default: %(default)s)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.depth < 0:
        raise ValueError(f"depth must be 0 or more, not {args.depth}")
    if args.board:
        position = Position.from_board_string(args.board, Color.parse(args.to_move), args.size)
    else:
        position = Position.start(args.size)
    print(perft(position, args.depth))
    return 0
