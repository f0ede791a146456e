"""Whether a grid fitted again reads the board better than the grid it would replace.

A picture can change as if the camera moved when it did not: a hand or an arm over
the board, a big correction made between two frames. Fitting the grid again then
may land it a square off, and every later frame is read through the wrong grid.
The board itself says which grid is right: the last board the watcher reported (the
position in play) or a position one legal move from it is what the camera should
see. A new grid is taken only if, on the squares it can see, it reads one of these
better than the old grid does.
"""

from __future__ import annotations

from controller.boardsize import size_of_board_string
from controller.position import Position
from controller.squares import Color


def explained_boards(board: str) -> list[str]:
    """``board`` (``-XO`` with ``x``/``o`` read as their colour) and, if it is whole,
    every board one legal move of either colour from it."""
    plain = board.upper()
    boards = [plain]
    if "?" in plain:
        return boards
    for colour in (Color.BLACK, Color.WHITE):
        pos = Position.from_board_string(plain, colour, size_of_board_string(plain))
        boards += [pos.play(sq).board_string() for sq in pos.legal_squares()]
    return boards


def agreement(reading: str, boards: list[str]) -> int:
    """The best, over ``boards``, of squares read as the board shows them less those
    read otherwise, on squares both know (a ``?`` counts neither way)."""
    best = -len(reading) - 1
    seen = reading.upper()
    for board in boards:
        score = 0
        for a, b in zip(seen, board, strict=True):
            if a == "?" or b == "?":
                continue
            score += 1 if a == b else -1
        best = max(best, score)
    return best
