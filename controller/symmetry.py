"""The eight symmetries of the square board, for positions, moves and transcripts.

Game databases store every game turned so that it opens with f5; photos of a board
come in any orientation; perft searches one move per symmetry class. All of them
use the same eight transforms, numbered:

0 identity, 1 rotate 90° clockwise, 2 rotate 180°, 3 rotate 90° anticlockwise,
4 mirror left-right, 5 mirror top-bottom, 6 transpose (a1-h8 diagonal),
7 anti-transpose (h1-a8 diagonal).
"""

from __future__ import annotations

from functools import cache

from controller.bitboard import bit_indices
from controller.boardsize import STANDARD
from controller.position import Position
from controller.squares import parse_square, square_name

TRANSFORMS = range(8)
NAMES = (
    "identity",
    "rotate90",
    "rotate180",
    "rotate270",
    "mirror",
    "flip",
    "transpose",
    "antitranspose",
)


def transform_rc(row: int, col: int, t: int, size: int = STANDARD) -> tuple[int, int]:
    n = size - 1
    match t:
        case 0:
            return row, col
        case 1:
            return col, n - row
        case 2:
            return n - row, n - col
        case 3:
            return n - col, row
        case 4:
            return row, n - col
        case 5:
            return n - row, col
        case 6:
            return col, row
        case 7:
            return n - col, n - row
    raise ValueError(f"no symmetry number {t} (0-7)")


@cache
def square_table(t: int, size: int = STANDARD) -> tuple[int, ...]:
    """``table[i]`` is where square ``i`` goes under transform ``t``."""
    out = []
    for i in range(size * size):
        r, c = transform_rc(*divmod(i, size), t, size)
        out.append(r * size + c)
    return tuple(out)


#: ``INVERSE[t]`` undoes transform ``t``: the rotations by 90° undo each other,
#: every other symmetry undoes itself.
INVERSE = (0, 3, 2, 1, 4, 5, 6, 7)


def transform_square(index: int, t: int, size: int = STANDARD) -> int:
    return square_table(t, size)[index]


def transform_mask(mask: int, t: int, size: int = STANDARD) -> int:
    table = square_table(t, size)
    out = 0
    for i in bit_indices(mask):
        out |= 1 << table[i]
    return out


def transform_position(position: Position, t: int) -> Position:
    s = position.size
    return Position(
        transform_mask(position.black, t, s),
        transform_mask(position.white, t, s),
        position.to_move,
        s,
    )


def transform_board_string(board: str, t: int, size: int = STANDARD) -> str:
    """Apply a symmetry to any board string (including ``?``, ``x``, ``o``)."""
    table = square_table(t, size)
    out = [""] * (size * size)
    for i, ch in enumerate(board):
        out[table[i]] = ch
    return "".join(out)


def transform_moves(moves: list[str], t: int, size: int = STANDARD) -> list[str]:
    """Apply a symmetry to a move list; passes (``pass``/``PA``) stay passes."""
    out = []
    for m in moves:
        if m.lower() in ("pass", "pa", "--"):
            out.append(m)
        else:
            out.append(square_name(transform_square(parse_square(m, size), t, size), size))
    return out


def all_positions(position: Position) -> list[Position]:
    """The position under each of the eight symmetries, in transform order."""
    return [transform_position(position, t) for t in TRANSFORMS]


def transforms_fixing(position: Position) -> list[int]:
    """The symmetries that leave ``position`` unchanged (always includes identity)."""
    return [t for t in TRANSFORMS if transform_position(position, t) == position]


def normalize_to_f5(moves: list[str], start: Position | None = None) -> tuple[list[str], int]:
    """Turn a game from the standard start so that it opens with f5, as databases do.

    Returns the turned moves and the transform used. Only symmetries that fix the
    start position are allowed, so the turned game is the same game.
    """
    start = start or Position.start()
    if not moves:
        return [], 0
    target = parse_square("f5", start.size)
    first = parse_square(moves[0], start.size)
    for t in transforms_fixing(start):
        if transform_square(first, t, start.size) == target:
            return transform_moves(moves, t, start.size), t
    raise ValueError(f"a game opening with {moves[0]} cannot be turned to open with f5")
