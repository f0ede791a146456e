"""The serial port: the one place that imports pyserial.

Everything above this speaks in bytes through :class:`SerialTransport`, so tests and
the simulator can stand in for the port without touching the driver's logic.
"""

from __future__ import annotations

import serial

from controller.hall.errors import LinkLost
from controller.hall.messages import BAUD

#: How long one read waits for the first byte; short, so commands are retried on time.
READ_TIMEOUT = 0.005


class SerialTransport:
    """An exclusively opened serial port speaking raw bytes."""

    def __init__(self, port: str, baudrate: int = BAUD, read_timeout: float = READ_TIMEOUT):
        self.port = port
        try:
            self._serial = serial.Serial(
                port, baudrate, timeout=read_timeout, write_timeout=1.0, exclusive=True
            )
        except (serial.SerialException, OSError, ValueError) as exc:
            raise LinkLost(f"cannot open the sensor board port {port}: {exc}") from None

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
