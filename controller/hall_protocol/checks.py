"""Checking what comes off the network: every field a reader relies on, named on failure.

Split from :mod:`controller.hall_protocol.protocol` (which re-exports what callers need): the
protocol module says what the messages are, this one how strictly they are read.
"""

from __future__ import annotations

import builtins
import json
import math
import re
from typing import Any

from controller.errors import KaeshiError
from controller.events import Irregularity
from controller.tomlconfig import is_control

VERSION = 1
#: Highest table number a topic may carry (a hall of a thousand tables is far away).
MAX_TABLE = 9999
#: Largest payload accepted; a state with 64 squares and a few flags is ~1 kB.
MAX_PAYLOAD = 64 * 1024

EVENT_KINDS = ("move", "pass", "irregularity", "corrected", "resync", "game_over", "clock")
COLORS = ("black", "white")
#: The irregularity kinds a table may name; any other is refused at the edge.
IRREGULARITY_KINDS = tuple(kind.value for kind in Irregularity)
MODES = ("home", "tournament", "record")
COMMANDS = (
    "next_game", "pause", "resume", "adjust_time", "accept_board", "correct_board", "toss",
)
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
SQUARE_RE = re.compile(r"^[a-h][1-8]$")
PLY_RE = re.compile(r"^(black|white) [a-h][1-8]$")
GAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$")
BOARD_RE = re.compile(r"^[-XOxo?]{64}$")
#: An official position has no unknown or shifted square: every disc is a disc.
POSITION_RE = re.compile(r"^[-XO]{64}$")



class ProtocolError(KaeshiError, ValueError):
    """A payload or topic that does not follow the protocol; names where and what."""


class Reader:
    """Field access that names the topic and the field in every error."""

    def __init__(self, where: str, d: Any) -> None:
        if not isinstance(d, dict):
            raise ProtocolError(f"{where}: the payload is not a JSON object")
        self.where = where
        self.d = d

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

    def num(self, key: str, null: bool = False) -> Any:
        v = self.d.get(key)
        if v is None and null:
            return None
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise self.fail(key, "a number")
        return float(v)

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
        if not isinstance(v, list) or len(v) > 64 or not all(
            isinstance(s, str) and SQUARE_RE.match(s) for s in v
        ):
            raise self.fail(key, "a list of squares a1-h8")
        return list(v)

    def obj(self, key: builtins.str, null: builtins.bool = False) -> Any:
        v = self.d.get(key)
        if v is None and null:
            return None
        if not isinstance(v, dict):
            raise self.fail(key, "a JSON object")
        return Reader(f"{self.where} {key}", v)


def load_payload(where: str, payload: bytes) -> Reader:
    if len(payload) > MAX_PAYLOAD:
        raise ProtocolError(f"{where}: payload of {len(payload)} bytes is too large")
    try:
        d = json.loads(payload)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"{where}: not JSON ({exc})") from None
    r = Reader(where, d)
    if d.get("v") != VERSION:
        raise r.fail("v", f"protocol version {VERSION}")
    return r


def check_event(r: Reader) -> dict[str, Any]:
    r.num("t")
    kind = r.choice("event", EVENT_KINDS)
    if kind in ("move", "pass", "irregularity"):
        r.choice("player", COLORS)
    if kind == "move":
        r.str("square", SQUARE_RE)
        r.squares("flips")
    elif kind in ("irregularity", "corrected"):
        r.choice("kind", IRREGULARITY_KINDS)
        r.squares("squares")
    elif kind == "resync":
        r.squares("squares")
        r.choice("to_move", COLORS, null=True)
        moves = r.d.get("moves", [])
        if not isinstance(moves, list) or len(moves) > 64 or not all(
            isinstance(m, str) and PLY_RE.match(m) for m in moves
        ):
            raise r.fail("moves", 'a list of moves such as "white f4"')
    elif kind == "game_over":
        r.int("black", 0, 64)
        r.int("white", 0, 64)
        r.choice("winner", (*COLORS, "draw"))
    elif kind == "clock":
        r.num("black", null=True)
        r.num("white", null=True)
        r.choice("running", COLORS, null=True)
    return dict(r.d)


def check_position(r: Reader) -> tuple[str | None, str | None]:
    """The optional official position of an event message: ``board`` (64 of ``-XO``)
    and ``to_move`` (a colour, or null once the game is over); both absent is (None, None).
    """
    if "board" not in r.d:
        if r.d.get("to_move") is not None:
            raise r.fail("board", "given with to_move (the position after the step)")
        return None, None
    return r.str("board", POSITION_RE), r.choice("to_move", COLORS, null=True)


def check_command_args(where: str, command: str, d: dict[str, Any]) -> None:
    r = Reader(where, d)
    if command == "adjust_time":
        r.choice("color", COLORS)
        secs = r.num("seconds")
        if abs(secs) > 36000:
            raise r.fail("seconds", "at most 10 hours either way")
    elif command == "correct_board":
        r.str("board", re.compile(r"^[-XO]{64}$"))
    elif command in ("next_game", "toss"):
        r.int("round", 0, 10_000)
        for side in ("black", "white"):
            if any(is_control(c) for c in r.str(side, max_len=100)):
                raise r.fail(side, "a name without control or bidirectional characters")
        if command == "toss":  # the 伏せ石 gave the right to one of them
            r.choice("draw_win_right", COLORS)
            return
        minutes = r.num("minutes")
        if not 0 < minutes <= 600:
            raise r.fail("minutes", "0-600 minutes")
        r.choice("draw_win_right", ("none", *COLORS))
        r.bool("draws_allowed", True)
