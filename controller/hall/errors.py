"""What can go wrong with the sensor board, in words a user can act on."""

from __future__ import annotations

from controller.errors import KaeshiError


class HallError(KaeshiError):
    """A sensor-board problem; the message names the port and what happened."""


class LinkLost(HallError, OSError):
    """The serial port could not be opened, or went away while in use."""


class ProtocolMismatch(HallError):
    """The firmware speaks another protocol version than this host."""


class CommandFailed(HallError):
    """A command was refused by the board or never acknowledged."""
