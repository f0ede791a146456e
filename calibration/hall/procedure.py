"""The guided calibration: empty board, black-up discs, white-up discs.

The board is switched to raw mode, each step is announced through ``prompt`` (which
returns when the user is ready: Enter on a terminal, a callback in tests), readings
are collected, thresholds derived and, only if every square is sound, written to
the board (four WRITE_CAL then COMMIT_CAL, checked against the CRC the board reports)
and to a JSON file. The picture is saved either way, since a refused calibration is
exactly when a maker wants to see the distributions.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np

from calibration.hall.model import Calibration, CalibrationError, derive, save
from calibration.hall.picture import save_picture
from controller.hall import messages as m
from controller.hall.frames import IdentityMsg, RawMsg
from controller.squares import parse_square, square_name

Prompt = Callable[[str], None]

STEPS: tuple[tuple[str, str], ...] = (
    ("empty", "Take every disc off the board."),
    ("black", "Put a disc BLACK side up on every square (all 64 discs), centred."),
    ("white", "Turn every disc over: WHITE side up on every square, centred."),
)
#: Raw frames skipped after each prompt while hands leave the board and readings settle.
SETTLE_FRAMES = 10


class RawBoard(Protocol):
    """What the procedure needs of the driver (``HallBoard`` provides it)."""

    def set_mode(self, mode: m.Mode, rate_hz: int = 0) -> None: ...
    def clear_raw(self) -> None: ...
    def read_raw(self, count: int, timeout: float = 10.0) -> list[RawMsg]: ...
    def command(self, msg_type: int, payload: bytes = b"",
                timeout: float = 10.0) -> object: ...
    def identify(self) -> IdentityMsg: ...


@dataclass(frozen=True)
class Measurements:
    empty: np.ndarray
    black: np.ndarray
    white: np.ndarray


def measure(board: RawBoard, prompt: Prompt, samples: int,
            say: Callable[[str], None] = print) -> Measurements:
    if samples < 2:
        raise ValueError(f"need at least 2 samples per step, not {samples}")
    board.set_mode(m.Mode.RAW, 0)
    data: dict[str, np.ndarray] = {}
    try:
        for n, (key, text) in enumerate(STEPS, 1):
            prompt(f"Step {n}/{len(STEPS)}: {text}")
            # Readings still in the pipe predate the prompt. The board answers commands
            # in order with its frames, so once this one is acknowledged, every frame
            # that follows was measured after the user said the board was ready.
            board.set_mode(m.Mode.RAW, 0)
            board.clear_raw()
            frames = board.read_raw(SETTLE_FRAMES + samples, timeout=10 + samples / 10)
            data[key] = np.array([f.readings for f in frames[SETTLE_FRAMES:]], dtype=np.float64)
            say(f"  {samples} readings of 64 squares taken")
    finally:
        board.set_mode(m.Mode.BOARD, 0)
    return Measurements(data["empty"], data["black"], data["white"])


def write_to_board(board: RawBoard, cal: Calibration) -> IdentityMsg:
    """WRITE_CAL in blocks of 16 squares, COMMIT_CAL, then check the board's CRC."""
    records = cal.records()
    per = m.CAL_MAX_RECORDS_PER_WRITE
    for first in range(0, 64, per):
        block = records[first * m.CAL_RECORD_LEN:(first + per) * m.CAL_RECORD_LEN]
        board.command(m.MsgType.WRITE_CAL, bytes((first, per)) + block)
    board.command(m.MsgType.COMMIT_CAL, timeout=10)
    ident = board.identify()
    if ident.calibration_crc != cal.crc or not ident.flags & m.Flag.CAL_VALID:
        raise CalibrationError(
            f"the board reports calibration CRC {ident.calibration_crc:#06x} after the "
            f"commit, expected {cal.crc:#06x}: the calibration was not stored"
        )
    return ident


def calibrate(board: RawBoard, prompt: Prompt, json_path: Path | str,
              picture_path: Path | str, samples: int = 100,
              say: Callable[[str], None] = print) -> Calibration:
    """Run the whole procedure; raises :class:`CalibrationError` naming bad squares."""
    data = measure(board, prompt, samples, say)
    try:
        cal = derive(data.empty, data.black, data.white)
    except CalibrationError as exc:
        save_picture(picture_path, data.empty, data.black, data.white, None,
                     [parse_square(s) for s in exc.squares])
        say(f"distributions saved to {picture_path}")
        raise
    save_picture(picture_path, data.empty, data.black, data.white, cal.squares)
    say(summary(cal))
    say(f"distributions saved to {picture_path}")
    ident = write_to_board(board, cal)
    say(f"thresholds stored on the board (calibration CRC {cal.crc:#06x})")
    save(cal, json_path, board_id=ident.board_id, firmware=ident.firmware,
         created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"))
    say(f"thresholds saved to {json_path}")
    return cal


def summary(cal: Calibration) -> str:
    """One line a maker can compare between calibrations (or between boards)."""
    sq = cal.squares
    noisy = max(range(64), key=lambda i: sq[i].noise)
    swing = min(range(64), key=lambda i: min(sq[i].baseline - sq[i].black,
                                             sq[i].white - sq[i].baseline))
    weakest = min(sq[swing].baseline - sq[swing].black, sq[swing].white - sq[swing].baseline)
    return (f"baselines {min(s.baseline for s in sq):.0f}-{max(s.baseline for s in sq):.0f}, "
            f"noisiest sensor {square_name(noisy)} ({sq[noisy].noise:.1f} counts), "
            f"weakest magnet swing {square_name(swing)} ({weakest:.0f} counts)")


def restore(board: RawBoard, cal: Calibration) -> IdentityMsg:
    """Write a saved calibration back (after a firmware update cleared the EEPROM)."""
    return write_to_board(board, cal)
