"""Events: what the arbiter says, one JSON object a line (docs/architecture.md).

Every output — LEDs, web page, journal, records, terminal — reads these, so their
shape is fixed here once. Extra fields are allowed (for example ``reason`` on a
``game_over`` decided by the clock) but the required ones are always present.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class EventKind(StrEnum):
    MOVE = "move"
    PASS = "pass"
    IRREGULARITY = "irregularity"
    CORRECTED = "corrected"
    GAME_OVER = "game_over"
    #: The arbiter found its step again: the board was not the expected player's move
    #: but is reached by legal play, and it was adopted (see ``arbiter.explain``).
    RESYNC = "resync"
    #: The opponent pressed to hand the turn back and pointed out the last move's faults
    #: (rule 5①): ``player`` (the offender) must put ``squares`` right and press.
    POINTED_OUT = "pointed_out"


class Irregularity(StrEnum):
    """The irregular moves of the tournament rules (第41期名人戦 ルール細則 5①)."""

    FORGOTTEN_FLIP = "forgotten_flip"
    OVER_FLIP = "over_flip"
    WRONG_COLOR = "wrong_color"
    #: 手番の間違い: a legal move of the side not to move, played and pressed while the
    #: side to move could play (a clock game's press says who moved).
    OUT_OF_TURN = "out_of_turn"
    ILLEGAL_SQUARE = "illegal_square"
    EXTRA_DISC = "extra_disc"
    REMOVED_DISC = "removed_disc"
    SHIFTED_DISC = "shifted_disc"
    ILLEGAL_PASS = "illegal_pass"


@dataclass(frozen=True, slots=True)
class Event:
    t: float
    event: EventKind
    fields: dict[str, Any] = field(default_factory=dict)

    def __getitem__(self, key: str) -> Any:
        return self.fields[key]

    def to_dict(self) -> dict[str, Any]:
        return {"t": round(self.t, 6), "event": self.event.value, **self.fields}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(", ", ": "))

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Event:
        rest = {k: v for k, v in d.items() if k not in ("t", "event")}
        return cls(float(d["t"]), EventKind(d["event"]), rest)


def move(t: float, player: str, square: str, flips: list[str]) -> Event:
    return Event(t, EventKind.MOVE, {"player": player, "square": square, "flips": flips})


def pass_(t: float, player: str) -> Event:
    return Event(t, EventKind.PASS, {"player": player})


def irregularity(t: float, player: str, kind: Irregularity, squares: list[str]) -> Event:
    return Event(
        t, EventKind.IRREGULARITY, {"player": player, "kind": kind.value, "squares": squares}
    )


def corrected(t: float, kind: Irregularity, squares: list[str],
              pointed_out: bool = False) -> Event:
    """An irregularity put right; ``pointed_out`` when the opponent had pointed it out,
    False when the mover put it right unprompted (journals written before the key
    existed have neither, and their records say only that it was put right)."""
    return Event(t, EventKind.CORRECTED, {"kind": kind.value, "squares": squares,
                                          "pointed_out": pointed_out})


def pointed_out(t: float, player: str, squares: list[str]) -> Event:
    """The opponent pointed out ``player``'s faults on ``squares`` (every square flagged)."""
    return Event(t, EventKind.POINTED_OUT, {"player": player, "squares": squares})


def game_over(t: float, black: int, white: int, winner: str, **extra: Any) -> Event:
    return Event(
        t, EventKind.GAME_OVER, {"black": black, "white": white, "winner": winner, **extra}
    )


def resync(t: float, squares: list[str], to_move: str, moves: list[str]) -> Event:
    """The board adopted: ``squares`` differed from the arbiter's position, ``moves``
    (``"white f4"``) explain them, ``to_move`` plays next."""
    return Event(t, EventKind.RESYNC, {"squares": squares, "to_move": to_move, "moves": moves})


def numbered(events: list[Event], moves: int) -> list[dict[str, Any]]:
    """``events`` of one step as dicts, each move and pass with its number ``n`` in the
    game (1-60 as on a kifu, passes counted): ``moves`` is the record's length after the
    step, so the step's last move or pass is move ``moves``. For what people read (the
    pages, the terminal); the journal keeps the events as the arbiter said them."""
    plies = sum(1 for e in events if e.event in (EventKind.MOVE, EventKind.PASS))
    out = []
    k = moves - plies
    for e in events:
        d = e.to_dict()
        if e.event in (EventKind.MOVE, EventKind.PASS):
            k += 1
            if k > 0:
                d["n"] = k
        out.append(d)
    return out
