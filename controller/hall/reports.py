"""What the driver's I/O thread hands to its callers.

Observations and link statuses go on one queue in the order they happened, each
stamped no earlier than the one before (the arbiter relies on times that never go
back); raw sensor readings, which only calibration asks for, wait in their own
buffer until read.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable

from controller.hall.errors import CommandFailed
from controller.hall.frames import RawMsg
from controller.hall.link import LinkState, LinkStatus
from controller.observation import Observation

log = logging.getLogger("kaeshi.hall")

Item = Observation | LinkStatus


class Reports:
    """The observations and link statuses of one driver, and the last board reported."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self._clock = clock
        self._items: queue.Queue[Item] = queue.Queue()
        self._last_t = float("-inf")
        self.board: str | None = None

    def get(self, timeout: float | None = None) -> Item | None:
        try:
            return self._items.get(timeout=timeout)
        except queue.Empty:
            return None

    def empty(self) -> bool:
        return self._items.empty()

    def board_seen(self, board: str, now: float) -> None:
        self.board = board
        self._items.put(Observation(self._stamp(now), board=board))

    def status(self, state: LinkState, message: str, before: str | None = None,
               after: str | None = None,
               moves: tuple[tuple[str, str | None], ...] = ()) -> None:
        status = LinkStatus(self._stamp(self._clock()), state, message, before, after, moves)
        log.info("%s", message)
        self._items.put(status)

    def _stamp(self, now: float) -> float:
        t = max(now, self._last_t)
        self._last_t = t
        return t


class RawReadings:
    """RAW frames as they arrive, for a caller reading them in raw mode."""

    def __init__(self, port: str) -> None:
        self.port = port
        self._raw: deque[RawMsg] = deque(maxlen=4096)
        self._cond = threading.Condition()

    def add(self, msg: RawMsg) -> None:
        with self._cond:
            self._raw.append(msg)
            self._cond.notify_all()

    def clear(self) -> None:
        with self._cond:
            self._raw.clear()

    def take(self, count: int, timeout: float) -> list[RawMsg]:
        """The next ``count`` RAW frames; raise if they do not come within ``timeout``."""
        out: list[RawMsg] = []
        deadline = time.monotonic() + timeout
        with self._cond:
            while len(out) < count:
                while not self._raw:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise CommandFailed(
                            f"only {len(out)} of {count} raw readings from the sensor board "
                            f"on {self.port} in {timeout:g} s"
                        )
                    self._cond.wait(left)
                out.append(self._raw.popleft())
        return out
