"""The one exception type the command line turns into a clean message.

Anything a user can cause — a bad file, a bad option, a device that is gone —
raises a subclass of :class:`KaeshiError` (or ``ValueError``/``OSError`` with a
message naming what and where); the CLI prints it without a traceback.
"""

from __future__ import annotations


class KaeshiError(Exception):
    """A problem the user can fix; the message says what is wrong and where."""
