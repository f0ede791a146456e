"""What is shown to the person at the terminal only, never written to a log."""

from __future__ import annotations

import sys
from typing import TextIO


def tell_terminal(text: str, stream: TextIO | None = None) -> bool:
    """Show ``text`` (a secret such as the arbiter's token) to the person who started the
    program, never to a log: written only when ``stream`` (stdout) is a terminal. Returns
    whether it was shown; a caller whose output goes to a file says where else to look."""
    stream = sys.stdout if stream is None else stream
    try:
        if not stream.isatty():
            return False
    except (AttributeError, ValueError):
        return False
    print(text, file=stream, flush=True)
    return True
