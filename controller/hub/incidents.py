"""The hall's incident log: every irregularity of the event and how each ended.

A flag card on the dashboard lives only while its flag is open; the log keeps it. It
folds each game's stored events into the records' :class:`~controller.records.
irregular.History` (the same words as the game records' comments), reading from the
store only the events it has not folded yet, so a dashboard refresh costs what arrived.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from controller.hall_protocol.protocol import GameKey, StoredEvent, TableStatus
from controller.records.irregular import OPEN, History


class EventStore(Protocol):
    def tables(self) -> list[TableStatus]: ...
    def events(self, table: int, game: str | None = None, after: int = 0
               ) -> list[StoredEvent]: ...
    def games(self, announced: bool | None = None) -> list[GameKey]: ...


@dataclass
class _Game:
    history: History = field(default_factory=History)
    seq: int = 0
    moves: int = 0
    wall: dict[int, float] = field(default_factory=dict)  # entry index -> hub time
    board: str | None = None  # the official board after the last event that said one
    corrected_t: object = None  # game time of the players' last correction


class Incidents:
    """The log, kept up to date from the store on each :meth:`log`."""

    def __init__(self, store: EventStore) -> None:
        self._store = store
        self._games: dict[GameKey, _Game] = {}

    def _fold(self, key: GameKey) -> _Game:
        g = self._games.setdefault(key, _Game())
        for stored in self._store.events(key.table, key.game, after=g.seq):
            ev = stored.event
            kind = ev.get("event")
            if kind in ("move", "pass"):
                g.moves += 1
            elif kind == "resync":
                g.moves += len(ev.get("moves") or [])
            before = len(g.history.entries)
            try:
                g.history.take([ev], g.moves, float(ev.get("t") or 0.0))
            except (KeyError, TypeError, ValueError):  # a value an older hub let in
                del g.history.entries[before:]
            if kind == "corrected":
                g.corrected_t = ev.get("t")
            elif (kind not in ("move", "pass", "resync", "irregularity") and stored.board
                  and g.board is not None and stored.board != g.board
                  and ev.get("t") != g.corrected_t):
                # the board changed without a move or the players' correction: the
                # arbiter set the position (a ruling has no event of its own; letting the
                # board stand as it is changes nothing, and the fault then stands)
                g.history.ruled(float(ev.get("t") or 0.0), accepted=False)
            if stored.board:
                g.board = stored.board
            for i in range(before, len(g.history.entries)):
                g.wall[i] = stored.received
            g.seq = stored.seq
        return g

    def log(self, statuses: list[TableStatus], rounds: dict[tuple[int, str], int | None],
            everything: bool = False, limit: int = 100) -> list[dict[str, Any]]:
        """The ``limit`` latest irregularities, the open ones first: table, game, round,
        move, who, what, where, how it ended (``outcome``) and when (hub time).

        Only a game never read, or a table's current game whose state says it has grown,
        is read again; ``everything`` reads every game's new events (a game a table
        sends late, after it has moved on)."""
        grown = {GameKey(st.table, st.state.game): st.state.seq for st in statuses
                 if st.state is not None}
        out: list[dict[str, Any]] = []
        for key in self._store.games():
            g = self._games.get(key)
            if g is None or everything or grown.get(key, 0) > g.seq:
                g = self._fold(key)
            for i, e in enumerate(g.history.entries):
                out.append({
                    "table": key.table, "game": key.game,
                    "round": rounds.get((key.table, key.game)),
                    "n": e.n, "player": e.player, "kind": e.kind, "squares": e.squares,
                    "text": e.text(), "status": e.status, "outcome": e.outcome(),
                    "open": e.status == OPEN, "at": g.wall.get(i)})
        out.sort(key=lambda d: (not d["open"], -(d["at"] or 0.0), d["table"]))
        return out[:limit]
