"""The serial port: the one place that imports pyserial.

Everything above this speaks in bytes through :class:`SerialTransport`, so tests and
the simulator can stand in for the port without touching the driver's logic.
"""

from __future__ import annotations

import os
import re
import termios

import serial

from controller.hall.errors import LinkLost
from controller.hall.messages import BAUD

#: How long one read waits for the first byte; short, so commands are retried on time.
READ_TIMEOUT = 0.005


#: pyserial's words when the port opened but refused its settings (termios, the speed).
_CONFIGURE = ("could not configure port", "custom baud rate", "invalid baud rate")


def open_error(port: str, exc: BaseException, baud: int = BAUD) -> str:
    """Why ``port`` did not open, in words, with what to check for the usual causes."""
    raw = str(getattr(exc, "strerror", None) or exc)
    if isinstance(exc, termios.error) and len(exc.args) == 2:
        raw = f"[Errno {exc.args[0]}] {exc.args[1]}"
    if isinstance(exc, termios.error) or any(w in raw.lower() for w in _CONFIGURE):
        number = re.search(r"Errno (-?\d+)|\((\d+),", raw)
        pair = re.search(r"\(-?\d+, '([^']*)'\)", raw)  # termios.error's (errno, text)
        detail = (pair.group(1) if pair
                  else re.sub(r"\[Errno -?\d+\]\s*", "", raw).split(": ")[-1].strip())
        code = next((g for g in number.groups() if g), None) if number else None
        return (f"cannot configure the sensor board port {port} at {baud} baud: "
                f"{detail}{f' (errno {code})' if code else ''}. The port opened but "
                "refused its settings: a serial adapter or an emulator that lacks this speed")
    reason = re.sub(r"\[Errno -?\d+\]\s*", "", raw)
    reason = reason.split(": ")[-1] if ": " in reason else reason
    if not os.path.exists(port):
        return (f"no sensor board at {port}: that port does not exist. Check the board's "
                "USB cable, and that the udev rule (deploy/99-kaeshi-board.rules) is "
                "installed so the board gets this name (docs/install-pi.md)")
    if not os.access(port, os.R_OK | os.W_OK):
        return (f"cannot open {port}: permission denied. The service's user must be in "
                "the dialout group (sudo usermod -aG dialout <user>, then log in again)")
    if "lock" in reason.lower() or "busy" in reason.lower():
        return f"cannot open {port}: another program is using it ({reason})"
    return f"cannot open the sensor board port {port}: {reason}"


class SerialTransport:
    """An exclusively opened serial port speaking raw bytes."""

    def __init__(self, port: str, baudrate: int = BAUD, read_timeout: float = READ_TIMEOUT):
        self.port = port
        try:
            self._serial = serial.Serial(
                port, baudrate, timeout=read_timeout, write_timeout=1.0, exclusive=True
            )
        except (serial.SerialException, OSError, ValueError, termios.error) as exc:
            raise LinkLost(open_error(port, exc, baudrate)) from None

    def read(self) -> bytes:
        """Bytes that arrived, waiting at most the read timeout for the first one."""
        try:
            data = self._serial.read(1)
            if data:
                waiting = self._serial.in_waiting
                if waiting:
                    data += self._serial.read(waiting)
            return bytes(data)
        except (serial.SerialException, OSError, TypeError) as exc:
            raise LinkLost(f"read failed: {exc}") from None

    def write(self, data: bytes) -> None:
        try:
            self._serial.write(data)
        except (serial.SerialException, OSError, TypeError) as exc:
            raise LinkLost(f"write failed: {exc}") from None

    def close(self) -> None:
        try:
            self._serial.close()
        except (serial.SerialException, OSError):
            pass


def open_serial(port: str) -> SerialTransport:
    return SerialTransport(port)
