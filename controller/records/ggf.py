"""GGF, the Generic Game Format of the GGS game servers, for Othello.

A game is ``(;TAG[value]TAG[value]...;)``; a file holds any number of games,
often each prefixed by a count (``1 (;GM[Othello]...;)``) that is ignored here.
Tags used: ``GM`` game, ``PC`` place, ``DT`` date, ``PB``/``PW`` players,
``TI`` time control, ``TY`` type (board size), ``RE`` black's disc margin with
``:r`` resigned / ``:t`` time / ``:s`` agreed, ``BO`` start position (size, rows
of ``-``/``*``/``O``, side to move), ``B``/``W`` moves as ``square/eval/time``.

Kaeshi adds three tags GGF readers skip as unknown: ``EV`` event, ``DW`` holder
of the draw-win right (``B``/``W``) and ``C`` a comment — on the game when it
comes before the first move, on the move it follows otherwise. Any other tag is
kept in :attr:`GameRecord.extra` and written back, so files round-trip.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

from controller.boardsize import STANDARD
from controller.position import Position
from controller.records.ggf_values import (
    board_value,
    date_from_dt,
    dt_from_date,
    escape,
    format_number,
    is_control,
    parse_board,
    parse_number,
    parse_result,
    result_value,
)
from controller.records.irregular import split_stood, stood_note
from controller.records.model import GameRecord, RecordError, join_comments
from controller.records.replay import Step, replay, square_index
from controller.records.scan import Scan
from controller.squares import SIZES, BoardStringError, Color

_PASS = ("pass", "pa", "--", "")
#: Tags the model holds in its own fields; every other tag goes to ``extra``.
_MODEL_TAGS = {"GM", "PC", "DT", "PB", "PW", "TI", "TY", "RE", "BO", "B", "W", "EV", "DW", "C"}


# ------------------------------------------------------------------ lexing
_TAG_VALUE = re.compile(r"\s*([A-Za-z][A-Za-z0-9_]*)\s*\[([^\]\\]*(?:\\.[^\]\\]*)*)\]", re.S)
_END = re.compile(r"\s*;\)")
_UNESCAPE = re.compile(r"\\(.)", re.S)


def _games(text: str, source: str) -> list[tuple[int, list[tuple[str, str]]]]:
    """Each game's offset and its tags in order; raise naming the offset of bad syntax."""
    out: list[tuple[int, list[tuple[str, str]]]] = []
    pos = 0
    while True:
        begin = text.find("(;", pos)
        if begin < 0:
            break
        i = begin + 2
        tags: list[tuple[str, str]] = []
        while True:
            m = _TAG_VALUE.match(text, i)
            if m is None:
                end = _END.match(text, i)
                if end is None:
                    raise _syntax_error(text, i, source, len(out) + 1, begin)
                i = end.end()
                break
            value = m.group(2)
            if "\\" in value:
                value = _UNESCAPE.sub(r"\1", value)
            tags.append((m.group(1).upper(), value))
            i = m.end()
        out.append((begin, tags))
        pos = i
    if not out and text.strip():
        raise RecordError(f"{source}: no GGF game found (a game starts with '(;')")
    return out


def _syntax_error(text: str, i: int, source: str, number: int, begin: int) -> RecordError:
    """The error that says what is wrong at offset ``i`` of game ``number``."""
    while i < len(text) and text[i].isspace():
        i += 1
    where = f"{source}: game {number} (offset {begin})"
    if i >= len(text):
        return RecordError(f"{where}: the file ends before the game's closing ';)'")
    tag = re.compile(r"[A-Za-z][A-Za-z0-9_]*\s*\[").match(text, i)
    if tag is not None:
        return RecordError(f"{where}: offset {i}: value of {tag.group().rstrip('[ ')} "
                           "never closed with ']'")
    return RecordError(f"{where}: offset {i}: expected a tag such as PB[...] or the closing "
                      f"';)', found {text[i]!r}")


# ------------------------------------------------------------------ games
def _game(tags: list[tuple[str, str]]) -> tuple[GameRecord, Position]:
    game = GameRecord()
    size_hint = STANDARD
    ty_size: int | None = None
    has_board = any(tag == "BO" for tag, _ in tags)
    steps: list[Step] = []
    pending_comment: list[str] = []
    move_no = 0
    for tag, value in tags:
        if tag in ("B", "W"):
            move_no += 1
            if pending_comment and steps:
                steps[-1] = _with_comment(steps[-1], pending_comment)
            pending_comment = []
            steps.append(_step(tag, value, move_no, game.start.size))
        elif tag == "C":
            if steps:
                pending_comment.append(value)
            else:
                game.comments.append(value)
        elif tag == "GM":
            if value.strip().lower() not in ("othello", "reversi", ""):
                raise RecordError(f"GM[{value}] is not an Othello game")
        elif tag == "PC":
            game.place = value
        elif tag == "DT":
            game.date = date_from_dt(value)
            if dt_from_date(game.date) != value:
                game.extra["DT"] = value
        elif tag == "PB":
            game.black = value
        elif tag == "PW":
            game.white = value
        elif tag == "EV":
            game.event = value
        elif tag == "TI":
            game.time_control = value
        elif tag == "TY":
            digits = re.match(r"[^0-9]*([0-9]{1,3})(?![0-9])", value)
            if digits and int(digits.group(1)) in SIZES:
                size_hint = ty_size = int(digits.group(1))
                if not has_board and not steps:
                    game.start = Position.start(size_hint)
            if value.strip() != str(size_hint):
                game.extra["TY"] = value
        elif tag == "RE":
            game.extra["RE"] = value  # resolved below, once the board size is known
        elif tag == "BO":
            if steps:
                raise RecordError("BO[] comes after the first move")
            game.start = parse_board(value)
        elif tag == "DW":
            try:
                game.draw_win_right = Color.parse(value)
            except BoardStringError:
                raise RecordError(f"DW[{value}]: the draw-win right must be B or W") from None
        else:
            game.extra[tag] = value
    if pending_comment and steps:
        steps[-1] = _with_comment(steps[-1], pending_comment)
    if ty_size is not None and has_board and ty_size != game.start.size:
        raise RecordError(f"TY[{game.extra.get('TY', ty_size)}] says a {ty_size}x{ty_size} "
                          f"board, BO[] holds a {game.start.size}x{game.start.size} one")
    if "RE" in game.extra:
        result, note = parse_result(game.extra["RE"], game.start.size)
        if result is not None:
            game.result, game.result_note = result, note
            del game.extra["RE"]
    game.moves, final = replay(game.start, [_stood(step) for step in steps])
    return game, final


def _stood(step: Step) -> Step:
    """A step whose comment says play went on from another board carries that board."""
    comment, board = split_stood(step.comment)
    if board is None:
        return step
    return Step(step.square, step.player, step.time, step.eval, comment, parse_board(board))


def _with_comment(step: Step, comments: list[str]) -> Step:
    text = join_comments(step.comment, *comments)
    return Step(step.square, step.player, step.time, step.eval, text)


def _step(tag: str, value: str, number: int, size: int) -> Step:
    player = Color.BLACK if tag == "B" else Color.WHITE
    parts = value.split("/")
    name = parts[0].strip()
    what = f"move {number} ({tag}[{value}])"
    if len(parts) > 3:
        raise RecordError(f"{what}: expected square/eval/time")
    evaluation = parse_number(parts[1], f"{what}: evaluation") if len(parts) > 1 else None
    time = parse_number(parts[2], f"{what}: time") if len(parts) > 2 else None
    if name.lower() in _PASS:
        return Step(None, player, time, evaluation)
    try:
        square = square_index(name.lower(), size)
    except BoardStringError as exc:
        raise RecordError(f"{what}: {exc}") from None
    return Step(square, player, time, evaluation)


def scan_ggf_text(text: str, source: str = "<ggf>") -> Scan:
    """Every game of a GGF text; bad syntax raises, a bad game is listed with its reason."""
    scan = Scan(source)
    for offset, tags in _games(text, source):
        try:
            game, final = _game(tags)
        except RecordError as exc:
            scan.fail(f"offset {offset}: {exc}")
            continue
        scan.add(game, final)
    return scan


def read_ggf_text(text: str, source: str = "<ggf>") -> list[GameRecord]:
    """The games of a GGF text (one or many); raise naming the first bad game and move."""
    return scan_ggf_text(text, source).records()


def read_ggf(path: str | Path) -> list[GameRecord]:
    path = Path(path)
    return read_ggf_text(_read_text(path), str(path))


def _read_text(path: Path) -> str:
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


# ------------------------------------------------------------------ writing
def write_ggf(game: GameRecord) -> str:
    """One game as a GGF string ``(;GM[Othello]...;)``, moves exactly as the record has them.

    Passes the record leaves implicit stay implicit (GGF readers fill them in).
    A control character in a field (a line break in a player's name) is refused,
    naming the tag: GGF has no way to escape it, and readers that split on lines
    would take what follows for something else. A comment's line breaks are written
    as one ``C[]`` per line (a reader joins them back), so no tag holds a line break
    and a game is always one line. A lone surrogate (no UTF-8 can hold it) is refused.
    """
    out = ["(;GM[Othello]"]

    def tag(name: str, value: str) -> None:
        if name == "C" and "\n" in value:  # no line break inside a tag: one C per line,
            for line in value.split("\n"):  # which a reader joins back with line breaks
                tag("C", line)
            return
        allowed = "\t" if name == "C" else ""
        bad = next((c for c in value if (is_control(c) or "\ud800" <= c <= "\udfff")
                    and c not in allowed), None)
        if bad is not None:
            what = "lone surrogate" if "\ud800" <= bad <= "\udfff" else "control character"
            raise RecordError(f"{name}[{value[:30]!r}...]: the {what} {bad!r} "
                              "cannot be written in GGF")
        out.append(f"{name}[{escape(value)}]")

    extra = dict(game.extra)
    if game.place:
        tag("PC", game.place)
    raw_dt = extra.pop("DT", None)
    if raw_dt is not None and date_from_dt(raw_dt) == game.date:
        tag("DT", raw_dt)
    elif game.date:
        tag("DT", dt_from_date(game.date))
    tag("PB", game.black)
    tag("PW", game.white)
    for key in ("RB", "RW"):
        if key in extra:
            tag(key, extra.pop(key))
    if game.time_control:
        tag("TI", game.time_control)
    tag("TY", extra.pop("TY", str(game.start.size)))
    raw_re = extra.pop("RE", None)
    if game.result is not None:
        tag("RE", result_value(game.result, game.result_note))
    elif raw_re is not None:
        tag("RE", raw_re)
    tag("BO", board_value(game.start))
    if game.event:
        tag("EV", game.event)
    if game.draw_win_right is not None:
        tag("DW", "B" if game.draw_win_right is Color.BLACK else "W")
    for key, value in extra.items():
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", key) or key.upper() in _MODEL_TAGS:
            raise RecordError(f"extra field {key!r} cannot be written as a GGF tag")
        tag(key, value)
    for comment in game.comments:
        tag("C", join_comments(comment))
    for mv in game.moves:
        value = "PA" if mv.square is None else mv.square
        if mv.eval is not None or mv.time is not None:
            for number in (mv.eval, mv.time):
                if number is not None and not math.isfinite(number):
                    raise RecordError(f"move {value}: {number} is not a time or evaluation "
                                      "GGF can hold")
            ev = "" if mv.eval is None else format_number(mv.eval)
            tm = "" if mv.time is None else format_number(mv.time)
            value += f"/{ev}/{tm}"
        tag("B" if mv.player is Color.BLACK else "W", value)
        comment = join_comments(mv.comment)  # one line: GGF readers go by lines
        if mv.stands is not None:
            comment = join_comments(comment, stood_note(board_value(mv.stands)))
        if comment:
            tag("C", comment)
    out.append(";)")
    return "".join(out)


def write_ggf_games(games: list[GameRecord]) -> str:
    """A GGF file: one game per line."""
    lines = []
    for index, game in enumerate(games, 1):
        try:
            lines.append(write_ggf(game))
        except RecordError as exc:
            raise RecordError(f"game {index}: {exc}") from None
    return "".join(line + "\n" for line in lines)

