"""From raw sensor readings to per-square thresholds, with safety margins.

Each square is measured three times: empty, under a black-up disc (reading LOW) and
under a white-up disc (reading HIGH). The empty band is the spread of the empty
readings widened by a noise margin; a disc counts as "on its square" while its
reading stays within the quarter of the swing nearest the centred level, so a disc
pushed half-way off (about half the swing) reads as shifted. A square whose bands
cannot be kept apart with these margins is refused by name: a board that guesses is
worse than one that asks for a better magnet or sensor. Pure: numbers in, numbers out.
"""

from __future__ import annotations

import json
import math
import struct
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO

import numpy as np

from controller.errors import KaeshiError
from controller.hall import messages as m
from controller.hall.frames import crc16
from controller.squares import parse_square, square_name

#: Fewest counts of margin, whatever the measured noise.
MIN_MARGIN = 4
#: Margins in noise standard deviations.
NOISE_SIGMAS = 4.0
#: A disc still counts as centred within this fraction of its swing.
CENTRED_FRACTION = 0.25
#: The empty band is widened by this fraction of the swing as well.
EMPTY_FRACTION = 0.08
#: Readings this close to the rails mean an open or shorted sensor.
RAIL_LOW, RAIL_HIGH = 4, m.ADC_MAX - 4
FILE_FORMAT = "kaeshi-hall-calibration"


class CalibrationError(KaeshiError):
    """A calibration that cannot be used; the message names the squares."""

    def __init__(self, message: str, squares: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.squares = tuple(squares)


@dataclass(frozen=True, slots=True)
class SquareCalibration:
    """What was measured on one square and the thresholds derived from it."""

    baseline: float
    noise: float
    black: float
    white: float
    empty_lo: int
    empty_hi: int
    black_th: int
    white_th: int
    hysteresis: int

    def record(self) -> bytes:
        """The 9-byte WRITE_CAL record of this square."""
        return struct.pack(m.CAL_RECORD_FORMAT, self.empty_lo, self.empty_hi, self.black_th,
                           self.white_th, self.hysteresis)


@dataclass(frozen=True, slots=True)
class Calibration:
    squares: tuple[SquareCalibration, ...]
    samples: int

    def records(self) -> bytes:
        return b"".join(s.record() for s in self.squares)

    @property
    def crc(self) -> int:
        """CRC-16/CCITT-FALSE of the 64 records, as the board stores and reports it."""
        return crc16(self.records())


def _stats(samples: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    return samples.mean(0), samples.std(0), samples.min(0), samples.max(0)


def _as_array(name: str, samples: Sequence[Sequence[int]] | np.ndarray) -> np.ndarray:
    a = np.asarray(samples, dtype=np.float64)
    if a.ndim != 2 or a.shape[1] != 64 or a.shape[0] < 2:
        raise CalibrationError(f"{name} readings must be at least 2 scans of 64 squares")
    return a


def derive(empty: Sequence[Sequence[int]] | np.ndarray,
           black: Sequence[Sequence[int]] | np.ndarray,
           white: Sequence[Sequence[int]] | np.ndarray) -> Calibration:
    """Thresholds for every square from scans (rows) of 64 readings in each state.

    Raises :class:`CalibrationError` naming the squares with faulty sensors or with
    bands that overlap.
    """
    e = _as_array("empty-board", empty)
    b = _as_array("black-up", black)
    w = _as_array("white-up", white)
    faults = [square_name(i) for i in range(64)
              if e[:, i].min() <= RAIL_LOW or e[:, i].max() >= RAIL_HIGH]
    if faults:
        raise CalibrationError(
            "sensor reads at the rail with the board empty (open or shorted) at "
            + ", ".join(faults), faults
        )
    e_mean, e_sd, e_min, e_max = _stats(e)
    b_mean, b_sd, b_min, b_max = _stats(b)
    w_mean, w_sd, w_min, w_max = _stats(w)
    problems: dict[str, list[str]] = {}
    squares = []
    for i in range(64):
        name = square_name(i)
        noise = float(max(e_sd[i], b_sd[i], w_sd[i]))
        margin = max(MIN_MARGIN, NOISE_SIGMAS * noise)
        swing_b = float(e_mean[i] - b_mean[i])
        swing_w = float(w_mean[i] - e_mean[i])
        hyst = int(min(20, max(2, math.ceil(3 * noise))))
        empty_margin = max(margin, EMPTY_FRACTION * min(abs(swing_b), abs(swing_w)))
        empty_lo = math.floor(e_min[i] - empty_margin)
        empty_hi = math.ceil(e_max[i] + empty_margin)
        black_th = math.ceil(max(b_max[i] + margin, b_mean[i] + CENTRED_FRACTION * swing_b))
        white_th = math.floor(min(w_min[i] - margin, w_mean[i] - CENTRED_FRACTION * swing_w))
        if swing_b <= 0:
            problems.setdefault("black-up does not read below empty", []).append(name)
        elif black_th + hyst >= empty_lo - hyst:
            problems.setdefault("black-up band overlaps the empty band", []).append(name)
        if swing_w <= 0:
            problems.setdefault("white-up does not read above empty", []).append(name)
        elif white_th - hyst <= empty_hi + hyst:
            problems.setdefault("white-up band overlaps the empty band", []).append(name)
        squares.append(SquareCalibration(
            baseline=round(float(e_mean[i]), 2), noise=round(noise, 2),
            black=round(float(b_mean[i]), 2), white=round(float(w_mean[i]), 2),
            empty_lo=_clamp(empty_lo), empty_hi=_clamp(empty_hi),
            black_th=_clamp(black_th), white_th=_clamp(white_th), hysteresis=hyst,
        ))
    if problems:
        bad = sorted({n for names in problems.values() for n in names}, key=parse_square)
        hint = ""
        if len(bad) == 64:
            hint = " (no square changed as expected: were the discs placed as asked?)"
        raise CalibrationError("calibration refused" + hint + ": " + "; ".join(
            f"{what} at {', '.join(names)}" for what, names in problems.items()
        ), bad)
    return Calibration(tuple(squares), int(min(len(e), len(b), len(w))))


def _clamp(v: float) -> int:
    return int(min(max(v, 0), m.ADC_MAX))


def classify(cal: SquareCalibration, v: int) -> str:
    """The board-string character a reading maps to (no hysteresis; for checks and docs)."""
    if v <= cal.black_th:
        return "X"
    if v >= cal.white_th:
        return "O"
    if cal.empty_lo <= v <= cal.empty_hi:
        return "-"
    return "x" if v < cal.empty_lo else "o"


# -------------------------------------------------------------------- files

def to_json(cal: Calibration, **meta: object) -> dict[str, object]:
    return {
        "format": FILE_FORMAT,
        "version": 1,
        **meta,
        "samples": cal.samples,
        "calibration_crc": cal.crc,
        "squares": {square_name(i): asdict(s) for i, s in enumerate(cal.squares)},
    }


def save(cal: Calibration, path: Path | str, **meta: object) -> None:
    Path(path).write_text(json.dumps(to_json(cal, **meta), indent=1) + "\n", encoding="utf-8")


def load(source: Path | str | IO[str]) -> Calibration:
    """Read a calibration file back; errors name the file and the field."""
    where = getattr(source, "name", str(source))
    try:
        text = source.read() if hasattr(source, "read") else Path(source).read_text("utf-8")
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise CalibrationError(f"{where}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict) or data.get("format") != FILE_FORMAT:
        raise CalibrationError(f"{where}: not a Kaeshi Hall calibration file")
    squares = []
    for i in range(64):
        name = square_name(i)
        entry = data.get("squares", {}).get(name)
        try:
            squares.append(SquareCalibration(**entry))
        except TypeError:
            raise CalibrationError(f"{where}: square {name} is missing or malformed") from None
    cal = Calibration(tuple(squares), int(data.get("samples", 0)))
    if data.get("calibration_crc") not in (None, cal.crc):
        raise CalibrationError(f"{where}: thresholds do not match the stored CRC")
    return cal
