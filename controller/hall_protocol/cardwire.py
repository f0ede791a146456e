"""The score card's two records on the wire, inside a table's retained ``state``:
``signoff`` (rule 15: the players' signatures of the result) and ``late`` (rules
11–12).  Both are optional, so a table that does not send them is read as before
and its results go to the arbiter.  Split from :mod:`controller.hall_protocol.protocol`, which
encodes and decodes a state with these two functions and nothing else does.

``signoff``: ``{"black", "white", "winner", "black_says", "white_says", "flags"}``
— discs, the result, each player's answer (true / false / null) and the table's
reasons to ask the arbiter anyway.
``late``: ``{"late", "present", "minutes", "state", "clock_from", "arrived_at"}``
— names, the late player's allotted minutes, the state
(:data:`controller.scorecard.LATE_STATES`) and the table times of the clock start and
the arrival.
"""

from __future__ import annotations

import re
from typing import Any

from controller.boardsize import board_size
from controller.hall_protocol.checks import TIME_HIGH, ProtocolError, Reader
from controller.scorecard import LATE_STATES, WINNERS, LateArrival, ScoreCardError, SignOff

_REASON = re.compile(r"^[^\x00-\x1f]{1,120}$")


def encode_signoff(s: SignOff) -> dict[str, Any]:
    return {"black": s.black, "white": s.white, "winner": s.winner,
            "black_says": s.black_says, "white_says": s.white_says, "flags": list(s.flags)}


def encode_late(x: LateArrival) -> dict[str, Any]:
    return {"late": x.late, "present": x.present, "minutes": x.minutes, "state": x.state,
            "clock_from": x.clock_from, "arrived_at": x.arrived_at}


def _says(r: Reader, key: str) -> bool | None:
    v = r.d.get(key)
    if v is not None and not isinstance(v, bool):
        raise r.fail(key, "true, false or null")
    return v


def decode_signoff(r: Reader | None) -> SignOff | None:
    if r is None:
        return None
    flags = r.d.get("flags", [])
    if not isinstance(flags, list) or len(flags) > 16 or not all(
            isinstance(f, str) and _REASON.match(f) for f in flags):
        raise r.fail("flags", "a list of short reasons")
    try:
        squares = board_size(r.size).squares  # of the board the state is about
        return SignOff(r.int("black", 0, squares), r.int("white", 0, squares),
                       r.choice("winner", WINNERS), _says(r, "black_says"),
                       _says(r, "white_says"), tuple(flags), size=r.size)
    except ScoreCardError as exc:
        raise ProtocolError(f"{r.where}: {exc}") from None


def decode_late(r: Reader | None) -> LateArrival | None:
    if r is None:
        return None
    try:
        return LateArrival(r.name("late"), r.name("present"),
                           r.num("minutes", low=0.0, high=600.0), r.choice("state", LATE_STATES),
                           r.num("clock_from", null=True, low=0.0, high=TIME_HIGH),
                           r.num("arrived_at", null=True, low=0.0, high=TIME_HIGH))
    except ScoreCardError as exc:
        raise ProtocolError(f"{r.where}: {exc}") from None
