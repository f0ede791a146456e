"""What a spectator may see: the hall as it stood ``delay`` seconds ago, public events only.

The broadcast delay (15 minutes is common) keeps outside help away from the players, so a
spectator gets nothing received by the hub after ``now - delay``. The arbiter's channel
never reaches a spectator either: irregularities, corrections and the open flags of a
table state are not public (an illegal pass is only marked on the pass the hall saw).
The live table state is never used: it is current, not delayed, and its board string is
the camera's reading, hands and all.

Each game is built from what its table says happened (:mod:`.broadcast_game`), and each
table is built on its own: whatever one table sent, the other tables' cards are built
and served (a table whose data cannot be built keeps its last good card).

Everything here is pure but for one throttled log line per failing table: the caller
passes the stored events and the current time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from controller.boardsize import STANDARD, size_of_board_string
from controller.hub.broadcast_game import MARKING_EVENTS as MARKING_EVENTS
from controller.hub.broadcast_game import PUBLIC_EVENTS as PUBLIC_EVENTS
from controller.hub.broadcast_game import START, Replay, discs, with_boards
from controller.hub.broadcast_game import StoredEventLike as StoredEventLike
from controller.hub.broadcast_game import public_event as public_event
from controller.hub.logs import Throttled
from controller.position import Position

log = logging.getLogger("kaeshi.hub")
_failures = Throttled(log, every=60.0)

__all__ = ["GameInfo", "Replay", "SpectatorTable", "delayed_table", "public_event",
           "spectator_tables", "visible"]


@dataclass(frozen=True)
class GameInfo:
    """Who plays a game and in which round: public from the moment the pairings are out."""

    black: str = ""
    white: str = ""
    round: int | None = None
    size: int = STANDARD  # of the board the game is played on (its table's state says)


@dataclass
class SpectatorTable:
    """One table as a spectator sees it, as of ``as_of`` (hub wall time)."""

    table: int
    game: str | None
    as_of: float
    info: GameInfo = field(default_factory=GameInfo)
    board: str = START
    to_move: str | None = "black"
    last: dict[str, Any] | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    boards: list[str] = field(default_factory=list)  # the board after each entry of moves
    clock: dict[str, Any] | None = None
    result: dict[str, Any] | None = None

    def to_dict(self, boards: bool = True) -> dict[str, Any]:
        """The table's JSON; ``boards`` False leaves each move entry's board out (the
        hall's overview sends only the boards as they stand; one table's own page gets
        the board after every step)."""
        moves = with_boards(self.moves, self.boards) if boards else self.moves
        return {
            "table": self.table,
            "game": self.game,
            "round": self.info.round,
            "black": self.info.black,
            "white": self.info.white,
            "size": size_of_board_string(self.board),
            "board": self.board,
            "to_move": self.to_move,
            "last": self.last,
            "discs": discs(self.board),
            "moves": moves,
            "clock": self.clock,
            "result": self.result,
        }


E = TypeVar("E", bound=StoredEventLike)
_READ = PUBLIC_EVENTS | MARKING_EVENTS


def visible(events: Iterable[E], now: float, delay: float) -> list[E]:
    """The public events received at least ``delay`` seconds before ``now``."""
    cutoff = now - delay
    return [e for e in events if e.received <= cutoff and e.event.get("event") in PUBLIC_EVENTS]


def delayed_table(
    table: int,
    events: Sequence[StoredEventLike],
    now: float,
    delay: float,
    infos: Mapping[tuple[int, str], GameInfo] | None = None,
    current: tuple[str, GameInfo] | None = None,
    replays: dict[tuple[int, str], Replay] | None = None,
) -> SpectatorTable:
    """Table ``table`` as it stood at ``now - delay``.

    ``events`` are the table's stored events (any games, any order). The game shown is the
    one with the latest visible public event; with none yet, ``current`` (the game the
    table is on now and its players, public since the pairings) from its start position.
    ``replays`` keeps each game's replay between calls (the hub stores a game's events in
    seq order as they arrive, so what is visible of it only ever grows at its end).
    """
    cutoff = now - delay
    shown = visible(events, now, delay)
    infos = infos or {}
    if not shown:
        if current is None:
            return SpectatorTable(table, None, cutoff)
        return SpectatorTable(table, current[0], cutoff, current[1],
                              board=Position.start(current[1].size).board_string())
    latest = max(shown, key=lambda e: (e.received, e.seq))
    game = latest.game
    # the game's public events and the arbiter's events that mark them, as old
    mine = sorted((e for e in events if e.game == game and e.received <= cutoff
                   and e.event.get("event") in _READ), key=lambda e: e.seq)
    info = infos.get((table, game))
    if info is None:
        info = current[1] if current is not None and current[0] == game else GameInfo()
    view = SpectatorTable(table, game, cutoff, info)
    replay = replays.get((table, game)) if replays is not None else None
    if replay is None or replay.fed > len(mine):
        replay = Replay(info.size)
    for stored in mine[replay.fed:]:
        replay.feed(stored)
    if replays is not None:
        replays[(table, game)] = replay
    view.board, view.to_move, view.last = replay.board, replay.to_move, replay.last()
    # shallow: an entry only ever gains a mark that has itself passed the delay
    view.moves, view.boards = list(replay.moves), list(replay.boards)
    view.result = None if replay.result is None else dict(replay.result)
    view.clock = replay.clock_at()
    return view


def spectator_tables(
    events_by_table: Mapping[int, Sequence[StoredEventLike]],
    now: float,
    delay: float,
    infos: Mapping[tuple[int, str], GameInfo] | None = None,
    current: Mapping[int, tuple[str, GameInfo]] | None = None,
    replays: dict[tuple[int, str], Replay] | None = None,
    last_good: dict[int, SpectatorTable] | None = None,
) -> list[SpectatorTable]:
    """Every table as a spectator sees it, by table number (``replays``: see
    :func:`delayed_table`; entries of games no longer shown are dropped).

    A table whose view cannot be built (whatever it sent) does not stop the others: it
    shows its card from ``last_good`` (each table's last view built, kept there) or, with
    none, its pairing at the start, and the failure is logged once a minute per table.
    """
    current = current or {}
    tables = sorted(set(events_by_table) | set(current))
    out = []
    for t in tables:
        try:
            view = delayed_table(t, events_by_table.get(t, ()), now, delay, infos,
                                 current.get(t), replays)
        except Exception as exc:  # noqa: BLE001 - one table must never blank the hall
            _failures.error(("broadcast", t), "broadcast of table %d could not be built "
                            "(%s: %s); its last card is shown", t, type(exc).__name__, exc)
            if replays is not None:
                for key in [k for k in replays if k[0] == t]:
                    del replays[key]  # built afresh next time
            kept = last_good.get(t) if last_good is not None else None
            if kept is not None:
                view = kept
            else:
                cur = current.get(t)
                view = SpectatorTable(t, cur[0] if cur else None, now - delay,
                                      cur[1] if cur else GameInfo())
        if last_good is not None:
            last_good[t] = view
        out.append(view)
    if replays is not None:
        shown = {(v.table, v.game) for v in out}
        for key in [k for k in replays if k not in shown]:
            del replays[key]
    return out
