"""An immutable game position: the rules of Othello as Kaeshi enforces them.

Pure and standard-library only, so the arbiter, the records and the tests can all
replay games without any hardware or clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.bitboard import Geometry, geometry
from controller.boardsize import STANDARD, board_size
from controller.squares import (
    BoardStringError,
    Color,
    board_string_from_masks,
    check_size,
    diagram,
    masks_from_board_string,
    parse_square,
    square_name,
    squares_of,
)

#: Handicap corners in the order they are given (a1, h8, h1, a8).
HANDICAP_CORNERS = ("a1", "h8", "h1", "a8")


class IllegalMoveError(ValueError):
    """A move the rules do not allow; the message says which and why."""


@dataclass(frozen=True, slots=True)
class Position:
    """Discs of both sides as bitboards, and the side to move."""

    black: int
    white: int
    to_move: Color = Color.BLACK
    size: int = STANDARD

    # ----------------------------------------------------------------- starts
    @classmethod
    def start(cls, size: int = STANDARD) -> Position:
        """The standard centre start: white on d4/e5, black on e4/d5 (scaled to size)."""
        check_size(size)
        black, white = board_size(size).start_masks()
        return cls(black, white, Color.BLACK, size)

    @classmethod
    def handicap(cls, stones: int) -> Position:
        """Handicap start: 1-4 black corner discs (a1, h8, h1, a8 in that order), white first."""
        if not 1 <= stones <= 4:
            raise BoardStringError(f"handicap must be 1 to 4 corner discs, not {stones}")
        base = cls.start()
        extra = 0
        for name in HANDICAP_CORNERS[:stones]:
            extra |= 1 << parse_square(name)
        return cls(base.black | extra, base.white, Color.WHITE)

    @classmethod
    def from_board_string(
        cls, board: str, to_move: Color | str = Color.BLACK, size: int = STANDARD
    ) -> Position:
        check_size(size)
        black, white = masks_from_board_string(board, size)
        color = to_move if isinstance(to_move, Color) else Color.parse(to_move)
        return cls(black, white, color, size)

    # -------------------------------------------------------------- accessors
    @property
    def geometry(self) -> Geometry:
        return geometry(self.size)

    @property
    def mover(self) -> int:
        return self.black if self.to_move is Color.BLACK else self.white

    @property
    def other(self) -> int:
        return self.white if self.to_move is Color.BLACK else self.black

    def discs(self, color: Color) -> int:
        return self.black if color is Color.BLACK else self.white

    @property
    def empty(self) -> int:
        return ((1 << (self.size * self.size)) - 1) & ~(self.black | self.white)

    def board_string(self) -> str:
        return board_string_from_masks(self.black, self.white, self.size)

    def __str__(self) -> str:
        return f"{diagram(self.board_string(), self.size)}\n{self.to_move.value} to move"

    # ------------------------------------------------------------------ rules
    def legal_moves(self) -> int:
        """Mask of the squares the side to move may play."""
        return self.geometry.legal_moves(self.mover, self.other)

    def legal_squares(self) -> list[str]:
        return squares_of(self.legal_moves(), self.size)

    def opponent_moves(self) -> int:
        return self.geometry.legal_moves(self.other, self.mover)

    def flips(self, square: int | str) -> int:
        """Discs that a move on ``square`` would turn (0 if it is not a legal move)."""
        sq = parse_square(square, self.size) if isinstance(square, str) else square
        if (self.black | self.white) >> sq & 1:
            return 0
        return self.geometry.flips(self.mover, self.other, sq)

    def is_legal(self, square: int | str) -> bool:
        return self.flips(square) != 0

    def play(self, square: int | str) -> Position:
        """The position after the side to move plays ``square``."""
        sq = parse_square(square, self.size) if isinstance(square, str) else square
        if not 0 <= sq < self.size * self.size:
            raise IllegalMoveError(f"square index {sq} is off the board")
        if (self.black | self.white) >> sq & 1:
            raise IllegalMoveError(
                f"{self.to_move.value} cannot play {square_name(sq, self.size)}: occupied"
            )
        f = self.geometry.flips(self.mover, self.other, sq)
        if not f:
            raise IllegalMoveError(
                f"{self.to_move.value} cannot play {square_name(sq, self.size)}: it turns no disc"
            )
        return self._after(sq, f)

    def _after(self, sq: int, f: int) -> Position:
        bit = 1 << sq
        if self.to_move is Color.BLACK:
            return Position(self.black | bit | f, self.white & ~f, Color.WHITE, self.size)
        return Position(self.black & ~f, self.white | bit | f, Color.BLACK, self.size)

    def must_pass(self) -> bool:
        """The side to move has no move but the game goes on."""
        return not self.legal_moves() and bool(self.opponent_moves())

    def pass_turn(self) -> Position:
        if self.legal_moves():
            raise IllegalMoveError(
                f"{self.to_move.value} cannot pass: legal moves "
                + " ".join(self.legal_squares())
            )
        return Position(self.black, self.white, self.to_move.opponent, self.size)

    def is_game_over(self) -> bool:
        return not self.legal_moves() and not self.opponent_moves()

    # ------------------------------------------------------------------ score
    def counts(self) -> tuple[int, int]:
        return self.black.bit_count(), self.white.bit_count()

    def final_score(self) -> tuple[int, int]:
        """Disc counts with the empty squares given to the winner (WOF/JOA rule)."""
        b, w = self.counts()
        empties = self.size * self.size - b - w
        if b > w:
            b += empties
        elif w > b:
            w += empties
        else:
            b += empties // 2
            w += empties - empties // 2
        return b, w

    def winner(self) -> Color | None:
        """Winner by disc count; ``None`` for a draw (see the draw-win right elsewhere)."""
        b, w = self.counts()
        return Color.BLACK if b > w else Color.WHITE if w > b else None

    def with_to_move(self, color: Color) -> Position:
        return Position(self.black, self.white, color, self.size)


#: The standard start position as a board string (``-XO``, a1 first): what a camera
#: calibration sees and what the renderer draws for it.
START_BOARD = Position.start().board_string()
