"""The values inside GGF tags: boards, results, dates and numbers, each read forgivingly
and written the way GGS writes them, so that the game reader and writer stay about games."""

from __future__ import annotations

import datetime as dt
import re

from controller.position import Position
from controller.records.model import RecordError
from controller.squares import SIZES, Color, square_name

_RESULT = re.compile(r"\s*([+-]?\d+(?:\.\d*)?)\s*(?::\s*([A-Za-z]))?\s*")
_DATE = re.compile(r"(\d{4})(?:[.\-/](\d{1,2})(?:[.\-/](\d{1,2}))?)?")
_NOTES = {"r": "resignation", "t": "time", "s": "agreement"}
_FLAGS = {note: flag for flag, note in _NOTES.items()}


def is_control(c: str) -> bool:
    return ord(c) < 32 or 0x7F <= ord(c) < 0xA0 or c in "\u2028\u2029"


def escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("]", "\\]")


# ------------------------------------------------------------ tag values
def parse_board(value: str) -> Position:
    """A ``BO[]`` value: size, rows (``-`` empty, ``*`` black, ``O`` white), side to move."""
    parts = value.split()
    if not parts or not re.fullmatch(r"[0-9]{1,3}", parts[0]):
        raise RecordError(f"BO[{value[:40]}]: must start with the board size")
    size = int(parts[0])
    if size not in SIZES:
        raise RecordError(f"BO[]: unsupported board size {size} (6, 8 or 10)")
    cells = "".join(parts[1:])
    if len(cells) != size * size + 1:
        raise RecordError(f"BO[]: {len(cells) - 1} squares and a side to move given, a "
                          f"{size}x{size} board needs {size * size} squares and the side")
    black = white = 0
    for i, ch in enumerate(cells[:-1]):
        if ch in "*xX":
            black |= 1 << i
        elif ch in "Oo":
            white |= 1 << i
        elif ch != "-":
            raise RecordError(f"BO[]: bad character {ch!r} at {square_name(i, size)} "
                              "(allowed: - * O)")
    side = cells[-1]
    if side not in "*OoxX":
        raise RecordError(f"BO[]: side to move must be * or O, not {side!r}")
    return Position(black, white, Color.BLACK if side in "*xX" else Color.WHITE, size)


def board_value(position: Position) -> str:
    s = position.size
    text = position.board_string().replace("X", "*")
    rows = " ".join(text[r * s : (r + 1) * s] for r in range(s))
    return f"{s} {rows} {'*' if position.to_move is Color.BLACK else 'O'}"


def parse_number(text: str, what: str) -> float | None:
    text = text.strip()
    if not text:
        return None
    try:
        if ":" in text:  # a clock reading such as 01:02.5
            total = 0.0
            for part in text.split(":"):
                total = total * 60 + float(part)
            return total
        value = float(text)
    except ValueError:
        raise RecordError(f"{what} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise RecordError(f"{what} {text!r} is not a number")
    return value


def format_number(x: float) -> str:
    return format(x, ".15g")


def date_from_dt(value: str) -> str:
    v = value.strip()
    if re.fullmatch(r"[0-9]{9,12}", v):  # seconds since 1970, as some servers write
        try:
            return dt.datetime.fromtimestamp(int(v), dt.UTC).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return v
    m = _DATE.match(v)
    if not m:
        return v
    return "-".join(f"{int(g):02d}" if k else g for k, g in enumerate(m.groups()) if g)


def dt_from_date(date: str) -> str:
    m = _DATE.fullmatch(date)
    return date.replace("-", ".") if m else date


def parse_result(value: str, size: int) -> tuple[tuple[int, int] | None, str]:
    """``RE[+12.000:r]`` → black/white counts (empties to the winner) and how it ended.

    A result that is no whole split of the board (a komi game's half point, ``?``)
    gives ``None``; the caller keeps the text.
    """
    m = _RESULT.fullmatch(value)
    if not m:
        return None, ""
    note = _NOTES.get((m.group(2) or "").lower(), "") if m.group(2) else ""
    if m.group(2) and not note:
        return None, ""
    margin = float(m.group(1))
    total = size * size
    if abs(margin) > total or margin != int(margin) or (total + int(margin)) % 2:
        return None, ""
    diff = int(margin)
    return ((total + diff) // 2, (total - diff) // 2), note


def result_value(result: tuple[int, int], note: str) -> str:
    b, w = result
    flag = _FLAGS.get(note, "")
    return f"{b - w:+.3f}" + (f":{flag}" if flag else "")
