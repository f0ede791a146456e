"""Checking what comes off the network: every field a reader relies on, named on failure.

Split from :mod:`controller.hall_protocol.protocol` (which re-exports what callers need): the
protocol module says what the messages are, this one how strictly they are read.
"""

from __future__ import annotations

import builtins
import math
import re
from functools import cache
from typing import Any

from controller import strictjson
from controller.boardsize import SIZES, STANDARD, board_size
from controller.errors import KaeshiError
from controller.events import Irregularity
from controller.tomlconfig import is_control

VERSION = 1
#: Highest table number a topic may carry (a hall of a thousand tables is far away).
MAX_TABLE = 9999
#: Largest payload accepted; a state of a 10x10 board and a few flags is ~2 kB.
MAX_PAYLOAD = 1 << 16

EVENT_KINDS = ("move", "pass", "irregularity", "corrected", "pointed_out", "resync", "game_over",
               "clock")
COLORS = ("black", "white")
#: The irregularity kinds a table may name; any other is refused at the edge.
IRREGULARITY_KINDS = tuple(kind.value for kind in Irregularity)
MODES = ("home", "tournament", "record")
COMMANDS = (
    "next_game", "pause", "resume", "adjust_time", "accept_board", "correct_board", "toss",
)
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
GAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")


@cache
def patterns(size: int = STANDARD) -> tuple[re.Pattern[str], ...]:
    """``(square, ply, board, position)`` of a ``size`` board; a position has no unknown
    or shifted square: every disc is a disc."""
    b = board_size(size)
    last = b.columns[-1]
    row = "(?:10|[1-9])" if size == 10 else f"[1-{size}]"
    square = rf"[a-{last}]{row}"
    return (re.compile(rf"^{square}$"), re.compile(rf"^(black|white) {square}$"),
            re.compile(rf"^[-XOxo?]{{{b.squares}}}$"), re.compile(rf"^[-XO]{{{b.squares}}}$"))


SQUARE_RE, PLY_RE, BOARD_RE, POSITION_RE = patterns(STANDARD)
#: Deepest nesting of any payload (a state's signoff flags are four levels down).
MAX_DEPTH = 6
#: A clock's remaining seconds: an hour past a fallen flag at most (a clock left
#: running in a home game), a day at most (600 minutes and ten hours of adjustments).
CLOCK_LOW, CLOCK_HIGH = -3600.0, 86400.0
#: A game time ``t`` (seconds; a replay may use the log's own epoch times).
TIME_HIGH = 2.0**33
#: A wall time (seconds since 1970), up to the year 2242.
WALL_LOW, WALL_HIGH = 0.0, 2.0**33



class ProtocolError(KaeshiError, ValueError):
    """A payload or topic that does not follow the protocol; names where and what."""


class Reader:
    """Field access that names the topic and the field in every error."""

    def __init__(self, where: str, d: Any, size: int = STANDARD) -> None:
        if not isinstance(d, dict):
            raise ProtocolError(f"{where}: the payload is not a JSON object")
        self.where = where
        self.d = d
        self.size = size  # of the board the message is about: its squares are checked on it

    def fail(self, key: str, want: str) -> ProtocolError:
        return ProtocolError(f"{self.where}: field {key!r} must be {want}, "
                             f"not {self.d.get(key)!r}"[:300])

    def int(self, key: str, low: int = 0, high: int = 2**53, null: bool = False) -> Any:
        v = self.d.get(key)
        if v is None and null:
            return None
        if isinstance(v, bool) or not isinstance(v, int) or not low <= v <= high:
            raise self.fail(key, f"an integer {low}-{high}")
        return v

    def num(self, key: str, null: bool = False, low: float = -2.0**53,
            high: float = 2.0**53) -> Any:
        v = self.d.get(key)
        if v is None and null:
            return None
        if (isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v)
                or not low <= v <= high):
            raise self.fail(key, f"a number {low:g} to {high:g}")
        return float(v)

    def name(self, key: builtins.str, max_len: builtins.int = 100) -> builtins.str:
        """A person's name: no control or bidirectional character, at most ``max_len``."""
        v = self.str(key, max_len=max_len)
        if any(is_control(c) for c in v) or strictjson.string_problem(v):
            raise self.fail(key, "a name without control or bidirectional characters")
        return builtins.str(v)

    def str(self, key: builtins.str, pattern: re.Pattern[builtins.str] | None = None,
            max_len: builtins.int = 200,
            null: builtins.bool = False, default: builtins.str | None = None) -> Any:
        v = self.d.get(key, default)
        if v is None and null:
            return None
        if not isinstance(v, str) or len(v) > max_len or (pattern and not pattern.match(v)):
            raise self.fail(key, "a valid string")
        return v

    def choice(self, key: builtins.str, choices: tuple[builtins.str, ...],
               null: builtins.bool = False) -> Any:
        v = self.d.get(key)
        if v is None and null:
            return None
        if v not in choices:
            raise self.fail(key, " / ".join(choices) + (" / null" if null else ""))
        return v

    def bool(self, key: builtins.str, default: builtins.bool = False) -> builtins.bool:
        v = self.d.get(key, default)
        if not isinstance(v, bool):
            raise self.fail(key, "true or false")
        return v

    def squares(self, key: builtins.str) -> list[builtins.str]:
        v = self.d.get(key)
        square = patterns(self.size)[0]
        if not isinstance(v, list) or len(v) > board_size(self.size).squares or not all(
            isinstance(s, str) and square.match(s) for s in v
        ):
            b = board_size(self.size)
            raise self.fail(key, f"a list of squares a1-{b.columns[-1]}{b.n}")
        return list(v)

    def board_size(self) -> builtins.int:
        """The message's ``size`` (absent: 8x8, as every message was before other sizes)."""
        if "size" not in self.d:
            return STANDARD
        v = self.d["size"]
        if isinstance(v, bool) or not isinstance(v, builtins.int) or v not in SIZES:
            raise self.fail("size", " / ".join(map(builtins.str, SIZES)))
        self.size = v
        return builtins.int(v)

    def obj(self, key: builtins.str, null: builtins.bool = False) -> Any:
        v = self.d.get(key)
        if v is None and null:
            return None
        if not isinstance(v, dict):
            raise self.fail(key, "a JSON object")
        return Reader(f"{self.where} {key}", v, self.size)


def load_payload(where: str, payload: bytes) -> Reader:
    """The payload as a clean JSON object (:mod:`controller.strictjson`: valid Unicode
    without control characters, finite numbers, shallow) of this protocol version."""
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"{where}: payload of {len(payload)} bytes is too large")
    try:
        d = strictjson.loads(payload, MAX_DEPTH)
    except strictjson.StrictJSONError as exc:
        raise ProtocolError(f"{where}: {exc}"[:300]) from None
    r = Reader(where, d)
    if d.get("v") != VERSION:
        raise r.fail("v", f"protocol version {VERSION}")
    return r


_WORD = re.compile(r"^[a-z_]{1,40}$")


def check_event(r: Reader) -> dict[str, Any]:
    r.num("t", low=0.0, high=TIME_HIGH)
    kind = r.choice("event", EVENT_KINDS)
    square, ply = patterns(r.size)[:2]
    squares = board_size(r.size).squares
    if kind in ("move", "pass", "irregularity", "pointed_out"):
        r.choice("player", COLORS)
    if kind == "pointed_out":
        r.squares("squares")
    if kind == "move":
        r.str("square", square)
        r.squares("flips")
    elif kind in ("irregularity", "corrected"):
        r.choice("kind", IRREGULARITY_KINDS)
        r.squares("squares")
    elif kind == "resync":
        r.squares("squares")
        r.choice("to_move", COLORS, null=True)
        moves = r.d.get("moves", [])
        if not isinstance(moves, list) or len(moves) > squares or not all(
            isinstance(m, str) and ply.match(m) for m in moves
        ):
            raise r.fail("moves", 'a list of moves such as "white f4"')
    elif kind == "game_over":
        if r.int("black", 0, squares) + r.int("white", 0, squares) > squares:
            raise r.fail("white", f"a count within the {squares} squares with black's")
        r.choice("winner", (*COLORS, "draw"))
        for key in ("reason", "decided_by"):
            if r.d.get(key) is not None:
                r.str(key, _WORD)
        r.choice("loser", COLORS, null=True)
    elif kind == "clock":
        r.num("black", null=True, low=CLOCK_LOW, high=CLOCK_HIGH)
        r.num("white", null=True, low=CLOCK_LOW, high=CLOCK_HIGH)
        r.choice("running", COLORS, null=True)
    return dict(r.d)


def check_position(r: Reader) -> tuple[str | None, str | None]:
    """The optional official position of an event message: ``board`` (``-XO``, one per
    square of the message's board) and ``to_move`` (a colour, or null once the game is
    over); both absent is (None, None).
    """
    if "board" not in r.d:
        if r.d.get("to_move") is not None:
            raise r.fail("board", "given with to_move (the position after the step)")
        return None, None
    return r.str("board", patterns(r.size)[3]), r.choice("to_move", COLORS, null=True)


def check_command_args(where: str, command: str, d: dict[str, Any]) -> None:
    r = Reader(where, d)
    if command == "adjust_time":
        r.choice("color", COLORS)
        secs = r.num("seconds")
        if abs(secs) > 36000:
            raise r.fail("seconds", "at most 10 hours either way")
    elif command == "correct_board":  # of the table's board, whichever size it plays
        if not any(patterns(n)[3].match(str(d.get("board", ""))) for n in SIZES):
            raise r.fail("board", "an official position (-XO, one per square)")
    elif command in ("next_game", "toss"):
        r.int("round", 0, 10_000)
        for side in ("black", "white"):
            r.name(side)
        if command == "toss":  # the 伏せ石 gave the right to one of them
            r.choice("draw_win_right", COLORS)
            return
        minutes = r.num("minutes")
        if not 0 < minutes <= 600:
            raise r.fail("minutes", "0-600 minutes")
        r.choice("draw_win_right", ("none", *COLORS))
        r.bool("draws_allowed", True)
        r.board_size()  # the event's board (absent: 8x8, a hub from before sizes)
