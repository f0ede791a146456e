"""Kaeshi's own JSON form: every field of every game, nothing lost.

The other formats each drop something (WTHOR the clocks, transcripts everything
but the squares); this one is what the service stores and what conversions go
through when in doubt. A file is one object::

    {"format": "kaeshi-games", "version": 1, "games": [GAME, ...]}

and a GAME has every :class:`GameRecord` field, with the start position as
``{"board": <board string>, "to_move": "black", "size": 8}`` and each move as
``{"player": "black", "square": "f5" | null, "time": .., "eval": .., "comment": ..,
"stands": {"board": .., "to_move": ..}}`` (``time``, ``eval``, ``comment`` and ``stands``
only when set; ``stands`` is the board play went on from when the rules do not give it).
Games are written one per line.
Readers accept a file that is a bare list of games, too.
"""

from __future__ import annotations

import json
from typing import Any

from controller import strictjson
from controller.boardsize import STANDARD
from controller.position import Position
from controller.records.model import GameRecord, Move, RecordError
from controller.records.replay import Step, replay
from controller.records.scan import Scan
from controller.squares import BoardStringError, Color, parse_square

FORMAT = "kaeshi-games"
VERSION = 1

_TEXT_FIELDS = ("black", "white", "event", "date", "place", "result_note", "time_control")


def game_to_dict(game: GameRecord) -> dict[str, Any]:
    """Every field; moves exactly as the record holds them (checked when read back)."""
    return {
        "black": game.black,
        "white": game.white,
        "event": game.event,
        "date": game.date,
        "place": game.place,
        "start": {
            "board": game.start.board_string(),
            "to_move": game.start.to_move.value,
            "size": game.start.size,
        },
        "moves": [_move(m) for m in game.moves],
        "result": list(game.result) if game.result is not None else None,
        "result_note": game.result_note,
        "draw_win_right": game.draw_win_right.value if game.draw_win_right else None,
        "time_control": game.time_control,
        "comments": list(game.comments),
        "extra": dict(game.extra),
    }


def _move(m: Move) -> dict[str, Any]:
    out: dict[str, Any] = {"player": m.player.value, "square": m.square}
    if m.time is not None:
        out["time"] = m.time
    if m.eval is not None:
        out["eval"] = m.eval
    if m.comment:
        out["comment"] = m.comment
    if m.stands is not None:
        out["stands"] = {"board": m.stands.board_string(), "to_move": m.stands.to_move.value}
    return out


def dumps(games: list[GameRecord]) -> str:
    """The JSON file: a small header, then one game per line (diff- and grep-friendly)."""
    docs = [game_to_dict(game) for game in games]
    lines = ",\n".join(_game_line(d) for d in docs)
    return (f'{{"format": "{FORMAT}", "version": {VERSION}, "games": [\n'
            + lines + ("\n" if docs else "") + "]}\n")


def _game_line(doc: dict[str, Any]) -> str:
    """One game's JSON; a value no reader could take back (NaN, a lone surrogate) is
    refused, naming the game, instead of being written."""
    why = strictjson.problem(doc, strictjson.PAGE_DEPTH, text=True)
    if why:
        raise RecordError(f"{doc.get('black', '?')} vs {doc.get('white', '?')}: "
                          f"cannot write {why}".encode("utf-8", "replace").decode())
    return json.dumps(doc, ensure_ascii=False, allow_nan=False)


def _text(doc: dict[str, Any], key: str) -> str:
    value = doc.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise RecordError(f"field {key!r} must be a string, not {type(value).__name__}")
    return value


def _number(value: object, what: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise RecordError(f"{what} must be a number or null")
    try:
        number = float(value)
    except OverflowError:
        raise RecordError(f"{what} is out of range ({len(str(value))} digits)") from None
    if number != number or number in (float("inf"), float("-inf")):
        raise RecordError(f"{what} must be a finite number")
    return number


def _color(value: object, what: str) -> Color:
    if not isinstance(value, str):
        raise RecordError(f"{what} must be \"black\" or \"white\"")
    try:
        return Color.parse(value)
    except BoardStringError as exc:
        raise RecordError(f"{what}: {exc}") from None


def _stands(value: object, number: int, size: int) -> Position | None:
    """A move's ``stands``: the board play went on from, when the rules do not give it."""
    if value is None:
        return None
    if not isinstance(value, dict) or not isinstance(value.get("board"), str):
        raise RecordError(f"move {number}: stands must be {{\"board\": ..., \"to_move\": ...}}")
    try:
        return Position.from_board_string(
            value["board"], _color(value.get("to_move", "black"), f"move {number}: stands"),
            size)
    except BoardStringError as exc:
        raise RecordError(f"move {number}: stands: {exc}") from None


def game_from_dict(doc: object) -> tuple[GameRecord, Position]:
    """A record from its JSON object, checked field by field and replayed."""
    if not isinstance(doc, dict):
        raise RecordError("a game must be a JSON object")
    texts = {key: _text(doc, key) for key in _TEXT_FIELDS}
    game = GameRecord(black=texts["black"], white=texts["white"], event=texts["event"],
                      date=texts["date"], place=texts["place"],
                      result_note=texts["result_note"], time_control=texts["time_control"])
    start = doc.get("start")
    if start is not None:
        if not isinstance(start, dict) or not isinstance(start.get("board"), str):
            raise RecordError("start must be {\"board\": ..., \"to_move\": ..., \"size\": ...}")
        size = start.get("size", STANDARD)
        if not isinstance(size, int) or isinstance(size, bool):
            raise RecordError("start.size must be 6, 8 or 10")
        try:
            game.start = Position.from_board_string(
                start["board"], _color(start.get("to_move", "black"), "start.to_move"), size)
        except BoardStringError as exc:
            raise RecordError(f"start: {exc}") from None
    moves = doc.get("moves", [])
    if not isinstance(moves, list):
        raise RecordError("moves must be a list")
    steps = []
    for number, mv in enumerate(moves, 1):
        if not isinstance(mv, dict):
            raise RecordError(f"move {number} must be an object")
        square = mv.get("square")
        comment = mv.get("comment") or ""
        if not isinstance(comment, str):
            raise RecordError(f"move {number}: comment must be a string")
        try:
            sq = None if square is None else parse_square(str(square), game.start.size)
        except BoardStringError as exc:
            raise RecordError(f"move {number}: {exc}") from None
        steps.append(Step(sq, _color(mv.get("player"), f"move {number}: player"),
                          _number(mv.get("time"), f"move {number}: time"),
                          _number(mv.get("eval"), f"move {number}: eval"), comment,
                          _stands(mv.get("stands"), number, game.start.size)))
    game.moves, final = replay(game.start, steps)
    result = doc.get("result")
    if result is not None:
        if (not isinstance(result, list) or len(result) != 2
                or not all(isinstance(x, int) and not isinstance(x, bool) for x in result)
                or not all(0 <= x <= 100 for x in result)):
            raise RecordError("result must be [black, white] disc counts or null")
        game.result = (result[0], result[1])
    dwr = doc.get("draw_win_right")
    game.draw_win_right = None if dwr is None else _color(dwr, "draw_win_right")
    comments = doc.get("comments", [])
    if not isinstance(comments, list) or not all(isinstance(c, str) for c in comments):
        raise RecordError("comments must be a list of strings")
    game.comments = list(comments)
    extra = doc.get("extra", {})
    if not isinstance(extra, dict) or not all(isinstance(v, str) for v in extra.values()):
        raise RecordError("extra must be an object of strings")
    game.extra = dict(extra)
    return game, final


def scan_json_text(text: str, source: str = "<json>") -> Scan:
    try:
        doc = json.loads(text)
    except ValueError as exc:
        raise RecordError(f"{source}: not JSON: {exc}") from None
    except RecursionError:
        raise RecordError(f"{source}: not a games file: JSON nested too deeply") from None
    if isinstance(doc, dict):
        if doc.get("format") != FORMAT:
            raise RecordError(f"{source}: not a Kaeshi games file (\"format\" should be "
                              f"{FORMAT!r})")
        version = doc.get("version")
        if not isinstance(version, int) or version > VERSION or version < 1:
            raise RecordError(f"{source}: version {_short(version)} not supported "
                              f"(this Kaeshi reads up to {VERSION})")
        doc = doc.get("games")
    if not isinstance(doc, list):
        raise RecordError(f"{source}: \"games\" must be a list")
    scan = Scan(source)
    for item in doc:
        try:
            game, final = game_from_dict(item)
        except RecordError as exc:
            scan.fail(str(exc))
            continue
        scan.add(game, final)
    return scan


def loads(text: str, source: str = "<json>") -> list[GameRecord]:
    return scan_json_text(text, source).records()



def _short(value: object) -> str:
    """A value for a message, cut short (a 400-digit version is not repeated whole)."""
    text = repr(value)
    return text if len(text) <= 20 else text[:17] + "..."
