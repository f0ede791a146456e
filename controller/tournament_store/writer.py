"""One writer per event file: whoever writes holds an OS lock on ``<file>.writer``.

``kaeshi hub`` holds it for as long as it runs, so it is the event's only writer; a
command of ``kaeshi tournament`` takes it for the moment it writes.  The lock is the
kernel's (``flock``), so a writer that crashes lets go at once and nothing stale is
left to clear by hand.  The lock file names the holder (program, process, web
address), so a refused command can say who is writing and where to go instead.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from controller.tournament.model import TournamentError

#: The program that holds the lock for as long as it runs.
HUB = "kaeshi hub"


def lock_path(event: Path) -> Path:
    return event.with_name(event.name + ".writer")


@dataclass
class Holder:
    """Who holds an event's writer lock, as its lock file says."""

    program: str
    pid: int
    url: str | None = None

    def text(self) -> str:
        where = f" at {self.url}" if self.url else ""
        return f"{self.program} (process {self.pid}{where})"


class WriterBusy(TournamentError):
    """Another program holds the event's writer lock."""

    def __init__(self, event: Path, holder: Holder | None) -> None:
        self.holder = holder
        who = holder.text() if holder else "another program"
        super().__init__(f"{event}: {who} is writing this event and is its only writer")


class Writer:
    """The held lock; :meth:`announce` updates what the lock file says."""

    def __init__(self, event: Path, fh: IO[str], program: str) -> None:
        self.event = event
        self._fh = fh
        self.program = program

    def announce(self, url: str | None = None) -> None:
        self._fh.seek(0)
        self._fh.truncate()
        self._fh.write(json.dumps({"program": self.program, "pid": os.getpid(),
                                   "url": url, "since": time.time()}))
        self._fh.flush()

    def release(self) -> None:
        if not self._fh.closed:
            with contextlib.suppress(OSError):
                self._fh.seek(0)
                self._fh.truncate()
            fcntl.flock(self._fh, fcntl.LOCK_UN)
            self._fh.close()


def read_holder(event: Path) -> Holder | None:
    try:
        data: Any = json.loads(lock_path(event).read_text(encoding="utf-8") or "null")
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("pid"), int):
        return None
    url = data.get("url")
    return Holder(str(data.get("program", "?")), data["pid"],
                  url if isinstance(url, str) else None)


def acquire(event: Path, program: str, wait: float = 0.0) -> Writer:
    """Take the writer lock of ``event`` or raise :class:`WriterBusy` naming the holder.
    ``wait``: seconds to keep trying (a command's write lasts milliseconds)."""
    fh = open(lock_path(event), "a+", encoding="utf-8")  # noqa: SIM115 — held past return
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            holder = read_holder(event)
            # a command's write lasts milliseconds: wait for it; a hub holds on
            if time.monotonic() >= deadline or (holder and holder.program == HUB):
                fh.close()
                raise WriterBusy(event, holder) from None
            time.sleep(0.05)
    w = Writer(event, fh, program)
    w.announce()
    return w


@contextlib.contextmanager
def holding(event: Path, program: str, wait: float = 2.0) -> Iterator[Writer]:
    w = acquire(event, program, wait)
    try:
        yield w
    finally:
        w.release()
