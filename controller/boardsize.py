"""The board's size: the one place that knows which boards exist and how they are laid out.

Othello is played on 8x8; its own family of games adds a 6x6 board for beginners and
children and Grand Othello on 10x10. Everything else in Kaeshi takes a size from the
data it handles (a position, a record, a payload, the configuration) and asks this
module what follows from it: how many squares, the column letters, the centre-four
start, the squares along the edge, where a smaller board lies on a bigger grid.
Nothing outside this module writes the number of squares or columns of a board.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

#: Every size Kaeshi plays, watches and records.
SIZES = (6, 8, 10)
#: The size of a standard Othello board, taken wherever the data names no size.
STANDARD = 8
#: Column letters of the biggest board; a board of size n uses the first n.
COLUMN_LETTERS = "abcdefghij"


def a_label(n: int) -> str:
    """A board's size with its article, for messages: "an 8x8", "a 6x6", "a 10x10"."""
    return ("an " if str(n).startswith("8") else "a ") + f"{n}x{n}"


class BoardSizeError(ValueError):
    """A size Kaeshi does not play; the message names it and the sizes it does."""


def check_size(size: object) -> int:
    """``size`` if it is a supported board size, else a :class:`BoardSizeError`."""
    if isinstance(size, bool) or not isinstance(size, int) or size not in SIZES:
        raise BoardSizeError(
            f"unsupported board size {size!r} (supported: {', '.join(map(str, SIZES))})")
    return size


@dataclass(frozen=True, slots=True)
class BoardSize:
    """One square board: ``n`` columns and rows, square ``row * n + col``, a1 top left."""

    n: int

    def __post_init__(self) -> None:
        check_size(self.n)

    @property
    def squares(self) -> int:
        return self.n * self.n

    @property
    def full(self) -> int:
        """The mask of every square."""
        return (1 << self.squares) - 1

    @property
    def columns(self) -> str:
        return COLUMN_LETTERS[: self.n]

    @property
    def label(self) -> str:
        return f"{self.n}x{self.n}"

    @property
    def a_label(self) -> str:
        return a_label(self.n)

    def start_masks(self) -> tuple[int, int]:
        """``(black, white)`` of the centre-four start: white on the diagonal from the
        top left (d4 e5 on 8x8), black on the other (e4 d5)."""
        lo, hi = self.n // 2 - 1, self.n // 2
        n = self.n
        white = 1 << (lo * n + lo) | 1 << (hi * n + hi)
        black = 1 << (lo * n + hi) | 1 << (hi * n + lo)
        return black, white

    def corners(self) -> tuple[int, int, int, int]:
        """Square indices of a1, the bottom-right, the top-right and the bottom-left
        corner (the handicap order a1, h8, h1, a8 on 8x8)."""
        last = self.n - 1
        return 0, last * self.n + last, last, last * self.n

    def edge_mask(self) -> int:
        """The outermost ring of squares."""
        out = 0
        for i in range(self.squares):
            r, c = divmod(i, self.n)
            if r in (0, self.n - 1) or c in (0, self.n - 1):
                out |= 1 << i
        return out

    def offset_in(self, outer: BoardSize) -> int:
        """Rows (and columns) between ``outer``'s edge and this board centred on it."""
        if self.n > outer.n:
            raise BoardSizeError(f"a {self.label} board does not fit on a {outer.label} grid")
        return (outer.n - self.n) // 2

    def to_outer(self, index: int, outer: BoardSize) -> int:
        """Square ``index`` of this board as the square under it on the centred ``outer`` grid."""
        k = self.offset_in(outer)
        r, c = divmod(index, self.n)
        return (r + k) * outer.n + c + k

    def from_outer(self, index: int, outer: BoardSize) -> int | None:
        """The square of this board over square ``index`` of ``outer``; None outside it."""
        k = self.offset_in(outer)
        r, c = divmod(index, outer.n)
        r, c = r - k, c - k
        if 0 <= r < self.n and 0 <= c < self.n:
            return r * self.n + c
        return None

    def outer_ring(self, outer: BoardSize) -> list[int]:
        """Squares of ``outer`` that this centred board does not cover."""
        return [i for i in range(outer.squares) if self.from_outer(i, outer) is None]


@cache
def board_size(n: int = STANDARD) -> BoardSize:
    return BoardSize(n)


def size_of_board_string(board: str) -> int:
    """The size of the board a board string of this length describes (one per size)."""
    for n in SIZES:
        if len(board) == n * n:
            return n
    raise BoardSizeError(
        f"a board string of {len(board)} squares fits no board "
        f"(sizes {', '.join(f'{n}x{n}' for n in SIZES)})")
