"""Square names and board strings, shared by every part of Kaeshi.

Columns are letters from ``a`` left to right, rows are numbers from ``1`` top to
bottom, exactly as printed on tournament boards. Square index ``i`` is
``row * size + col`` with ``a1 == 0``; on the bitboards, square ``i`` is bit ``i``.
A board string lists the squares in index order (a1, b1, ... h1, a2, ... h8).
"""

from __future__ import annotations

from enum import StrEnum

from controller.bitboard import bit_indices
from controller.boardsize import COLUMN_LETTERS as COLUMNS
from controller.boardsize import SIZES as SIZES
from controller.boardsize import STANDARD, BoardSizeError, a_label
from controller.boardsize import check_size as _check_size

#: Characters a sensor may report. ``x``/``o`` are discs off their square's centre.
OBSERVATION_ALPHABET = "-XO?xo"
#: Characters of a definite position (no unknown, no shifted disc).
POSITION_ALPHABET = "-XO"


class BoardStringError(ValueError):
    """A board string or square name that cannot be read; the message names the culprit."""


class Color(StrEnum):
    """A side; its value is the name used in events and records."""

    BLACK = "black"
    WHITE = "white"

    @property
    def opponent(self) -> Color:
        return Color.WHITE if self is Color.BLACK else Color.BLACK

    @property
    def symbol(self) -> str:
        """The board-string character of a disc of this colour."""
        return "X" if self is Color.BLACK else "O"

    @classmethod
    def parse(cls, text: str) -> Color:
        """Accept the spellings users type: ``X``/``O``, ``B``/``W``, ``black``/``white``."""
        t = text.strip().lower()
        if t in ("x", "b", "black", "*"):
            return cls.BLACK
        if t in ("o", "w", "white"):
            return cls.WHITE
        raise BoardStringError(f"not a colour: {text!r} (expected X/O, B/W or black/white)")


def check_size(size: int) -> int:
    """``size`` if Kaeshi plays it; a :class:`BoardStringError` naming it otherwise."""
    try:
        return _check_size(size)
    except BoardSizeError as e:
        raise BoardStringError(str(e)) from None


def square_name(index: int, size: int = STANDARD) -> str:
    if not 0 <= index < size * size:
        raise BoardStringError(f"square index {index} is off {a_label(size)} board")
    row, col = divmod(index, size)
    return f"{COLUMNS[col]}{row + 1}"


def parse_square(name: str, size: int = STANDARD) -> int:
    """Square index of a name such as ``f5``; case-insensitive, as real records mix cases."""
    text = name.strip().lower()
    digits = text[1:]
    # ASCII only: str.isdigit() also takes superscripts such as "¹", which int() refuses
    numeric = digits.isascii() and digits.isdigit()
    if len(text) < 2 or text[0] not in COLUMNS[:size] or not numeric:
        raise BoardStringError(f"not a square on {a_label(size)} board: {name!r}")
    row = int(digits) - 1
    if not 0 <= row < size:
        raise BoardStringError(f"not a square on {a_label(size)} board: {name!r}")
    return row * size + COLUMNS.index(text[0])


def squares_of(mask: int, size: int = STANDARD) -> list[str]:
    """Names of the set bits of ``mask``, in index order (the order events use)."""
    return [square_name(i, size) for i in bit_indices(mask)]


def mask_of(names: list[str] | tuple[str, ...], size: int = STANDARD) -> int:
    mask = 0
    for name in names:
        mask |= 1 << parse_square(name, size)
    return mask


def sort_squares(names: list[str] | set[str], size: int = STANDARD) -> list[str]:
    """Squares in board-string order (a1, b1, ..., h8)."""
    return sorted(names, key=lambda n: parse_square(n, size))


def validate_board_string(
    text: str, size: int = STANDARD, alphabet: str = POSITION_ALPHABET
) -> str:
    """Return ``text`` if it is a board string over ``alphabet``; else name what is wrong.

    Whitespace is ignored so that diagrams written one row per line are accepted.
    """
    s = "".join(text.split())
    n = size * size
    for i, ch in enumerate(s[:n]):
        if ch not in alphabet:
            raise BoardStringError(
                f"bad character {ch!r} at {square_name(i, size)} (position {i + 1}); "
                f"allowed: {' '.join(alphabet)}"
            )
    if len(s) != n:
        raise BoardStringError(f"board string has {len(s)} squares, {a_label(size)} board has {n}")
    return s


def masks_from_board_string(text: str, size: int = STANDARD) -> tuple[int, int]:
    """Black and white bitboards of a definite board string."""
    s = validate_board_string(text, size)
    black = white = 0
    for i, ch in enumerate(s):
        if ch == "X":
            black |= 1 << i
        elif ch == "O":
            white |= 1 << i
    return black, white


def board_string_from_masks(black: int, white: int, size: int = STANDARD) -> str:
    return "".join(
        "X" if black >> i & 1 else "O" if white >> i & 1 else "-" for i in range(size * size)
    )


def diagram(board: str, size: int = STANDARD) -> str:
    """A human-readable grid with coordinates, for terminals and error messages."""
    width = len(str(size))
    lines = [" " * (width + 1) + " ".join(COLUMNS[:size])]
    for r in range(size):
        row = board[r * size : (r + 1) * size]
        lines.append(f"{r + 1:>{width}} " + " ".join(row))
    return "\n".join(lines)
