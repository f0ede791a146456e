"""Each journal row carries its own checksum, and every row read back is checked whole.

SQLite's ``integrity_check`` finds damage to the file's structure, not to what a row
holds: a flipped bit inside a row's JSON, its game id or its time reads back as a
valid row with the wrong content. So every row is written with a CRC-32 of its
fields, and a row is used only when its checksum holds, its JSON parses to an
object, and an input is one the core can take (a board string, a press, a known
action). A row that fails is named by its ``seq`` and left out; nothing that fails
here ever reaches the core, so a damaged journal can never stop the service from
starting. Rows written before checksums existed (``crc`` NULL) are checked by
their content alone.
"""

from __future__ import annotations

import json
import math
import sqlite3
import zlib
from typing import Any

from controller.boardsize import STANDARD, BoardSizeError, size_of_board_string
from controller.squares import OBSERVATION_ALPHABET, Color, validate_board_string

#: The kinds of entries the journal holds.
KINDS = frozenset({"input", "event", "clock", "position", "state", "note"})
#: The arbiter's and the time checks' inputs (see ``GameCore._input``).
ACTIONS = frozenset({"pause", "resume", "adjust", "flag", "elapse", "finish",
                     "accept", "correct"})


class Undecodable(str):
    """Text SQLite holds that is not UTF-8 (a flipped bit in a multi-byte sequence),
    decoded with escapes so it can be named; a row holding one is damaged."""


def text_factory(raw: bytes) -> str:
    """``Connection.text_factory`` for reading a journal that may be damaged: text that
    is not UTF-8 comes back as :class:`Undecodable` instead of failing the whole query."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return Undecodable(raw.decode("utf-8", "surrogateescape"))


def entry_crc(game: str, step: int, kind: str, t: float, wall: float, data: str) -> int:
    """The checksum of one entry row, over every column but ``seq``."""
    text = "\x1f".join((game, str(step), kind, repr(float(t)), repr(float(wall)), data))
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def game_crc(game_id: str, started: float, finished: float | None, info: str) -> int:
    """The checksum of one game row (rewritten when the game is marked finished)."""
    end = "" if finished is None else repr(float(finished))
    text = "\x1f".join((game_id, repr(float(started)), end, info))
    return zlib.crc32(text.encode("utf-8", "surrogatepass"))


def _number(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x)


def input_fault(data: dict[str, Any]) -> str | None:
    """Why ``data`` is no input the core can take (None when it is one)."""
    if "cursor" in data and (not isinstance(data["cursor"], int) or data["cursor"] < 0):
        return "its replay cursor is not a count"
    if "obs" in data:
        obs = data["obs"]
        if not isinstance(obs, dict):
            return "its observation is not an object"
        if "press" in obs:
            try:
                Color(obs["press"])
            except (ValueError, TypeError):
                return f"its press names no player ({str(obs['press'])[:20]!r})"
            return None
        board = obs.get("board")
        if not isinstance(board, str):
            return "its observation holds neither a board nor a press"
        try:
            validate_board_string(board, _size_of(board), OBSERVATION_ALPHABET)
        except ValueError as exc:
            return str(exc)[:80]
        return None
    action = data.get("action")
    if action not in ACTIONS:
        return f"its action {str(action)[:20]!r} is unknown"
    if action == "adjust" and not (data.get("color") in ("black", "white")
                                   and _number(data.get("seconds"))):
        return "its time adjustment names no player or no seconds"
    if action == "correct":
        board = data.get("board")
        if board is not None:
            if not isinstance(board, str):
                return "its corrected board is not a board string"
            try:
                validate_board_string(board, _size_of(board), "-XO")
            except ValueError as exc:
                return str(exc)[:80]
    return None


def _size_of(board: str) -> int:
    """A journal row holds a board of its game's size; the core refuses another size."""
    try:
        return size_of_board_string(board)
    except BoardSizeError:
        return STANDARD  # then named as a board string of the wrong length


def entry_fault(game: Any, step: Any, kind: Any, t: Any, wall: Any, data: Any,
                crc: Any) -> str | None:
    """Why an entry row cannot be used (None when it is whole)."""
    if not (isinstance(game, str) and isinstance(step, int) and isinstance(kind, str)
            and _number(t) and _number(wall) and isinstance(data, str)):
        return "a column has the wrong type"
    if any(isinstance(v, Undecodable) for v in (game, kind, data)):
        return "its text is not UTF-8"
    if crc is not None:
        # what the journal wrote, whole: its content was checked when it was made
        return None if crc == entry_crc(game, step, kind, t, wall, data) else (
            "it fails its checksum")
    if kind not in KINDS:
        return f"its kind {kind[:20]!r} is unknown"
    try:
        value = json.loads(data)
    except (ValueError, RecursionError):
        return "its data is not JSON"
    if not isinstance(value, dict):
        return "its data is not an object"
    return input_fault(value) if kind == "input" else None


def game_fault(game_id: Any, started: Any, finished: Any, info: Any, crc: Any) -> str | None:
    """Why a game row cannot be used (None when it is whole)."""
    if not (isinstance(game_id, str) and _number(started) and isinstance(info, str)
            and (finished is None or _number(finished))):
        return "a column has the wrong type"
    if isinstance(game_id, Undecodable) or isinstance(info, Undecodable):
        return "its text is not UTF-8"
    if crc is not None:
        return None if crc == game_crc(game_id, started, finished, info) else (
            "it fails its checksum")
    try:
        value = json.loads(info)
    except (ValueError, RecursionError):
        return "its settings are not JSON"
    if not isinstance(value, dict):
        return "its settings are not an object"
    return None


def has_crc(db: sqlite3.Connection, table: str) -> bool:
    return any(r[1] == "crc" for r in db.execute(f"PRAGMA table_info({table})"))


def scan(db: sqlite3.Connection) -> str:
    """Every row of the journal checked; what is damaged, in one sentence ('' when whole)."""
    g_crc = "crc" if has_crc(db, "games") else "NULL"
    e_crc = "crc" if has_crc(db, "entries") else "NULL"
    bad_games = [str(r[0])[:40] for r in db.execute(
        f"SELECT id, started, finished, info, {g_crc} FROM games") if game_fault(*r)]
    bad: list[int] = []
    for seq, *row in db.execute(
            f"SELECT seq, game, step, kind, t, wall, data, {e_crc} FROM entries ORDER BY seq"):
        if entry_fault(*row):
            bad.append(seq)
    parts = []
    if bad_games:
        parts.append(f"{len(bad_games)} game row(s) damaged")
    if bad:
        parts.append(f"{len(bad)} entries damaged (seq {ranges(bad)})")
    return "; ".join(parts)


def ranges(numbers: list[int]) -> str:
    """``1-60, 75`` for [1, ..., 60, 75]: the lost entries, readable in a message."""
    spans: list[list[int]] = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    out = [f"{a}" if a == b else f"{a}-{b}" for a, b in spans]
    return ", ".join(out[:10]) + (" ..." if len(out) > 10 else "")
