"""The table's journal read as the hall protocol's event messages.

What the table publishes is fixed by its journal alone: every ``event`` and
``clock`` entry of a game, numbered in journal order, each with the official
position journaled in its step. Kept apart from the publisher's link (threads,
broker, acks) so the hub's simulator and the tests read a journal exactly as a
table sends it.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from controller.boardsize import SIZES, STANDARD
from controller.hall_protocol.checks import COLORS, patterns
from controller.hall_protocol.protocol import EventMessage

#: Journal entry kinds that are published as events.
PUBLISHED_KINDS = ("event", "clock")


def journal_messages(db: sqlite3.Connection, table: int, game: str, from_row: int,
                     seq: int, limit: int) -> list[EventMessage]:
    """Up to ``limit`` event messages of ``game``, the first from journal row ``from_row``
    and numbered ``seq``; each carries the official position journaled in its step.

    A step's ``position`` entry follows its events and clock entry, so it is looked up
    by step among the rows from ``from_row`` on (a journal older than that entry has
    none: such messages go without a position).
    """
    kinds = ",".join(f"'{k}'" for k in PUBLISHED_KINDS)
    rows = db.execute(
        f"SELECT kind, t, wall, data, step FROM entries WHERE game=? AND seq>=? "
        f"AND kind IN ({kinds}) ORDER BY seq LIMIT ?", (game, from_row, limit),
    ).fetchall()
    if not rows:
        return []
    size = game_size(db, game)
    positions: dict[int, dict[str, Any]] = {
        step: json.loads(data) for step, data in db.execute(
            "SELECT step, data FROM entries WHERE game=? AND seq>=? AND kind='position' "
            "AND step<=?", (game, from_row, rows[-1][4]))
    }
    out = []
    for n, (kind, t, wall, data, step) in enumerate(rows):
        board, to_move = _position(positions.get(step), size)
        out.append(EventMessage(table, game, seq + n, event_payload(kind, t, data), wall,
                                board, to_move, size))
    return out


def game_size(db: sqlite3.Connection, game: str) -> int:
    """The board size the game was journaled with (8x8 for games journaled before sizes)."""
    row = db.execute("SELECT info FROM games WHERE id=?", (game,)).fetchone()
    try:
        size = json.loads(row[0])["settings"].get("size", STANDARD) if row else STANDARD
    except (ValueError, TypeError, KeyError, AttributeError):
        return STANDARD
    return size if size in SIZES else STANDARD


def _position(pos: dict[str, Any] | None, size: int) -> tuple[str | None, str | None]:
    """A journaled position as the protocol takes it; anything else is left out, since
    the hub would drop the whole event for it (and wait for it forever)."""
    if pos is None:
        return None, None
    board, to_move = pos.get("board"), pos.get("to_move")
    if not isinstance(board, str) or not patterns(size)[3].match(board) or (
            to_move is not None and to_move not in COLORS):
        return None, None
    return board, to_move


def event_payload(kind: str, t: float, data: str) -> dict[str, Any]:
    """The ``event`` of an event message, from a journal entry (``data`` its JSON)."""
    d: dict[str, Any] = json.loads(data)
    if kind == "clock":
        return {"t": round(t, 6), "event": "clock", **d}
    return d
