"""A serial port whose speed cannot be set, as under an emulator without termios2.

pyserial sets a speed termios does not name (the sensor board's 250000 baud) with
the termios2 ioctls; QEMU's user mode answers them with ENOSYS (Errno 38). Replacing
pyserial's ``fcntl`` with one that does the same lets pyserial's own code fail as it
does there, on a real pseudo-terminal.
"""

from __future__ import annotations

import errno
import fcntl
import os
from collections.abc import Iterator
from typing import Any

import pytest
import serial.serialposix

#: The termios2 requests pyserial uses for a speed termios does not name (250000).
TERMIOS2 = {0x802C542A, 0x402C542B}


class _NoTermios2:
    """``fcntl`` as an emulator without termios2 offers it: those ioctls are ENOSYS."""

    def __getattr__(self, name: str) -> Any:
        return getattr(fcntl, name)

    def ioctl(self, fd: int, request: int, *args: Any) -> Any:
        if request in TERMIOS2:
            raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))
        return fcntl.ioctl(fd, request, *args)


def unconfigurable_port(monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A pty's device name; while it is in use every port refuses 250000 baud."""
    monkeypatch.setattr(serial.serialposix, "fcntl", _NoTermios2())
    controller_fd, device_fd = os.openpty()
    try:
        yield os.ttyname(device_fd)
    finally:
        os.close(controller_fd)
        os.close(device_fd)
