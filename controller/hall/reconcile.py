"""Explain a board that changed while the sensor board was out of reach.

When the cable comes back, the position on the table may differ from the last one
the host saw. If exactly one sequence of legal moves leads from the old board to the
new one, the arbiter can be shown that sequence board by board and judge it as if it
had watched; otherwise the change is handed over as it is, flagged, because guessing
would put words in the arbiter's mouth. Pure: no I/O, no clock.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.hall.messages import SQUARES
from controller.position import Position
from controller.squares import POSITION_ALPHABET, Color, parse_square

#: More moves than this while unplugged is not searched (the answer would rarely be unique).
MAX_MOVES = 6


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """The outcome: ``boards`` are the positions after each inferred move, in order."""

    explained: bool
    moves: tuple[tuple[Color, str | None], ...] = ()
    boards: tuple[str, ...] = ()
    reason: str = ""


def _is_position(board: str) -> bool:
    return len(board) == SQUARES and all(c in POSITION_ALPHABET for c in board)


def reconcile(before: str, after: str, to_move: Color | None = None) -> Reconciliation:
    """Find the unique legal move sequence turning ``before`` into ``after``.

    ``to_move`` is whose turn it was at ``before`` when the caller knows it; otherwise
    both are tried and the answer must still be unique. Passes are inserted only where
    the rules force them.
    """
    if before == after:
        return Reconciliation(True, (), (), "board unchanged")
    if not (_is_position(before) and _is_position(after)):
        return Reconciliation(False, reason="a board holds unknown or shifted discs")
    added = after.count("X") + after.count("O") - before.count("X") - before.count("O")
    if added <= 0:
        return Reconciliation(False, reason="discs were removed, which no move explains")
    if added > MAX_MOVES:
        return Reconciliation(
            False, reason=f"{added} discs were added, too many to reconstruct the moves"
        )
    occupied_after = {i for i, c in enumerate(after) if c != "-"}
    movers = [to_move] if to_move is not None else [Color.BLACK, Color.WHITE]
    found: list[tuple[tuple[tuple[Color, str | None], ...], tuple[str, ...]]] = []
    for first in movers:
        start = Position.from_board_string(before, first)
        _search(start, after, added, occupied_after, (), (), found)
        if len(found) > 1:
            break
    if not found:
        return Reconciliation(False, reason="no sequence of legal moves leads to the new board")
    if len(found) > 1:
        return Reconciliation(False, reason="several move orders lead to the new board")
    moves, boards = found[0]
    return Reconciliation(True, moves, boards, f"{len(boards)} move(s) inferred")


def _search(
    pos: Position,
    target: str,
    remaining: int,
    allowed: set[int],
    moves: tuple[tuple[Color, str | None], ...],
    boards: tuple[str, ...],
    found: list[tuple[tuple[tuple[Color, str | None], ...], tuple[str, ...]]],
) -> None:
    if len(found) > 1:
        return
    if remaining == 0:
        if pos.board_string() == target:
            found.append((moves, boards))
        return
    if not pos.legal_moves():
        if pos.is_game_over():
            return
        moves = (*moves, (pos.to_move, None))
        pos = pos.pass_turn()
    mover = pos.to_move
    for sq in pos.legal_squares():
        index = parse_square(sq)
        if index not in allowed or target[index] == "-":
            continue
        nxt = pos.play(sq)
        _search(nxt, target, remaining - 1, allowed, (*moves, (mover, sq)),
                (*boards, nxt.board_string()), found)
