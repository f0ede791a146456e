"""Clock presses made while the board cannot be seen: held, never judged blind.

A press ends a move, and the arbiter judges it against the board the press
follows. While the board's link is down (a port that will not open or configure,
a pulled cable, a camera without frames) that board is unknown, so judging the
press would flag a pass that was a move (``illegal_pass``) or miss a fault. The
press is held with the instant it was made instead. When the board is seen
again, each board reading that arrives releases one held press after it: a sensor
board that reconnects reports the moves made meanwhile one board at a time, and
each was ended by one press. A new press after the link is back releases whatever
is still held first, since those presses came before it.
"""

from __future__ import annotations

from collections import deque
from dataclasses import replace

from controller.service.sources import Reading

#: More presses than this during one outage are not kept: no game makes that many
#: moves unseen, and a stuck button must not fill memory.
MAX_HELD = 16


class HeldPresses:
    """Presses waiting for the board to be seen again, oldest first."""

    def __init__(self, limit: int = MAX_HELD) -> None:
        self._presses: deque[Reading] = deque()
        self._limit = limit
        self.dropped = 0

    def __len__(self) -> int:
        return len(self._presses)

    def hold(self, item: Reading, now: float) -> bool:
        """Keep ``item`` stamped with when it was made (``now`` if it has no edge time);
        False when the limit is reached and it is dropped."""
        if len(self._presses) >= self._limit:
            self.dropped += 1
            return False
        self._presses.append(item if item.at is not None else replace(item, at=now))
        return True

    def take_one(self) -> Reading | None:
        return self._presses.popleft() if self._presses else None

    def take_all(self) -> list[Reading]:
        out = list(self._presses)
        self._presses.clear()
        return out
