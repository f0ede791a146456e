"""The store's index of games in memory: each game's acknowledged seq, whether its
table announced it, whether it is over, the time of its last event, and the rules of
which games a table may open or name.

Split from :mod:`controller.hub.store`: the store's SQLite rows are the durable
truth, and this index is built from them once, when the store opens, and kept in step
with every write, so that deciding on a message (a duplicate, a gap, a game a table
may not open) reads no row. The store holds its lock around every call.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.hall_protocol.protocol import GameKey

#: Games a table may open without announcing them in its state (a game played while the
#: hub could not hear the table's state): unfinished at once, and in all.
UNANNOUNCED_OPEN = 1
UNANNOUNCED_MAX = 8
#: Games a table may announce in an event unless the hub is told otherwise
#: (``event.games``): the schedule's rounds and a few replays.
MAX_GAMES = 40


@dataclass(slots=True)
class GameMeta:
    announced: bool
    finished: bool
    t: float | None = None  # the game time of its last stored event (None: not read yet)


class GameIndex:
    """What the store holds of each game, in memory (see the module docstring)."""

    def __init__(self, games: Iterable[tuple[int, str, int, int, int]],
                 announced: Iterable[tuple[int, str]], max_games: int = MAX_GAMES) -> None:
        """``games``: the rows (table, game, last seq, announced, finished);
        ``announced``: every (table, game) a table named in a state."""
        self.max_games = max_games
        self.last: dict[GameKey, int] = {}
        self.meta: dict[GameKey, GameMeta] = {}
        #: Each table's games stored unannounced (a few at most), for :meth:`may_open`.
        self._unannounced: dict[int, dict[str, GameMeta]] = {}
        for t, g, last, was_announced, finished in games:
            self.last[GameKey(t, g)] = last
            meta = self.meta[GameKey(t, g)] = GameMeta(bool(was_announced), bool(finished))
            if not meta.announced:
                self._unannounced.setdefault(t, {})[g] = meta
        #: Games each table named in a state (the table's word that they are its games).
        self.announced: set[GameKey] = {GameKey(t, g) for t, g in announced}
        self._announced_count: dict[int, int] = {}
        for key in self.announced:
            self._announced_count[key.table] = self._announced_count.get(key.table, 0) + 1

    def may_open(self, table: int) -> bool:
        """A game the table has not announced may be opened only while the table has no
        other such game unfinished and fewer than ``UNANNOUNCED_MAX`` in all: a table
        that played a whole game while the hub could not hear its state still delivers
        it, and a table inventing games costs the hub a few rows, not thousands."""
        mine = [m for m in self._unannounced.get(table, {}).values() if not m.announced]
        return len(mine) < UNANNOUNCED_MAX and not any(not m.finished for m in mine)

    def why_not_announce(self, table: int, game: str) -> str | None:
        """Why table ``table`` may not name ``game`` in its state, or None: a table has at
        most ``max_games`` games in the event (its schedule's rounds and a few replays)."""
        if GameKey(table, game) in self.announced:
            return None
        n = self._announced_count.get(table, 0)
        if n >= self.max_games:
            return (f"game {game} would be its {n + 1}th of the event; the schedule "
                    f"allows {self.max_games} (hub.toml event.games)")
        return None

    def stored(self, key: GameKey, seq: int, over: bool, t: float) -> None:
        """Event ``seq`` of the game (its next) is committed."""
        self.last[key] = seq
        meta = self.meta.get(key)
        if meta is None:
            announced = key in self.announced
            meta = self.meta[key] = GameMeta(announced, over)
            if not announced:
                self._unannounced.setdefault(key.table, {})[key.game] = meta
        meta.finished = meta.finished or over
        meta.t = t

    def mark_announced(self, key: GameKey) -> None:
        """The table's state named the game (committed)."""
        self.announced.add(key)
        self._announced_count[key.table] = self._announced_count.get(key.table, 0) + 1
        meta = self.meta.get(key)
        if meta is not None:
            meta.announced = True

    def unfinished(self, key: GameKey) -> bool:
        meta = self.meta.get(key)
        return meta is not None and not meta.finished
