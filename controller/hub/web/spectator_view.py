"""What a spectator's page draws beside the broadcast's data: the last move and the discs.

The broadcast (:mod:`controller.hub.broadcast`) says what may be seen, as of the delay;
this adds only what follows from that by looking: the square of the last move played
(a marker on the board) and the discs each side has on it. Pure.
"""

from __future__ import annotations

from typing import Any


def with_marks(table: dict[str, Any]) -> dict[str, Any]:
    """``table`` (a spectator table's dict) with ``last_move`` and ``discs`` added."""
    board = str(table.get("board") or "")
    last = next((m.get("square") for m in reversed(table.get("moves") or [])
                 if m.get("square")), None)
    return {**table, "last_move": last,
            "discs": {"black": sum(board.count(c) for c in "Xx"),
                      "white": sum(board.count(c) for c in "Oo")}}


def spectator_marked(data: dict[str, Any]) -> dict[str, Any]:
    """The spectators' snapshot with every table marked (see :func:`with_marks`)."""
    return {**data, "tables": [with_marks(t) for t in data.get("tables", [])]}
