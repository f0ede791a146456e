"""What the web pages read of the hub's store, and what is kept of it between builds.

The first step of the pages' data flow: :class:`Store` names the reads, :class:`GameBook`
who played each game, :class:`RecentEvents` each table's latest games' events, read only
as they grow. :mod:`~controller.hub.web.live` shapes them into the pages' JSON.
"""

from __future__ import annotations

from typing import Protocol

from controller.hall_protocol.protocol import GameKey, StoredEvent, TableStatus
from controller.hub.broadcast import GameInfo


class Store(Protocol):
    """The reads the web pages make of the hub's store (``controller.hub.store.HubStore``)."""

    def tables(self) -> list[TableStatus]: ...
    def table(self, table: int) -> TableStatus | None: ...
    def events(self, table: int, game: str | None = None, after: int = 0
               ) -> list[StoredEvent]: ...
    def games(self, announced: bool | None = None) -> list[GameKey]: ...


class GameBook:
    """Who played which game and in which round. The store keeps each game's last state
    (``game_info``); states seen here are remembered too, so a store without it still
    names the games played since the hub started."""

    def __init__(self, store: Store) -> None:
        self._store = store
        self._infos: dict[tuple[int, str], GameInfo] = {}
        self._asked: set[tuple[int, str]] = set()

    def note(self, statuses: list[TableStatus]) -> None:
        for st in statuses:
            s = st.state
            if s is not None:
                self._infos[(st.table, s.game)] = GameInfo(s.black, s.white, s.round, s.size)

    def infos(self) -> dict[tuple[int, str], GameInfo]:
        lookup = getattr(self._store, "game_info", None)
        if callable(lookup):
            for table, game in self._store.games():
                key = (table, game)
                if key in self._infos or key in self._asked:
                    continue
                self._asked.add(key)  # a game never described by a state stays unnamed
                s = lookup(table, game)
                if s is not None:
                    self._infos[key] = GameInfo(s.black, s.white, s.round, s.size)
        return dict(self._infos)


class RecentEvents:
    """The events of each table's latest ``keep`` games, read from the store only as they
    grow: the spectators' page is rebuilt every second, the store is not re-read."""

    def __init__(self, store: Store, keep: int = 2) -> None:
        self._store = store
        self._keep = keep
        self._events: dict[GameKey, list[StoredEvent]] = {}

    def by_table(self) -> dict[int, list[StoredEvent]]:
        latest: dict[int, list[GameKey]] = {}
        # oldest first; a game its table never announced is the arbiter's alone
        for key in self._store.games(announced=True):
            latest.setdefault(key.table, []).append(key)
        wanted = {k for keys in latest.values() for k in keys[-self._keep:]}
        for key in list(self._events):
            if key not in wanted:
                del self._events[key]
        out: dict[int, list[StoredEvent]] = {}
        for table, keys in latest.items():
            mine = out.setdefault(table, [])
            for key in keys[-self._keep:]:
                have = self._events.setdefault(key, [])
                have.extend(self._store.events(key.table, key.game,
                                               after=have[-1].seq if have else 0))
                mine.extend(have)
        return out
