"""A game played on part of the sensor board: the game's squares on the sensor grid.

The sensor board's grid is set by its firmware configuration (the protocol's
``SQUARES``); a game of that size uses all of it, a smaller one (a 6x6 game on the
8x8 board) its middle, with the squares around it required empty. Readings come
from the grid and go to the arbiter as the game's board; LED pictures and the
official position go the other way. A disc on a square outside the game is not
part of any move: it is named (:class:`OffBoard`) so the players can take it away.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.boardsize import BoardSize, BoardSizeError, board_size, size_of_board_string
from controller.hall import messages as m
from controller.position import Position
from controller.squares import parse_square, square_name


def grid_size() -> BoardSize:
    """The sensor grid the firmware reports, from its configured number of squares."""
    return board_size(size_of_board_string("-" * m.SQUARES))


@dataclass(frozen=True, slots=True)
class OffBoard:
    """Discs read on sensor squares outside the game (grid names); empty: none left."""

    squares: tuple[str, ...]
    game: int  # the game's size, for the message

    @property
    def detail(self) -> str:
        if not self.squares:
            return f"the squares around the {self.game}x{self.game} game are empty again"
        return (f"disc outside the {self.game}x{self.game} game on {' '.join(self.squares)}: "
                f"a {self.game}x{self.game} game leaves the sensor board's outer squares "
                "empty")


class GameWindow:
    """The squares of a ``game``-size board, centred on the sensor grid."""

    def __init__(self, game: int, grid: BoardSize | None = None) -> None:
        self.grid = grid or grid_size()
        self.game = board_size(game)
        if self.game.n > self.grid.n:
            raise BoardSizeError(f"a {self.game.label} game does not fit on the "
                                 f"{self.grid.label} sensor board")
        self._inner = [self.game.to_outer(i, self.grid) for i in range(self.game.squares)]
        self._ring = self.game.outer_ring(self.grid)

    @property
    def whole(self) -> bool:
        """The game uses every sensor square: nothing to translate."""
        return self.game == self.grid

    def game_board(self, board: str) -> tuple[str, OffBoard]:
        """The game's board string from a grid reading, and the discs outside the game."""
        if self.whole:
            return board, OffBoard((), self.game.n)
        inner = "".join(board[i] for i in self._inner)
        off = tuple(square_name(i, self.grid.n) for i in self._ring if board[i] not in "-?")
        return inner, OffBoard(off, self.game.n)

    def grid_square(self, square: str | int) -> str | int:
        """The sensor square under a square of the game (a name, or an index)."""
        if self.whole:
            return square
        if isinstance(square, int):
            return self._inner[square]
        return square_name(self._inner[parse_square(square, self.game.n)], self.grid.n)

    def grid_position(self, position: Position) -> Position:
        """The game's position as the whole sensor grid shows it (the outer squares empty)."""
        if self.whole:
            return position
        black = white = 0
        for i, g in enumerate(self._inner):
            black |= (position.black >> i & 1) << g
            white |= (position.white >> i & 1) << g
        return Position(black, white, position.to_move, self.grid.n)
