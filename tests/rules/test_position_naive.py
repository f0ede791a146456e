"""A deliberately simple rules reference, and tests that it is itself right.

The fast engine works on bitboards with shifts and masks; this reference walks
the board square by square in the eight directions, the way the rules are
written, so the two share no code and no trick. Other rule tests import it.
"""

from __future__ import annotations

from controller.position import Position
from controller.squares import Color

DIRECTIONS = [(dr, dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if (dr, dc) != (0, 0)]


def grid(position: Position) -> list[str]:
    return list(position.board_string())


def naive_flips(cells: list[str], size: int, me: str, index: int) -> set[int]:
    """Squares turned when ``me`` (``X`` or ``O``) plays ``index``; empty if illegal."""
    if cells[index] != "-":
        return set()
    them = "O" if me == "X" else "X"
    row, col = divmod(index, size)
    turned: set[int] = set()
    for dr, dc in DIRECTIONS:
        run = []
        r, c = row + dr, col + dc
        while 0 <= r < size and 0 <= c < size and cells[r * size + c] == them:
            run.append(r * size + c)
            r += dr
            c += dc
        if run and 0 <= r < size and 0 <= c < size and cells[r * size + c] == me:
            turned.update(run)
    return turned


def naive_legal(cells: list[str], size: int, me: str) -> set[int]:
    return {i for i in range(size * size) if naive_flips(cells, size, me, i)}


def naive_play(cells: list[str], size: int, me: str, index: int) -> list[str]:
    out = list(cells)
    for i in naive_flips(cells, size, me, index) | {index}:
        out[i] = me
    return out


def naive_perft(cells: list[str], size: int, me: str, depth: int) -> int:
    """Leaves ``depth`` plies down; a pass is a ply, a finished game is one leaf."""
    if depth == 0:
        return 1
    them = "O" if me == "X" else "X"
    moves = naive_legal(cells, size, me)
    if not moves:
        if not naive_legal(cells, size, them):
            return 1
        return naive_perft(cells, size, them, depth - 1)
    return sum(naive_perft(naive_play(cells, size, me, m), size, them, depth - 1) for m in moves)


def mask(squares: set[int]) -> int:
    return sum(1 << i for i in squares)


def symbol(color: Color) -> str:
    return color.symbol


# ------------------------------------------------------------ the reference
def test_reference_start_moves_are_the_four_textbook_ones():
    start = Position.start()
    legal = naive_legal(grid(start), 8, "X")
    # d3, c4, f5, e6 — the only first moves in Othello.
    assert legal == {2 * 8 + 3, 3 * 8 + 2, 4 * 8 + 5, 5 * 8 + 4}


def test_reference_flips_in_several_directions_at_once():
    # X plays d4 on a board where it closes a row and a diagonal.
    board = list("-" * 64)
    for sq, ch in ((27 + 1, "O"), (27 + 2, "X"), (27 + 9, "O"), (27 + 18, "X"), (27 - 8, "O")):
        board[sq] = ch
    assert naive_flips(board, 8, "X", 27) == {28, 36}


def test_reference_perft_matches_the_published_first_depths():
    start = grid(Position.start())
    assert [naive_perft(start, 8, "X", d) for d in range(1, 5)] == [4, 12, 56, 244]
