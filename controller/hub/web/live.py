"""What the web pages read: the hub's tables, shaped for the arbiter and for spectators.

The middle of the pages' data flow: the store's reads and what is kept of them
(:mod:`~controller.hub.web.store_reads`) go in, the JSON of every page comes out,
rebuilt when the change counter (:mod:`~controller.hub.web.change_count`) moves. The
snapshots are built once per change (or per second, since clocks run) and shared by
every open page, so a hundred spectators cost one rebuild, not a hundred.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controller.hall_protocol.protocol import GameKey, StoredEvent, TableStatus
from controller.hub.broadcast import GameInfo, Replay, SpectatorTable, spectator_tables, visible
from controller.hub.export import event_records
from controller.hub.incidents import Incidents
from controller.hub.results import Director, ResultDesk
from controller.hub.round_status import HallRound, hall_round
from controller.hub.web.dashboard import REASONS, RESULT, dashboard, refused_pairings
from controller.hub.web.store_reads import GameBook, RecentEvents, Store
from controller.irregularities import KIND_NAMES
from controller.records.model import GameRecord
from controller.tournament_store.paper import player_list_order


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
                "players": sorted(rows, key=lambda r: player_list_order(str(r["name"])))}

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
