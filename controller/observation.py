"""Observations: the one input every sensor path produces and the arbiter consumes.

An observation is either a whole-board reading or a clock-button press, each with
a time in seconds. Logs of them are JSON Lines (docs/architecture.md, "What flows
between the parts"), so a session
recorded from a camera or a sensor board replays bit-for-bit without hardware.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from controller.errors import KaeshiError
from controller.squares import OBSERVATION_ALPHABET, Color, validate_board_string


class ObservationLogError(KaeshiError):
    """A line of an observation log that cannot be used; names the line and the fault."""


#: Largest time accepted, in seconds (about 31,700 years): beyond it a time stamp is
#: damage, and a float would lose the milliseconds a clock needs.
MAX_T = 1e12


@dataclass(frozen=True, slots=True)
class Observation:
    """A board reading (``board`` set) or a clock press (``press`` set), at time ``t``."""

    t: float
    board: str | None = None
    press: Color | None = None

    def to_dict(self) -> dict[str, object]:
        d: dict[str, object] = {"t": round(self.t, 6)}
        if self.board is not None:
            d["board"] = self.board
        if self.press is not None:
            d["press"] = self.press.value
        return d

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(", ", ": "))


def board_observation(t: float, board: str) -> Observation:
    return Observation(t, board=validate_board_string(board, 8, OBSERVATION_ALPHABET))


def parse_observation(line: str, lineno: int = 0, size: int = 8) -> Observation:
    """Read one JSON line; raise :class:`ObservationLogError` naming the line on any fault."""
    where = f"line {lineno}" if lineno else "observation"
    try:
        obj = json.loads(line)
    except json.JSONDecodeError as exc:
        raise ObservationLogError(f"{where}: not JSON ({exc.msg})") from None
    except ValueError as exc:  # e.g. an integer of thousands of digits
        raise ObservationLogError(f"{where}: not usable JSON ({exc})") from None
    except RecursionError:
        raise ObservationLogError(f"{where}: not an observation (JSON nested too "
                                  "deeply)") from None
    if not isinstance(obj, dict):
        raise ObservationLogError(f"{where}: expected a JSON object")
    t = obj.get("t")
    if isinstance(t, bool) or not isinstance(t, int | float):
        raise ObservationLogError(f"{where}: missing or non-numeric 't'")
    if t != t or t in (float("inf"), float("-inf")):
        raise ObservationLogError(f"{where}: 't' must be a finite number")
    if not -MAX_T <= t <= MAX_T:
        raise ObservationLogError(f"{where}: 't' is out of range (at most {MAX_T:.0e} "
                                  "seconds)")
    has_board, has_press = "board" in obj, "press" in obj
    if has_board == has_press:
        raise ObservationLogError(f"{where}: needs exactly one of 'board' or 'press'")
    if has_board:
        board = obj["board"]
        if not isinstance(board, str):
            raise ObservationLogError(f"{where}: 'board' must be a string")
        try:
            board = validate_board_string(board, size, OBSERVATION_ALPHABET)
        except ValueError as exc:
            raise ObservationLogError(f"{where}: {exc}") from None
        return Observation(float(t), board=board)
    press = obj["press"]
    if press not in ("black", "white"):
        raise ObservationLogError(f"{where}: 'press' must be \"black\" or \"white\", not {press!r}")
    return Observation(float(t), press=Color(press))


def read_observations(lines: Iterable[str], size: int = 8) -> Iterator[Observation]:
    """Parse a log lazily; blank lines are skipped, time must never go backwards."""
    last = float("-inf")
    for lineno, line in enumerate(lines, 1):
        if not line.strip():
            continue
        obs = parse_observation(line, lineno, size)
        if obs.t < last:
            raise ObservationLogError(
                f"line {lineno}: time goes backwards ({obs.t} after {last})"
            )
        last = obs.t
        yield obs


def write_observations(observations: Iterable[Observation], out: IO[str]) -> int:
    n = 0
    for obs in observations:
        out.write(obs.to_json() + "\n")
        n += 1
    return n
