"""Inputs from several devices put back in the order they happened.

The camera phone and the clock tablet reach the service over Wi-Fi, each with its own
delays: a press may arrive after frames taken after it. The arbiter must take every
input in the order of its own (mapped) time, so each is held here until nothing
stamped before it can still come:

* every input waits ``latency`` seconds past its stamp (the longest a message may
  take on the network, plus the clock sync's uncertainty);
* a press also waits until the camera's frames up to its instant have been read
  (the frames that show the board at the press), unless the camera has been gone
  longer than ``hold_max`` or the press has waited that long: then it is released,
  so a table whose camera died still runs its clock.

Pure: the caller gives every time (the service's monotonic seconds).
"""

from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass, field
from typing import Any


@dataclass(order=True)
class _Held:
    at: float
    n: int
    arrived: float = field(compare=False)
    press: bool = field(compare=False)
    item: Any = field(compare=False)


class InputOrder:
    """The held inputs, the camera's progress, and which inputs may go now."""

    def __init__(self, latency: float, hold_max: float) -> None:
        self.latency = latency
        self.hold_max = hold_max
        self._heap: list[_Held] = []
        self._n = itertools.count()
        #: The stamp up to which the camera's frames have been read, and when it moved.
        self.camera_mark: float | None = None
        self.camera_seen: float | None = None
        self.released_to = float("-inf")
        #: Inputs that came after inputs stamped later had been released (too late).
        self.late = 0

    def __len__(self) -> int:
        return len(self._heap)

    def push(self, at: float, item: Any, arrived: float, press: bool = False) -> None:
        heapq.heappush(self._heap, _Held(at, next(self._n), arrived, press, item))

    def camera_read(self, at: float, arrived: float) -> None:
        """The camera's frames up to ``at`` have been read (``arrived``: now)."""
        self.camera_mark = at if self.camera_mark is None else max(self.camera_mark, at)
        self.camera_seen = arrived

    def camera_live(self, now: float) -> bool:
        return self.camera_seen is not None and now - self.camera_seen < self.hold_max

    def _may_go(self, h: _Held, now: float) -> bool:
        if now < h.at + self.latency:
            return False
        if not h.press:
            return True
        if not self.camera_live(now) or now - h.arrived >= self.hold_max:
            return True
        return self.camera_mark is not None and self.camera_mark >= h.at

    def release(self, now: float) -> list[tuple[float, Any]]:
        """The inputs that may go now, in the order of their stamps."""
        out: list[tuple[float, Any]] = []
        while self._heap and self._may_go(self._heap[0], now):
            h = heapq.heappop(self._heap)
            if h.at < self.released_to:
                self.late += 1
            self.released_to = max(self.released_to, h.at)
            out.append((h.at, h.item))
        return out

    def presses_between(self, low: float, high: float) -> list[float]:
        """The stamps of the presses held that were made between ``low`` and ``high``."""
        return sorted(h.at for h in self._heap if h.press and low < h.at < high)

    def pending_at(self, now: float) -> float:
        """The earliest stamp an input not yet released may carry: the next one held,
        one still on the network, or a frame the camera has yet to deliver."""
        earliest = now - self.latency
        if self._heap:
            earliest = min(earliest, self._heap[0].at)
        if self.camera_live(now) and self.camera_mark is not None:
            earliest = min(earliest, self.camera_mark)
        return earliest
