"""The serial port: the one place that imports pyserial.

Everything above this speaks in bytes through :class:`SerialTransport`, so tests and
the simulator can stand in for the port without touching the driver's logic.
"""

from __future__ import annotations

import os
import re

import serial

from controller.hall.errors import LinkLost
from controller.hall.messages import BAUD

#: How long one read waits for the first byte; short, so commands are retried on time.
READ_TIMEOUT = 0.005


def open_error(port: str, exc: BaseException) -> str:
    """Why ``port`` did not open, in words, with what to check for the usual causes."""
    reason = str(getattr(exc, "strerror", None) or exc)
    reason = re.sub(r"\[Errno -?\d+\]\s*", "", reason)
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
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkLost(open_error(port, exc)) from None

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
