"""What the web pages read: the hub's tables, shaped for the arbiter and for spectators.

The hub's bus calls back from the MQTT thread or the event loop; :class:`Changes` turns
that into a version number that server-sent-event streams await on the loop. The
snapshots are built once per change (or per second, since clocks run) and shared by
every open page, so a hundred spectators cost one rebuild, not a hundred.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controller.hall_protocol.protocol import GameKey, HubChange, StoredEvent, TableStatus
from controller.hub.broadcast import (
    GameInfo,
    Replay,
    SpectatorTable,
    spectator_tables,
    visible,
)
from controller.hub.export import event_records
from controller.hub.incidents import Incidents
from controller.hub.results import Director, ResultDesk
from controller.hub.round_status import HallRound, hall_round
from controller.hub.web.dashboard import REASONS, RESULT, dashboard, refused_pairings
from controller.irregularities import KIND_NAMES
from controller.records.model import GameRecord


class Store(Protocol):
    """The reads the web pages make of the hub's store (``controller.hub.store.HubStore``)."""

    def tables(self) -> list[TableStatus]: ...
    def table(self, table: int) -> TableStatus | None: ...
    def events(self, table: int, game: str | None = None, after: int = 0
               ) -> list[StoredEvent]: ...
    def games(self, announced: bool | None = None) -> list[GameKey]: ...


class Changes:
    """A change counter the bus bumps from any thread and SSE streams await on the loop."""

    def __init__(self) -> None:
        self.version = 0
        #: Set when the server stops: open streams end instead of holding it up.
        self.closed = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None
        self._closing: asyncio.Event | None = None
        self._lock = threading.Lock()

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._event = asyncio.Event()
        self._closing = asyncio.Event()

    def notify(self, change: HubChange | None = None) -> None:
        del change
        loop = self._loop
        if loop is None or loop.is_closed():
            with self._lock:
                self.version += 1
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._bump()
        else:
            loop.call_soon_threadsafe(self._bump)

    def close(self) -> None:
        """End every open stream (from any thread), e.g. before the server shuts down."""
        self.closed = True
        self.notify()

    def _bump(self) -> None:
        if self.closed and self._closing is not None:
            self._closing.set()
        with self._lock:
            self.version += 1
        event, self._event = self._event, asyncio.Event()
        if event is not None:
            event.set()

    async def wait(self, version: int, timeout: float) -> int:
        """The version once it differs from ``version``, or after ``timeout`` seconds."""
        if self.version == version and self._event is not None:
            try:
                await asyncio.wait_for(self._event.wait(), timeout)
            except TimeoutError:
                pass
        elif self._event is None:
            await asyncio.sleep(timeout)
        return self.version

    async def sleep(self, timeout: float) -> None:
        """Wait ``timeout`` seconds, or less if the server is closing."""
        if self._closing is None:
            await asyncio.sleep(timeout)
            return
        try:
            await asyncio.wait_for(self._closing.wait(), timeout)
        except TimeoutError:
            pass


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


@dataclass
class Views:
    """Builds the JSON every page shows; the web app calls these off the event loop."""

    store: Store
    director: Director | None
    desk: ResultDesk | None
    clock: Callable[[], float]
    delay: float
    warning: float
    event_name: str = ""
    #: What a table did wrong (the hub's ``trouble``), shown on its card; None: nothing.
    trouble: Callable[[int], dict[str, Any] | None] | None = None

    def __post_init__(self) -> None:
        self.book = GameBook(self.store)
        self.recent = RecentEvents(self.store)
        self.replays: dict[tuple[int, str], Replay] = {}
        self.last_good: dict[int, SpectatorTable] = {}
        self.shown: dict[int, SpectatorTable] = {}  # the last spectator build, by table
        self.incidents = Incidents(self.store)
        self._incidents_read = float("-inf")  # when every game was last read for the log

    def _statuses(self) -> list[TableStatus]:
        statuses = self.store.tables()
        self.book.note(statuses)
        return statuses

    def unreadable(self, table: int) -> str | None:
        """Why a value of table ``table`` in the store cannot be shown (one an older hub
        let in that no reader takes now), or None: its card says "unreadable" instead."""
        found: dict[GameKey, str] = getattr(self.store, "unreadable", {})
        for key, why in list(found.items()):
            if key.table == table:
                return f"unreadable: {why}" if not key.game else \
                    f"unreadable: game {key.game}, {why}"
        return None

    def _mark(self, items: list[dict[str, Any]]) -> None:
        if getattr(self.store, "unreadable", None):
            for item in items:
                why = self.unreadable(item["table"])
                if why is not None:
                    item["unreadable"] = why

    def awaiting(self, status: TableStatus) -> bool:
        return self.desk is not None and self.desk.awaiting(status)

    def standings(self) -> list[dict[str, Any]]:
        if self.director is None:
            return []
        return [
            {"rank": s.rank, "player": s.player, "wins": s.wins,
             "criteria": [[label, value] for label, value in s.criteria],
             "final": s.final, "grade": s.grade, "ouza": s.ouza,
             **({"note": s.note} if s.note else {})}
            for s in self.director.standings()
        ]

    def pairings(self) -> list[dict[str, Any]]:
        if self.desk is None:
            return []
        return [
            {"round": p.round, "table": p.table, "black": p.black, "white": p.white,
             "text": p.announcement()}
            for p in self.desk.current_pairings()
        ]

    def pairings_board(self) -> dict[str, Any]:
        """The hall screen's "find your table": every player of the round in the paper
        player list's order (:func:`~controller.tournament_store.paper.player_list`)."""
        from controller.tournament_store.paper import _sort_key as paper_order
        rnd = self.director.current_round() if self.director is not None else None
        if self.director is None or rnd is None:
            return {"event": self.event_name, "round": None, "players": []}
        byes = getattr(self.director, "byes", None)  # a director without byes has none
        rows = [{"name": name, "table": p.table, "colour": colour, "opponent": other}
                for p in self.director.pairings(rnd)
                for name, colour, other in ((p.black, "black", p.white),
                                            (p.white, "white", p.black))]
        rows += [{"name": name, "table": None, "colour": None, "opponent": None, "bye": True}
                 for name in (byes(rnd) if callable(byes) else [])]
        return {"event": self.event_name, "round": rnd,
                "players": sorted(rows, key=lambda r: paper_order(str(r["name"])))}

    def arbiter(self) -> dict[str, Any]:
        """The dashboard: every table, most urgent first; pairings and standings."""
        now = self.clock()
        statuses = self._statuses()
        cards = dashboard(statuses, now, self.awaiting, self.warning)
        self._toss_notes(statuses, cards)
        self._mark(cards)
        if self.trouble is not None:
            for card in cards:
                trouble = self.trouble(card["table"])
                if trouble is not None:
                    card["trouble"] = trouble
        hall = self._round(statuses, cards)
        return {"now": now, "tables": cards, "pairings": self.pairings(),
                "standings": self.standings(),
                "round": self.director.current_round() if self.director else None,
                "hall_round": None if hall is None else {
                    "round": hall.round, "text": hall.text,
                    "byes": [b.black for b in hall.byes]},
                "incidents": self.incident_log(statuses)}

    def _round(self, statuses: list[TableStatus], cards: list[dict[str, Any]]
               ) -> HallRound | None:
        """Each card's round in words (``round_step``), from one flow per table."""
        if self.director is None:
            return None
        hall = hall_round(statuses, self.director, self.desk)
        for c in cards:
            flow = hall.tables.get(c["table"])
            if flow is not None:
                c["round_step"] = flow.step().to_json()
        refused_pairings(cards)
        return hall

    def incident_log(self, statuses: list[TableStatus], table: int | None = None
                     ) -> list[dict[str, Any]]:
        """The hall's irregularities and how each ended (one table's with ``table``)."""
        now = self.clock()
        everything = now - self._incidents_read >= 5.0
        if everything:
            self._incidents_read = now
        rounds = {key: info.round for key, info in self.book.infos().items()}
        log = self.incidents.log(statuses, rounds, everything,
                                 limit=100 if table is None else 100_000)
        return log if table is None else [e for e in log if e["table"] == table][:100]

    def table(self, table: int) -> dict[str, Any] | None:
        """One table in full for the arbiter: its card and every event of its game."""
        status = self.store.table(table)
        if status is None:
            return None
        self.book.note([status])
        now = self.clock()
        card = dashboard([status], now, self.awaiting, self.warning)[0]
        self._toss_notes([status], [card])
        self._round(self.store.tables(), [card])
        self._mark([card])
        game = status.state.game if status.state is not None else None
        events = [] if game is None else [
            {"seq": e.seq, "received": e.received, **e.event}
            for e in self.store.events(table, game)
        ]
        if self.trouble is not None and (trouble := self.trouble(table)) is not None:
            card["trouble"] = trouble
        unannounced = [g for t, g in self.store.games(announced=False) if t == table]
        return {"now": now, "card": card, "events": events, "unannounced": unannounced,
                "pairing": self._pairing(table), "kind_names": KIND_NAMES,
                "incidents": self.incident_log([status], table)}

    def _toss_notes(self, statuses: list[TableStatus], cards: list[dict[str, Any]]) -> None:
        """A drawn board that waits for the 伏せ石 says so, and what to do, on its card."""
        if self.desk is None:
            return
        waiting = {st.table for st in statuses if self.desk.needs_toss(st)}
        for c in cards:
            if c["table"] in waiting and c["attention"]["reason"] == REASONS[RESULT]:
                r = c["result"]
                c["needs_toss"] = True
                c["attention"]["detail"] = (
                    f"{r['black']}-{r['white']} and no 伏せ石 recorded: record who holds "
                    "the draw-win right, and the result goes to the director")

    def _pairing(self, table: int) -> dict[str, Any] | None:
        """The game paired on ``table`` now, and its 伏せ石 as the director has it."""
        if self.desk is None or self.director is None:
            return None
        p = next((p for p in self.desk.current_pairings() if p.table == table), None)
        if p is None:
            return None
        s = self.store.table(table)
        shows = s.state.round if s is not None and s.state is not None else None
        return {"round": p.round, "black": p.black, "white": p.white,
                # the game the 伏せ石 is for, and whether the table still shows another
                "game_text": f"round {p.round}: {p.black} – {p.white}",
                "elsewhere": shows != p.round,
                "draw_win_right": p.draw_win_right, "draws": p.draws_allowed,
                "needs_toss": p.needs_toss,
                "result": self.director.result(p.round, table) is not None}

    def _delayed(self) -> tuple[float, list[Any]]:
        now = self.clock()
        statuses = self._statuses()
        current = {st.table: (st.state.game, GameInfo(st.state.black, st.state.white,
                                                      st.state.round, st.state.size))
                   for st in statuses if st.state is not None}
        by_table = self.recent.by_table()
        return now, spectator_tables(by_table, now, self.delay, self.book.infos(), current,
                                     self.replays, self.last_good)

    def spectator(self) -> dict[str, Any]:
        """The hall as it stood ``delay`` seconds ago; no arbiter's channel in it."""
        now, tables = self._delayed()
        self.shown = {t.table: t for t in tables}
        shown = [t.to_dict(boards=False) for t in tables]
        self._mark(shown)
        return {"now": now, "delay": self.delay, "as_of": now - self.delay,
                "event": self.event_name,
                "tables": shown,
                "standings": self.standings(), "pairings": self.pairings()}

    def spectator_table(self, table: int) -> dict[str, Any] | None:
        """One table of the last :meth:`spectator` build, with the official board after
        every step of its move list (for a page that follows one board)."""
        view = self.shown.get(table)
        if view is None:
            return None
        return {"as_of": view.as_of, "delay": self.delay, "event": self.event_name,
                **view.to_dict(boards=True)}

    def delayed_records(self, only: GameKey | None = None) -> list[GameRecord]:
        """Every game as far as a spectator may see it, as records (for the feeds);
        ``only``: that one game (none if its table never announced it)."""
        now = self.clock()
        self._statuses()

        def seen(table: int, game: str) -> list[StoredEvent]:
            return visible(self.store.events(table, game), now, self.delay)

        games = [k for k in self.store.games(announced=True) if only is None or k == only]
        records = event_records(games, seen, self.book.infos(), self.event_name)
        # a board kept "as it stood" would say that a fault went unnoticed: the arbiter's
        for rec in records:
            for mv in rec.moves:
                mv.stands, mv.comment = None, ""
        return records

    def records(self) -> list[GameRecord]:
        """Every game in full, irregularities included (the arbiter's export)."""
        self._statuses()
        return event_records(self.store.games(), self.store.events, self.book.infos(),
                             self.event_name)
