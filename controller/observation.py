"""Observations: the one input every sensor path produces and the arbiter consumes.

An observation is either a whole-board reading or a clock-button press, each with
a time in seconds. Logs of them are JSON Lines (docs/architecture.md, "What flows
between the parts"), so a session
recorded from a camera or a sensor board replays bit-for-bit without hardware.

A log written by ``kaeshi watch`` opens with a header line (:class:`LogHeader`) that
says what wrote it: the camera's source, its frame rate and the watcher's ``stable``,
which is all ``kaeshi arbitrate`` needs to hold each press for the frames after it.
Logs without one (older logs, the simulator's, the sensor board's) read as before.
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from controller.boardsize import STANDARD
from controller.errors import KaeshiError
from controller.squares import OBSERVATION_ALPHABET, Color, validate_board_string
from controller.tomlconfig import is_control


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


def board_observation(t: float, board: str, size: int = STANDARD) -> Observation:
    return Observation(t, board=validate_board_string(board, size, OBSERVATION_ALPHABET))


def _json_object(line: str, where: str) -> dict[str, Any]:
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
    return obj


def parse_observation(line: str, lineno: int = 0, size: int = STANDARD) -> Observation:
    """Read one JSON line; raise :class:`ObservationLogError` naming the line on any fault."""
    where = f"line {lineno}" if lineno else "observation"
    return _observation(_json_object(line, where), where, size)


def _observation(obj: dict[str, Any], where: str, size: int) -> Observation:
    if HEADER_KEY in obj:
        raise ObservationLogError(f"{where}: a log's header belongs on its first line only")
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


def read_log(lines: Iterable[str], size: int = STANDARD) -> tuple[LogHeader | None,
                                                          Iterator[Observation]]:
    """A log's header (None: it has none) and its observations, read lazily.

    Only the lines up to the first that is not blank are read before returning, so a
    log on standard input is judged as it comes."""
    numbered = enumerate(lines, 1)
    header: LogHeader | None = None
    first: list[tuple[int, dict[str, Any]]] = []
    for lineno, line in numbered:
        if not line.strip():
            continue
        obj = _json_object(line, f"line {lineno}")
        if HEADER_KEY in obj:
            header = LogHeader.from_dict(obj, f"line {lineno}")
        else:
            first.append((lineno, obj))
        break
    rest = ((n, _json_object(line, f"line {n}")) for n, line in numbered if line.strip())
    return header, _observations(itertools.chain(first, rest), size)


def read_observations(lines: Iterable[str], size: int = STANDARD) -> Iterator[Observation]:
    """Parse a log lazily; blank lines are skipped, time must never go backwards. A
    header line (:class:`LogHeader`) is checked and passed over: see :func:`read_log`."""
    yield from read_log(lines, size)[1]


def _observations(objects: Iterable[tuple[int, dict[str, Any]]],
                  size: int) -> Iterator[Observation]:
    last = float("-inf")
    for lineno, obj in objects:
        obs = _observation(obj, f"line {lineno}", size)
        if obs.t < last:
            raise ObservationLogError(
                f"line {lineno}: time goes backwards ({obs.t} after {last})"
            )
        last = obs.t
        yield obs


#: The key that makes a line a header, and the only program that writes one.
HEADER_KEY = "kaeshi"
HEADER_WRITER = "watch"
#: What ``kaeshi watch`` read its frames from.
CAMERA_SOURCES = ("camera", "picamera", "video", "images")
#: Bounds of a header's numbers: beyond them a value is damage, not a camera.
MAX_FPS = 1000.0
MAX_STABLE = 1000
MAX_NAME = 500
_HEADER_FIELDS = frozenset({HEADER_KEY, "source", "name", "fps", "stable"})


def _plain_text(value: object, what: str) -> str:
    if not isinstance(value, str):
        raise ObservationLogError(f"the header's {what!r} must be a string")
    if len(value) > MAX_NAME:
        raise ObservationLogError(f"the header's {what!r} is longer than {MAX_NAME} "
                                  "characters")
    for c in value:
        if is_control(c):
            raise ObservationLogError(f"the header's {what!r} holds the control character "
                                      f"{c!r}")
        if 0xD800 <= ord(c) < 0xE000:
            raise ObservationLogError(f"the header's {what!r} holds a lone surrogate {c!r}")
    return value


@dataclass(frozen=True, slots=True)
class LogHeader:
    """The first line of a camera's log: which source ``kaeshi watch`` read (its kind
    and the name it was given), at what frame rate (None: the source did not say) and
    with which ``--stable``. The frame rate and ``stable`` fix how long a press waits
    for the frames after it (:func:`controller.arbiter.presswait.press_wait`), so a
    log replayed later is judged as it was watched without anyone remembering them.

    A header is checked when it is made, so one that could not be read back is never
    written."""

    source: str
    name: str
    fps: float | None
    stable: int

    def __post_init__(self) -> None:
        if self.source not in CAMERA_SOURCES:
            raise ObservationLogError(f"the header's 'source' must be one of "
                                      f"{', '.join(CAMERA_SOURCES)}, not {self.source!r}")
        _plain_text(self.name, "name")
        fps = self.fps
        if fps is not None:
            if isinstance(fps, bool) or not isinstance(fps, int | float):
                raise ObservationLogError("the header's 'fps' must be a number or null")
            if not math.isfinite(fps) or not 0 < fps <= MAX_FPS:
                raise ObservationLogError(f"the header's 'fps' must be above 0 and at most "
                                          f"{MAX_FPS:g}, not {fps!r}")
            object.__setattr__(self, "fps", float(fps))
        stable = self.stable
        if isinstance(stable, bool) or not isinstance(stable, int) or not (
                1 <= stable <= MAX_STABLE):
            raise ObservationLogError(f"the header's 'stable' must be a whole number from 1 "
                                      f"to {MAX_STABLE}, not {stable!r}")

    @classmethod
    def from_dict(cls, obj: dict[str, Any], where: str = "log header") -> LogHeader:
        if obj.get(HEADER_KEY) != HEADER_WRITER:
            raise ObservationLogError(f"{where}: a header written by {HEADER_WRITER!r} "
                                      f"was expected, not {obj.get(HEADER_KEY)!r}")
        unknown = sorted(set(obj) - _HEADER_FIELDS)
        if unknown:
            raise ObservationLogError(f"{where}: the header has unknown fields "
                                      f"{', '.join(map(repr, unknown))}")
        missing = [k for k in ("source", "name", "fps", "stable") if k not in obj]
        if missing:
            raise ObservationLogError(f"{where}: the header lacks "
                                      f"{', '.join(map(repr, missing))}")
        try:
            return cls(obj["source"], obj["name"], obj["fps"], obj["stable"])
        except ObservationLogError as exc:
            raise ObservationLogError(f"{where}: {exc}") from None

    def to_json(self) -> str:
        return json.dumps({HEADER_KEY: HEADER_WRITER, "source": self.source,
                           "name": self.name, "fps": self.fps, "stable": self.stable},
                          separators=(", ", ": "))


def write_observations(observations: Iterable[Observation], out: IO[str]) -> int:
    n = 0
    for obs in observations:
        out.write(obs.to_json() + "\n")
        n += 1
    return n
