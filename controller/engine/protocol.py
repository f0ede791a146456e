"""The two engine protocols, defined once for the client and the project's own engine.

NBoard (Edax ``-nboard``, NTest, Novello): the GUI sends one command per line
(``nboard 2``, ``set depth N``, ``set game GGF``, ``move F5``, ``hint N``, ``go``,
``ping N``); the engine answers ``=== F5/score/time`` to ``go``,
``search F5 score 0 depth`` (or ``book ...``) lines to ``hint``, and ``pong N`` once
everything sent before the ping is done. Scores are from the side to move's view.

GTP (Egaroucid's ``-gtp`` mode, as GoGui uses it): ``boardsize 8``,
``clear_board``, ``play black d3``, ``genmove white``; each answer is ``= text``
or ``? error`` ended by a blank line. Squares are written as in Othello records
(column a-h, row 1 at the top), passes as ``PASS``.

This module only formats and parses lines; it does no I/O.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from controller.boardsize import STANDARD
from controller.engine.timing import Clock, ggf_time_control
from controller.position import Position
from controller.squares import BoardStringError, Color, parse_square, square_name

PROTOCOLS = ("nboard", "gtp")
NBOARD_VERSION = 2

_MOVE = re.compile(r"^(?:[a-jA-J][1-9][0-9]?|PA|pa|PASS|pass)$")


class ProtocolError(ValueError):
    """A line the protocol does not allow, read from an engine or about to be written;
    the message quotes it."""


@dataclass(frozen=True)
class EngineMove:
    """An engine's choice: ``square`` (None: pass), its score (mover's view) if given."""

    square: str | None
    score: float | None = None
    seconds: float | None = None


# ------------------------------------------------------------- squares
def move_text(square: str | None) -> str:
    """A square as NBoard writes it (``F5``); a pass is ``PA``."""
    return "PA" if square is None else square.upper()


def parse_move(text: str, size: int = STANDARD) -> str | None:
    """``F5``/``f5`` -> ``"f5"``; ``PA``/``PASS`` -> None; anything else, or a square off
    a ``size`` board, raises."""
    token = text.strip()
    if not _MOVE.match(token):
        raise ProtocolError(f"not a move: {text[:40]!r}")
    if token.lower() in ("pa", "pass"):
        return None
    try:
        return square_name(parse_square(token.lower(), size), size)
    except BoardStringError as exc:
        raise ProtocolError(str(exc)) from None


def parse_score(text: str) -> float:
    """An NBoard eval: a number, or ``(a,b)`` (draw-to-black, draw-to-white) -> their mean."""
    t = text.strip()
    try:
        if t.startswith("(") and t.endswith(")"):
            a, b = t[1:-1].split(",")
            score = (float(a) + float(b)) / 2
        else:
            score = float(t)
    except ValueError:
        raise ProtocolError(f"not a score: {text[:40]!r}") from None
    if not math.isfinite(score):
        raise ProtocolError(f"not a score: {text[:40]!r}")
    return score


# ------------------------------------------------------------- NBoard
def ggf_game(start: Position, moves: list[str | None], clock: Clock | None = None) -> str:
    """A minimal GGF game (``set game``): the start position and the moves, passes as PA;
    with a ``clock``, the time control as ``TI`` and each move's time, so that an engine
    (NTest, Edax, Kaeshi's own) can tell what each side has left, as NBoard's GUI sends it.

    Only tags every NBoard engine reads are written; names and comments of the record
    are none of the engine's business. A side's used time is spread over its moves:
    what an engine reads is the sum.
    """
    n = start.size
    s = start.board_string().replace("X", "*")
    rows = " ".join(s[r * n:(r + 1) * n] for r in range(n))
    side = "*" if start.to_move is Color.BLACK else "O"
    ti = "" if clock is None else f"TI[{ggf_time_control(clock.main, clock.increment)}]"
    parts = [f"(;GM[Othello]PB[]PW[]{ti}TY[{n}]BO[{n} {rows} {side}]"]
    pos = start
    players = []
    for sq in moves:
        players.append(pos.to_move)
        pos = pos.pass_turn() if sq is None else pos.play(sq)
    per_move: dict[Color, float] = {}
    if clock is not None:
        for color in Color:
            n = players.count(color)
            used = clock.main + clock.increment * n - clock.left(color)
            per_move[color] = max(0.0, used) / n if n else 0.0
    for sq, player in zip(moves, players, strict=True):
        tag = "B" if player is Color.BLACK else "W"
        timing = f"//{per_move[player]:.2f}" if clock is not None else ""
        parts.append(f"{tag}[{move_text(sq)}{timing}]")
    parts.append(";)")
    return "".join(parts)


def parse_nboard_move(line: str) -> EngineMove:
    """``=== F5/1.5/0.2`` or ``=== F5 1.5 0.2`` (Edax): the move, then its eval and time.

    The slashed form is positional, as NTest writes it: an empty field is one not given,
    so ``=== F5//0.2`` is a move with a time and no eval (the protocol lets a forced move
    leave its eval out). A time that is no number, or none of a duration, is dropped:
    it is only ever shown."""
    body = line[3:].strip()
    fields = [f.strip() for f in body.split("/")] if "/" in body else body.split()
    if not fields or not fields[0]:
        raise ProtocolError(f"move line without a move: {line[:60]!r}")
    if len(fields) > 3:
        raise ProtocolError(f"move line with more than a move, eval and time: {line[:60]!r}")
    square = parse_move(fields[0])
    score = parse_score(fields[1]) if len(fields) > 1 and fields[1] else None
    seconds = _parse_seconds(fields[2]) if len(fields) > 2 and fields[2] else None
    return EngineMove(square, score, seconds)


def _parse_seconds(text: str) -> float | None:
    try:
        seconds = float(text)
    except ValueError:
        return None
    return seconds if math.isfinite(seconds) and seconds >= 0 else None


def parse_search_line(line: str) -> tuple[str | None, float]:
    """``search F5d6 1.5 0 12 ...`` or ``book F5 1.5 30 12``: the first move of the PV, score."""
    fields = line.split()
    if len(fields) < 3:
        raise ProtocolError(f"search line too short: {line[:60]!r}")
    pv = fields[1]
    return parse_move(pv[:2]), parse_score(fields[2])


_DEPTH = re.compile(r"^(\d+)(?:@(\d+(?:\.\d+)?)%)?")


def search_depth(line: str) -> tuple[float, float]:
    """How deep a hint line was searched, to compare lines: (depth, selectivity %).
    A ``book`` line outranks any search; a line without a readable depth ranks last.
    Edax writes ``21@98%``, NTest a plain number."""
    fields = line.split()
    if fields and fields[0] == "book":
        return math.inf, 100.0
    m = _DEPTH.match(fields[4]) if len(fields) > 4 else None
    if m is None:
        return -1.0, 0.0
    return float(m.group(1)), float(m.group(2) or 100.0)


def final_hints(lines: list[str]) -> tuple[dict[str | None, float], float | None]:
    """An engine's final answer to ``hint N`` from every line it printed.

    Engines deepen iteratively and print as they go: NTest prints shallow lines for
    moves it later searches deeper, or drops. So each move keeps its deepest line (the
    later of equals), and only the moves searched as deep as the deepest line count:
    a move seen at depth 1 only must not beat the depth-8 answer. Returns the scores
    and that depth (``inf`` for a book answer, None when no line gave a depth).
    """
    deepest: dict[str | None, tuple[tuple[float, float], float]] = {}
    for line in lines:
        if not line.startswith(("search ", "book ")):
            continue
        square, score = parse_search_line(line)
        depth = search_depth(line)
        if square not in deepest or depth >= deepest[square][0]:
            deepest[square] = (depth, score)
    if not deepest:
        return {}, None
    top = max(d for d, _ in deepest.values())
    return ({sq: score for sq, (d, score) in deepest.items() if d == top},
            None if top[0] < 0 else top[0])


def format_nboard_move(move: EngineMove) -> str:
    """The answer to ``go``, ``=== F5/eval/time``, written so that
    :func:`parse_nboard_move` reads back exactly ``move``: fields left out stay empty
    between the slashes (``=== F5//0.25``, a time and no eval), numbers are written in
    full. What the reader would refuse or drop (a square off the 8x8 board, a score or
    time that is no finite number, a negative time) is refused here."""
    square = move_text(move.square)
    if parse_move(square) != move.square:
        raise ProtocolError(f"not a move of an NBoard engine: {move.square!r}")
    if move.score is not None and not math.isfinite(move.score):
        raise ProtocolError(f"not a score: {move.score!r}")
    if move.seconds is not None and not (math.isfinite(move.seconds) and move.seconds >= 0):
        raise ProtocolError(f"not a time in seconds: {move.seconds!r}")
    fields = [square,
              "" if move.score is None else repr(float(move.score)),
              "" if move.seconds is None else repr(float(move.seconds))]
    while len(fields) > 1 and not fields[-1]:
        fields.pop()
    return "=== " + "/".join(fields)


def format_search_line(square: str | None, score: float, depth: int) -> str:
    return f"search {move_text(square)} {score:.2f} 0 {depth}"


def gtp_time_settings(main: float) -> str:
    """GTP's clock: ``main`` seconds each, no byo-yomi (Othello clocks have none)."""
    return f"time_settings {round(main)} 0 0"


def gtp_time_left(color: Color, seconds: float) -> str:
    return f"time_left {gtp_color(color)} {max(0, int(seconds))} 0"


# ---------------------------------------------------------------- GTP
def gtp_color(color: Color) -> str:
    return color.value


def gtp_vertex(square: str | None) -> str:
    return "PASS" if square is None else square.upper()


def gtp_ok(text: str = "") -> str:
    return f"= {text}".rstrip() + "\n\n"


def gtp_error(text: str) -> str:
    return f"? {text}\n\n"


def parse_gtp_reply(lines: list[str]) -> tuple[bool, str]:
    """The reply's lines (without the closing blank line) -> (success, text)."""
    if not lines:
        raise ProtocolError("empty GTP reply")
    head = lines[0]
    m = re.match(r"^([=?])\d*\s?(.*)$", head)
    if m is None:
        raise ProtocolError(f"GTP reply must start with '=' or '?': {head[:60]!r}")
    text = "\n".join([m.group(2), *lines[1:]]).strip()
    return m.group(1) == "=", text
