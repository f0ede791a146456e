"""``kaeshi hub simulate --players N`` (or ``--event FILE --roster FILE``): a hall day.

The same :class:`~controller.hub.simulate.Hall` as a single round, with the event file
of ``kaeshi tournament`` given to the hub: the lottery is drawn and round 1 paired here,
before the hub starts; once every table is online round 1 goes out through the
dashboard's "Send pairings to the tables" (``POST /api/pairings/send``), and from then
on the hub alone runs the day: each table replays its next real game when its
``next_game`` order comes (``hub.wait_for_pairing``), both players sign the result with
their clock buttons, the hub's result desk hands each signed result to the director,
and the director pairs the next round when the round is complete. A result that needs
the arbiter (an irregularity left standing, a fallen flag) is confirmed here as the
arbiter would, through the dashboard's own ``confirm`` action, and counted apart; a
player who disputes their result presses so on the table's own page, and the arbiter
rules on it at the dashboard (``sim_desk``).

No division plays draws, so every game has its 伏せ石 (rule 1), drawn here with the
simulation's seed and recorded through the dashboard's ``toss`` action as soon as the
game is paired: round 1's before its pairings go out, so its colours are the toss's;
later rounds' while the table has begun, so only the draw-win right is drawn. A game
that ends 32–32 is then won by its holder, at the table and at the director.
"""

from __future__ import annotations

import contextlib
import json
import random
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from controller.boardsize import board_size
from controller.errors import KaeshiError
from controller.hub.sim_desk import Desk, LateAtTable, PlannedDispute, plan_disputes, plan_late
from controller.hub.sim_incidents import Incidents
from controller.hub.sim_operator import page_url, running, show_until_interrupted
from controller.hub.sim_summary import Comparison, SimulateOptions
from controller.hub.simulate import Hall
from controller.tournament import Tournament
from controller.tournament.leaderboard import leaderboard
from controller.tournament_store import store
from controller.tournament_store.roster import (
    EventConfig,
    decode_roster,
    parse_event,
    parse_roster,
)
from controller.tournament_store.simulate import random_roster

#: Seconds a table's game may take at 1x, for the timeouts (a WTHOR replay is ~4 min).
ROUND_SECONDS = 6000.0


@dataclass(frozen=True)
class EventPlan:
    """Where the event comes from: ``players`` (a random roster) or the files of
    ``kaeshi tournament new``; ``rounds``: stop after that many (0: the whole event)."""

    players: int = 0
    event: Path | None = None
    roster: Path | None = None
    rounds: int = 0
    #: ``--extend``: confirm a random field outside the open format's sizes (fewer
    #: than 16 or more than 128 entries), run as the variant the notes name.
    extend: bool = False
    #: Play the day's trouble: results disputed at their tables and ruled on at the
    #: dashboard (``sim_desk``), and through the hub (``sim_incidents``) a late
    #: arrival, a forfeit, a correction, the hub killed and restarted between two rounds.
    incidents: bool = True


@dataclass
class EventSummary:
    """What the day came to, as the organiser meets it."""

    tables: int
    seconds: float
    comparison: Comparison
    rounds: int  # rounds whose every result the director holds
    finished: bool  # the whole event is over
    signed: int  # results both players signed at the table
    arbiter: list[str] = field(default_factory=list)  # results the arbiter confirmed
    standings: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    tosses: int = 0  # 伏せ石 recorded through the dashboard
    drawn: list[str] = field(default_factory=list)  # 32-32 boards and who won them
    #: Results a player disputed at the table, each with the arbiter's ruling.
    disputes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.comparison.equal and self.rounds > 0

    def text(self) -> str:
        c = self.comparison
        lost, doubled = c.lost_and_doubled()
        moves = sum(t.moves for t in c.tables)
        lines = [
            f"{self.rounds} round(s) on {self.tables} tables in {self.seconds:.1f} s"
            f"{', the whole event' if self.finished else ''}: {moves} moves, "
            f"{sum(t.journal for t in c.tables)} events journaled, "
            f"{sum(t.hub for t in c.tables)} stored by the hub; lost {lost}, doubled {doubled}",
            f"results: {self.signed} signed by both players at the table, "
            f"{len(self.arbiter)} confirmed by the arbiter; {self.tosses} 伏せ石 recorded, "
            f"{len(self.drawn)} board(s) 32-32",
            f"disputes: {len(self.disputes)} pressed at the table, "
            f"{sum('upheld' in x for x in self.disputes)} upheld, "
            f"{sum('rejected' in x for x in self.disputes)} rejected",
            *(f"  dispute: {x}" for x in self.disputes),
            *(f"  arbiter: {x}" for x in self.arbiter),
            *(f"  32-32: {x}" for x in self.drawn),
            "final ranking:" if self.finished else "provisional ranking:",
            *(f"  {x}" for x in self.standings[:8]),
            *self.notes,
        ]
        return "\n".join(lines)


def make_event(path: Path, plan: EventPlan, seed: int) -> Tournament:
    """The event file, its lottery drawn and round 1 paired (as the organiser does with
    ``kaeshi tournament new / lottery / pair`` before the day)."""
    rng = random.Random(seed)
    if plan.event is not None:
        if plan.roster is None:
            raise KaeshiError("--event needs --roster (the players' CSV)")
        config = parse_event(_read(plan.event), str(plan.event))
        try:
            data = plan.roster.read_bytes()
        except OSError as exc:
            raise KaeshiError(f"{plan.roster}: {exc.strerror}") from None
        roster = parse_roster(decode_roster(data, str(plan.roster)), str(plan.roster))
    else:
        if not 2 <= plan.players <= 400:
            raise KaeshiError(f"--players must be 2-400, not {plan.players}")
        config = EventConfig("Simulated hall day", "open", date.today().isoformat(), "JPN",
                             "kaeshi", plan.extend)
        roster = random_roster(rng, plan.players, "open")
    t = store.create(path, config, roster)
    store.commit(path, t, "lottery",
                 {"seeds": [f"{rng.randrange(100000):05d}" for _ in range(3)]})
    store.commit(path, t, "pair", {})
    return t


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise KaeshiError(f"{path}: {exc.strerror}") from None


def rounds_of(path: Path, seed: int) -> int:
    """How many rounds the event will have: the pure core played to its end with random
    results on a copy read from the file (the count follows from the field, not from
    who wins)."""
    rng = random.Random(seed)
    copy = store.load(path)[1]
    while not copy.finished:
        rnd = copy.current
        assert rnd is not None
        for g in rnd.games:
            if g.table is not None and not g.done:
                black = rng.choice((20, 44))
                copy.record_result(g.table, "black" if black > 32 else "white",
                                   (black, board_size().squares - black))
        if not copy.finished:
            copy.pair_next_round()
    return len(copy.rounds)


class HubPages:
    """The hub's arbiter API, as a script reaches it (bearer token)."""

    def __init__(self, url: str, token: str) -> None:
        self.url = url
        self.token = token

    def call(self, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            self.url + path, data=data, method="GET" if body is None else "POST",
            headers={"Authorization": f"Bearer {self.token}",
                     "Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())


def simulate_event(options: SimulateOptions, plan: EventPlan,
                   say: Callable[[str], None] = print) -> EventSummary:
    """Play an event in a simulated hall (see the module docstring). With
    ``options.web`` the pages' addresses are said at once, the summary at the end, and
    the pages stay up until Ctrl-C."""
    with contextlib.ExitStack() as stack:
        folder = Path(options.folder or stack.enter_context(
            tempfile.TemporaryDirectory(prefix="kaeshi-event-")))
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / "event.sqlite"
        path.unlink(missing_ok=True)
        t = make_event(path, plan, options.seed)
        assert t.current is not None
        tables = max(g.table or 0 for r in [t.current] for g in r.games)
        total = rounds_of(path, options.seed)
        wanted = min(total, plan.rounds) if plan.rounds > 0 else total
        disputes, late = plan_disputes(t, plan.incidents), plan_late(t, plan.incidents)
        hall = Hall(folder, tables, options.speed, errors=options.errors, seed=options.seed,
                    event=options.event, web=options.web, games=wanted, tournament=path,
                    disputes={(d.table, d.round): d.colour for d in disputes},
                    late={(x.table, x.round): x.colour for x in late})
        with running(hall, options, tables, say) as started:
            summary = _run_day(hall, path, wanted, started, say, plan, disputes, late)
            if options.folder:
                summary.notes.append(f"files in {folder}")
            if options.web:
                show_until_interrupted(summary.text(), say)
        return summary
    raise KaeshiError("unreachable")  # pragma: no cover - ExitStack does not swallow


def _run_day(hall: Hall, path: Path, rounds: int, started: float,
             say: Callable[[str], None], plan: EventPlan,
             disputes: list[PlannedDispute], late: list[PlannedDispute]) -> EventSummary:
    pages = HubPages(page_url(hall), hall.token)
    desk = Desk(pages, disputes, hall.table_page, say)
    deadline = time.monotonic() + 120
    while True:  # an order sent before a table subscribed would not reach it
        cards = pages.call("/api/dashboard")["tables"]
        if sum(1 for c in cards if c["online"] and c.get("game")) >= hall.n:
            break
        if time.monotonic() > deadline:
            raise KaeshiError("not every table came online within 120 s")
        time.sleep(0.3)
    toss = Tosses(pages, random.Random(hall.seed))
    toss.record(store.load(path)[1], colours=True)  # at the boards, before round 1 starts
    sent = pages.call("/api/pairings/send", {})["sent"]
    say(f"round 1 sent to the tables: {len(sent)} games")
    first = store.load(path)[1].rounds[0]  # the colours the tables were sent
    names = {(1, g.table): (g.black, g.white) for g in first.games if g.table is not None}
    at_table = LateAtTable(late, hall.table_page, hall.page_tokens.__getitem__, hall.speed,
                           names, say)
    incidents = Incidents(pages, hall, rounds, say, enabled=plan.incidents)
    done = 0
    limit = time.monotonic() + 60 + ROUND_SECONDS * rounds / hall.speed
    t = store.load(path)[1]
    interrupted = False
    with at_table:  # the table's arbiter marks the late player on its own thread
        try:
            while time.monotonic() < limit:
                _, t = store.load(path)
                complete = sum(1 for r in t.rounds if r.complete)
                if complete > done:
                    done = complete
                    said = f"round {done} complete"
                    if len(t.rounds) > done:
                        said += f"; round {done + 1} paired and sent"
                    elif not t.finished:
                        said += f"; round {done + 1} not paired yet"
                    say(said)
                if done >= rounds or t.finished:
                    break
                incidents.step(t)
                toss.record(t, colours=False)
                desk.press(t)
                desk.rule()
                time.sleep(0.5)
        except KeyboardInterrupt:  # Ctrl-C ends the day here; the summary still comes
            interrupted = True
            _, t = store.load(path)
    comparison = hall.wait_complete(timeout=5.0 if interrupted else 30.0, events_only=True)
    signed = sum(1 for r in t.rounds[:done] for g in r.games
                 if g.table is not None and g.done and not g.forfeit) \
        - len(desk.confirmed) - len(desk.rulings)
    standings = leaderboard(t).lines()  # the dashboard's and the sheets' 勝数
    notes = [hall.latency_note(), *_round_bar(pages),
             *(f"incident: {x}" for x in [*at_table.log, *incidents.log])]
    if t.extension:
        notes.append(f"note: {t.extension}")
    if interrupted:
        notes.append(f"stopped by Ctrl-C after {done} of {rounds} rounds")
    elif done < rounds:
        notes.append(f"only {done} of {rounds} rounds were complete in time")
    drawn = [f"round {r.number} table {g.table}: {g.winner} (draw-win right)"
             for r in t.rounds[:done] for g in r.games if g.outcome == "draw"]
    return EventSummary(hall.n, time.monotonic() - started, comparison, done, t.finished,
                        signed, desk.confirmed, standings, notes, toss.count, drawn,
                        desk.rulings)


class Tosses:
    """The players' 伏せ石 at every board of the current round, recorded through the
    dashboard once per game. ``colours``: the toss also decides who plays black (only
    before the first move); else the paired colours stand and only the right is drawn."""

    def __init__(self, pages: HubPages, rng: random.Random) -> None:
        self.pages = pages
        self.rng = rng
        self.done: set[tuple[int, int]] = set()  # (round, table)
        self.count = 0

    def record(self, t: Tournament, colours: bool) -> None:
        rnd = t.current
        if rnd is None or t.settings.draws:
            return
        for g in rnd.games:
            key = (rnd.number, g.table or 0)
            if g.table is None or g.done or g.draw_win is not None or key in self.done:
                continue
            self.done.add(key)
            assert g.black is not None and g.white is not None
            pair = (g.black, g.white)
            black = self.rng.choice(pair) if colours else g.black
            body = {"black": black, "draw_win": self.rng.choice(pair)}
            try:
                self.pages.call(f"/api/table/{g.table}/toss", body)
            except urllib.error.HTTPError as exc:
                if exc.code != 400:  # 400: the result came first (the round moves on)
                    raise
                continue
            self.count += 1


def _round_bar(pages: HubPages) -> list[str]:
    """The dashboard's round bar as the day ended, and each table whose pairing is
    refused, with the arbiter's step there (controller/round_flow.py's words): a round
    such a table holds up does not end by itself."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        board = pages.call("/api/dashboard")
        bar = board.get("hall_round")
        if bar:
            return [f"dashboard: {bar['text']}", *(
                f"  table {c['table']} refuses its pairing: {c['round_step']['text']}"
                for c in board.get("tables", [])
                if (c.get("round_step") or {}).get("stage") == "refused")]
    return []

