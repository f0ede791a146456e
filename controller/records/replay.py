"""Replaying a list of moves into a record: the one place passes are worked out.

Formats disagree about passes — transcripts and WTHOR leave them out, GGF writes
them, some files write them only sometimes — so every reader hands its moves to
:func:`replay` as they appear in the file. It fills in the passes the rules force,
rejects any other pass, and names the move by its number in the file, so an
illegal move is reported where the user can find it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.boardsize import SIZES, STANDARD
from controller.position import Position
from controller.records.model import GameRecord, Move, RecordError
from controller.squares import Color, parse_square, square_name, squares_of

_NAMES = {n: tuple(square_name(i, n) for i in range(n * n)) for n in SIZES}
_INDEX = {n: {name: i for i, name in enumerate(names)} for n, names in _NAMES.items()}
_OTHER = {Color.BLACK: Color.WHITE, Color.WHITE: Color.BLACK}


def square_index(name: str, size: int = STANDARD) -> int:
    """Like :func:`parse_square`, with a table for the names records are full of."""
    index = _INDEX[size].get(name)
    return parse_square(name, size) if index is None else index


@dataclass(frozen=True, slots=True)
class Step:
    """One move as a file states it; fields a format does not store stay ``None``."""

    square: int | None  # None: an explicit pass
    player: Color | None = None
    time: float | None = None
    eval: float | None = None
    comment: str = ""
    #: The board as it stood after this move, when the rules do not give it.
    stands: Position | None = None


def replay(start: Position, steps: Iterable[Step]) -> tuple[list[Move], Position]:
    """The moves with every pass explicit, and the final position.

    Raises :class:`RecordError` naming the move's number among ``steps``.
    """
    size = start.size
    geo = start.geometry
    black, white, to_move = start.black, start.white, start.to_move
    moves: list[Move] = []
    for number, step in enumerate(steps, 1):
        if step.stands is not None:
            # An irregular move that stood: taken as played, play goes on from its board.
            if step.stands.size != size:
                raise RecordError(f"move {number}: the board it left is not {size}x{size}")
            player = step.player or to_move
            name = None if step.square is None else _NAMES[size][step.square]
            after = step.stands.with_to_move(_OTHER[player])
            moves.append(Move(player, name, step.time, step.eval, step.comment, after))
            black, white, to_move = after.black, after.white, after.to_move
            continue
        mover, other = (black, white) if to_move is Color.BLACK else (white, black)
        sq = step.square
        # Fast path: a move that turns discs is legal; the move mask is only
        # needed to judge passes and to explain a refusal.
        f = 0 if sq is None or (black | white) >> sq & 1 else geo.flips(mover, other, sq)
        if not f or (step.player is not None and step.player is not to_move):
            label = "pass" if sq is None else square_name(sq, size)
            legal = geo.legal_moves(mover, other)
            if not legal:
                if not geo.legal_moves(other, mover):
                    raise RecordError(f"move {number} ({label}): the game is already over")
                if sq is None and step.player in (None, to_move):
                    moves.append(Move(to_move, None, step.time, step.eval, step.comment))
                    to_move = _OTHER[to_move]
                    continue
                # The rules force a pass that the file leaves implicit.
                moves.append(Move(to_move, None))
                to_move = _OTHER[to_move]
                mover, other = other, mover
                legal = geo.legal_moves(mover, other)
            if step.player is not None and step.player is not to_move:
                raise RecordError(
                    f"move {number} ({label}) is by {step.player.value}, "
                    f"but {to_move.value} is to move"
                )
            if sq is None:
                raise RecordError(
                    f"move {number}: {to_move.value} cannot pass: legal moves "
                    + " ".join(squares_of(legal, size))
                )
            if (black | white) >> sq & 1:
                raise RecordError(
                    f"move {number}: {to_move.value} cannot play {label}: occupied"
                )
            f = geo.flips(mover, other, sq)
            if not f:
                raise RecordError(
                    f"move {number}: {to_move.value} cannot play {label}: it turns no disc"
                )
        assert sq is not None  # a pass turns nothing, so it was refused or taken above
        bit = 1 << sq
        mover |= bit | f
        other &= ~f
        black, white = (mover, other) if to_move is Color.BLACK else (other, mover)
        moves.append(Move(to_move, _NAMES[size][sq], step.time, step.eval, step.comment))
        to_move = _OTHER[to_move]
    return moves, Position(black, white, to_move, size)


def rebuild(game: GameRecord) -> tuple[list[Move], Position]:
    """Replay a record's own moves (checking them) and return them with passes explicit."""
    steps = []
    for number, mv in enumerate(game.moves, 1):
        try:
            sq = None if mv.square is None else square_index(mv.square, game.start.size)
        except ValueError as exc:
            raise RecordError(f"move {number}: {exc}") from None
        steps.append(Step(sq, mv.player, mv.time, mv.eval, mv.comment, mv.stands))
    return replay(game.start, steps)
