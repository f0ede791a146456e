"""What goes wrong with the clock's GPIO, as one error the command line shows cleanly."""

from __future__ import annotations

from controller.errors import KaeshiError


class GpioError(KaeshiError):
    """GPIO is unavailable or a pin cannot be claimed; the message says which."""
