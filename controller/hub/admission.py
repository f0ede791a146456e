"""What one table may cost the hub: a message budget, and a record of what it did wrong.

The hub takes every table's uplink on one network thread, so a table that floods it
(a broken firmware loop, or someone holding a table's password) would delay every other
table's moves. Each table therefore has its own budget, a token bucket checked before a
message is even decoded: a real table sends a few messages a move, and a burst of a few
hundred when it catches up after an outage; beyond its budget a message is dropped
unread. Nothing is lost that way: the hub does not acknowledge what it dropped, so a
real table sends it again.

What a table did wrong is counted per table (:class:`Trouble`) for the arbiter's
dashboard, and logged through :class:`~controller.hub.logs.Throttled`, so junk from one
table is a line every ten seconds, not forty thousand.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.hub.logs import Throttled

log = logging.getLogger("kaeshi.hub")

#: Messages a second a table may send on average, and the burst it may send at once.
#: A table in play sends a few a move; one catching up after an outage sends up to 256
#: events ahead of the hub's ack, again as each ack comes (four a second), so a long
#: backlog arrives at up to about a thousand a second for a while. A flood of ten
#: thousand a second still empties the budget within a third of a second.
TABLE_RATE = 300.0
TABLE_BURST = 3000.0

#: What the arbiter is told, by kind of trouble.
TROUBLE_TEXT = {
    "flood": "messages beyond the table's budget, dropped unread",
    "junk": "messages that break the protocol, dropped",
    "refused": "events of games the table never announced, refused",
    "unannounced": "a game the table never announced, stored for the arbiter only",
    "gap": "events after a gap, asked again",
    "muted": "flooding: not heard at the broker",
    "abandoned": "a game left unfinished for a new one",
    "backwards": "events whose time runs backwards, refused",
    "foreign": "another table's game, republished, refused",
    "games": "more games than the event's schedule allows, refused",
}


@dataclass
class Trouble:
    """What one table did wrong since the hub started: counts by kind, the last words."""

    counts: dict[str, int] = field(default_factory=dict)
    last: str = ""
    at: float = 0.0
    games: list[str] = field(default_factory=list)  # games never announced (a few)

    def to_dict(self) -> dict[str, Any]:
        return {"counts": dict(self.counts), "last": self.last, "at": self.at,
                "games": list(self.games)}


class Admission:
    """Per-table budgets and trouble records (used on the hub's network thread, read by
    the web pages: a dict read is safe under the interpreter's lock)."""

    def __init__(self, rate: float = TABLE_RATE, burst: float = TABLE_BURST,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.rate = rate
        self.burst = burst
        self._clock = clock
        self._buckets: dict[int, list[float]] = {}  # table -> [tokens, last refill]
        self.troubles: dict[int, Trouble] = {}
        self.logs = Throttled(log)

    def admit(self, table: int) -> bool:
        """Take one message of ``table`` from its budget; False: over budget, drop it."""
        now = self._clock()
        bucket = self._buckets.get(table)
        if bucket is None:
            bucket = self._buckets[table] = [self.burst, now]
        tokens = min(self.burst, bucket[0] + (now - bucket[1]) * self.rate)
        bucket[1] = now
        if tokens < 1.0:
            bucket[0] = tokens
            return False
        bucket[0] = tokens - 1.0
        return True

    def note(self, table: int | None, kind: str, detail: str, wall: float,
             game: str | None = None) -> None:
        """Count and log (throttled per table and kind) one piece of trouble."""
        self.logs.warning((table, kind), "table %s: %s (%s)",
                          "?" if table is None else table, TROUBLE_TEXT.get(kind, kind), detail)
        if table is None:
            return
        trouble = self.troubles.setdefault(table, Trouble())
        trouble.counts[kind] = trouble.counts.get(kind, 0) + 1
        trouble.last = f"{TROUBLE_TEXT.get(kind, kind)}: {detail}"[:300]
        trouble.at = wall
        if game is not None and game not in trouble.games and len(trouble.games) < 8:
            trouble.games.append(game)

    def trouble(self, table: int) -> dict[str, Any] | None:
        t = self.troubles.get(table)
        return None if t is None else t.to_dict()
