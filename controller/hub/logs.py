"""Warnings that one table cannot turn into a flood.

A table that sends junk thousands of times a second must not fill the hub's disk with
the same line: :class:`Throttled` writes the first warning of a kind at once, counts the
rest, and writes one summary line per ``every`` seconds while they keep coming. Keys are
chosen by the caller (a table number and a kind), so one noisy table never hides what
another table does.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass


@dataclass
class _Window:
    start: float
    suppressed: int = 0


class Throttled:
    """At most one line per key per ``every`` seconds; the lines held back are counted and
    named in the next line of that key ("and 41 more like it in 10 s")."""

    def __init__(self, logger: logging.Logger, every: float = 10.0,
                 clock: Callable[[], float] = time.monotonic, max_keys: int = 20_000) -> None:
        self.logger = logger
        self.every = every
        self._clock = clock
        self._max_keys = max_keys
        self._windows: dict[Hashable, _Window] = {}
        #: Lines held back since start, by key (for tests and the arbiter's view).
        self.suppressed_total = 0

    def log(self, level: int, key: Hashable, msg: str, *args: object,
            exc_info: bool = False) -> bool:
        """Log ``msg % args`` unless a line of ``key`` was written less than ``every``
        seconds ago; return whether it was written."""
        now = self._clock()
        window = self._windows.get(key)
        if window is not None and now - window.start < self.every:
            window.suppressed += 1
            self.suppressed_total += 1
            return False
        held = window.suppressed if window is not None else 0
        if len(self._windows) >= self._max_keys and key not in self._windows:
            self._windows.clear()  # bounded memory: forgetting only costs an extra line
        self._windows[key] = _Window(now)
        if held:
            msg += " (and %d more like it in the last %.0f s)"
            args = (*args, held, now - window.start if window else 0.0)
        self.logger.log(level, msg, *args, exc_info=exc_info)
        return True

    def warning(self, key: Hashable, msg: str, *args: object, exc_info: bool = False) -> bool:
        return self.log(logging.WARNING, key, msg, *args, exc_info=exc_info)

    def error(self, key: Hashable, msg: str, *args: object, exc_info: bool = False) -> bool:
        return self.log(logging.ERROR, key, msg, *args, exc_info=exc_info)
