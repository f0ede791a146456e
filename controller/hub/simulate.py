"""``kaeshi hub simulate``: a whole hall on one machine, with the real parts.

A private Mosquitto with the hall's password file and ACL, ``kaeshi hub`` in its own
process, and N tables in a few worker processes. Each table is the real service
(``kaeshi run``'s ``Service``: arbiter, clock, journal and the hub link with its
publisher) fed by the physical-play simulator replaying a real WTHOR game, without
GPIO or web page. The same :class:`Hall` drives the fault tests and the benchmark:
it can kill the broker or the hub, cut one table's network (through a
:class:`~controller.hub.proxy.ProxyProcess`) or kill a table's process and start it
again, and it compares every table's journal with what the hub stored.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.errors import KaeshiError
from controller.hub.broker import PrivateBroker, die_with_parent, free_port
from controller.hub.proxy import ProxyProcess
from controller.hub.sim_desk import late_log
from controller.hub.sim_operator import running, show_until_interrupted
from controller.hub.sim_summary import Comparison, SimulateOptions, Summary, TableResult
from controller.table_link.journal_events import PUBLISHED_KINDS, event_payload

GAMES_FILE = Path("games") / "wthor" / "WTH_2001.wtb"


def _toml(sections: dict[str, dict[str, Any]]) -> str:
    out: list[str] = []
    for name, values in sections.items():
        out.append(f"[{name}]")
        for k, v in values.items():
            shown = ("true" if v else "false") if isinstance(v, bool) else json.dumps(v)
            out.append(f"{k} = {shown}")
        out.append("")
    return "\n".join(out)


class Hall:
    """A simulated hall in ``folder`` (see the module docstring)."""

    def __init__(self, folder: str | Path, tables: int, speed: float, *, errors: float = 0.03,
                 seed: int = 0, event: str = "sim", proxied: tuple[int, ...] = (),
                 proxy_all: bool = False, web: bool = False, games: int = 1,
                 tournament: Path | None = None,
                 disputes: dict[tuple[int, int], str] | None = None,
                 late: dict[tuple[int, int], str] | None = None) -> None:
        self.folder = Path(folder)
        self.n = tables
        self.speed = speed
        self.errors = errors
        self.seed = seed
        self.event = event
        self.web = web
        self.games = games  # per table, in a row: more than one is a folder of logs
        #: The event file of a whole event (controller.hub.sim_event): the hub drives its
        #: director, each table waits for its pairing before each log, every game ends
        #: on the board and both players sign its result with their clock buttons.
        self.tournament = tournament
        #: (table, round) -> the colour whose player disputes that game's result on the
        #: table's page (controller.hub.sim_desk) instead of signing with the clock: such
        #: a table serves its page, on a port picked here.
        self.disputes = dict(disputes or {})
        #: (table, round) -> the colour of the player who comes late to that game, as
        #: the table's arbiter marks it on the table's page (controller.hub.sim_desk).
        self.late = dict(late or {})
        self.page_ports: dict[int, int] = {}
        self.page_tokens: dict[int, str] = {}
        self.broker = PrivateBroker(self.folder / "broker", tables, event=event)
        self.proxy: ProxyProcess | None = None  # one relay for the tables that use it
        self.proxied = set(range(1, tables + 1)) if proxy_all else set(proxied)
        self.hub: subprocess.Popen[bytes] | None = None
        self.workers: dict[int, subprocess.Popen[bytes]] = {}  # table -> its process
        self.groups: list[list[int]] = []
        self.players: dict[int, tuple[str, str]] = {}
        self.token = secrets.token_urlsafe(16)  # the arbiter's, when the pages are served

    # ----------------------------------------------------------------- set-up
    def table_dir(self, n: int) -> Path:
        return self.folder / f"table-{n}"

    def prepare(self) -> None:
        """Observation logs from real WTHOR games, one config per table, hub.toml."""
        from controller.observation import write_observations
        from controller.records import load_games
        from controller.service.demo import find_data_dir

        games = load_games(find_data_dir() / GAMES_FILE)
        if self.proxied:
            self.proxy = ProxyProcess(self.broker.port)
        for n in range(1, self.n + 1):
            d = self.table_dir(n)
            d.mkdir(parents=True, exist_ok=True)
            log = d / "obs.jsonl"
            if self.games > 1:
                log = d / "logs"
                log.mkdir(exist_ok=True)
            for k in range(self.games):  # each round a different real game
                record, observations = self._round_log(games, n, k,
                                                       self.disputes.get((n, k + 1)))
                if (n, k + 1) in self.late:
                    observations = late_log(observations, self.late[(n, k + 1)])
                path = log if self.games == 1 else log / f"round-{k + 1:02d}.jsonl"
                with path.open("w", encoding="utf-8") as f:
                    write_observations(observations, f)
                if k == 0:
                    first = record
            (d / "password").write_text(self.broker.passwords[str(n)] + "\n")
            black, white = first.black or f"Black {n}", first.white or f"White {n}"
            self.players[n] = (black, white)
            port = self.proxy.port if self.proxy and n in self.proxied else self.broker.port
            (d / "kaeshi.toml").write_text(_toml({
                "game": {"mode": "tournament", "black": black, "white": white,
                         "event": self.event},
                "source": {"kind": "sim", "log": str(log), "speed": self.speed},
                "journal": {"path": str(d / "journal.sqlite")},
                "games": {"folder": str(d / "games")},
                "web": self._table_web(n),
                "hub": {"enabled": True, "host": "127.0.0.1", "port": port, "table": n,
                        "event": self.event, "password_file": str(d / "password"),
                        "wait_for_pairing": self.tournament is not None},
                "log": {"level": "warning"},
            }))
        (self.folder / "hub.password").write_text(self.broker.passwords["hub"] + "\n")
        hub: dict[str, dict[str, Any]] = {
            "event": {"slug": self.event, "name": "Simulated hall", "tables": self.n},
            "broker": {"host": "127.0.0.1", "port": self.broker.port, "username": "hub",
                       "password_file": str(self.folder / "hub.password")},
            "store": {"path": str(self.folder / "hub.sqlite")},
            # the director lives with the pages: an event always has them
            "web": {"enabled": self.web or self.tournament is not None,
                    "host": "127.0.0.1", "port": 0, "delay": 0.0, "token": self.token},
        }
        if self.tournament is not None:
            hub["tournament"] = {"file": str(self.tournament)}
        (self.folder / "hub.toml").write_text(_toml(hub))

    def _table_web(self, n: int) -> dict[str, Any]:
        """A table where a player disputes or comes late serves its page (for the
        player's press, for the table's arbiter)."""
        if not any(table == n for table, _ in [*self.disputes, *self.late]):
            return {"enabled": False}
        self.page_ports[n] = free_port()
        self.page_tokens[n] = secrets.token_urlsafe(16)
        return {"enabled": True, "host": "127.0.0.1", "port": self.page_ports[n],
                "https": "off", "token": self.page_tokens[n]}

    def table_page(self, n: int) -> str:
        """Table ``n``'s own page (only a table with a dispute or a late player has one)."""
        return f"http://127.0.0.1:{self.page_ports[n]}"

    def _round_log(self, games: list[Any], n: int, k: int,
                   disputes: str | None = None) -> tuple[Any, list[Any]]:
        """Table ``n``'s real game of round ``k`` and its observations. In an event the
        game must end on the board (a WTHOR record may stop early), and both players then
        press their clock button: their signatures of the result (rule 15), but for
        the player who ``disputes`` it (a colour), who presses on the table's page
        instead. A 32–32 board is played like any other: the 伏せ石 recorded for it
        names its winner."""
        from controller.events import EventKind
        from controller.observation import Observation
        from controller.simulator import SimOptions, simulate_game
        from controller.squares import Color

        for step in range(len(games)):
            at = self.seed + n - 1 + k * self.n + step * self.n * self.games
            record = games[at % len(games)]
            sim = simulate_game(record, SimOptions(errors=self.errors,
                                                   seed=self.seed + n + k * self.n + step))
            if self.tournament is None:
                return record, sim.observations
            over = sim.truth[-1] if sim.truth else None
            if over is not None and over.event is EventKind.GAME_OVER:
                end = sim.observations[-1].t
                signs = [Observation(end + 2.0 * (i + 1), press=c)
                         for i, c in enumerate((Color.BLACK, Color.WHITE))
                         if c.value != disputes]
                return record, [*sim.observations, *signs]
        raise KaeshiError(f"no game of {GAMES_FILE} ends on the board")

    # --------------------------------------------------------------- processes
    def start_hub(self) -> None:
        log = open(self.folder / "hub.log", "ab")  # noqa: SIM115 - owned by the process
        self.hub = subprocess.Popen(
            [sys.executable, "-m", "controller.cli", "hub", "--config",
             str(self.folder / "hub.toml"), "--log-level", "warning"],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent,
        )
        log.close()

    def web_url(self) -> str | None:
        """The hub's pages, as its log announced them (None before that, or without)."""
        try:
            text = (self.folder / "hub.log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return None
        for line in reversed(text.splitlines()):
            if line.startswith("hub web: "):
                return line.split()[2].rstrip("/")
        return None

    def hub_starts(self) -> int:
        """How many times the hub's pages came up (each start logs their address)."""
        try:
            text = (self.folder / "hub.log").read_text(encoding="utf-8", errors="replace")
        except OSError:
            return 0
        return sum(1 for line in text.splitlines() if line.startswith("hub web: "))

    def kill_hub(self) -> None:
        if self.hub is not None and self.hub.poll() is None:
            self.hub.send_signal(signal.SIGKILL)
            self.hub.wait()

    def start_tables(self, groups: list[list[int]]) -> None:
        self.groups = groups
        for group in groups:
            self._start_group(group)

    def _start_group(self, group: list[int]) -> None:
        log = open(self.folder / f"tables-{group[0]}.log", "ab")  # noqa: SIM115
        proc = subprocess.Popen(
            [sys.executable, "-m", "controller.hub.sim_worker",
             *(str(self.table_dir(n) / "kaeshi.toml") for n in group)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent,
        )
        log.close()
        for n in group:
            self.workers[n] = proc

    def reboot_table(self, n: int) -> None:
        """Kill the process of table ``n`` (SIGKILL: a power cut) and start it again."""
        proc = self.workers[n]
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        self._start_group(next(g for g in self.groups if n in g))

    def stop(self) -> None:
        procs = {id(p): p for p in self.workers.values()}.values()
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        if self.hub is not None and self.hub.poll() is None:
            self.hub.send_signal(signal.SIGTERM)
            try:
                self.hub.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill_hub()
        if self.proxy is not None:
            self.proxy.close()
        self.broker.stop()

    # ---------------------------------------------------------------- checking
    def journal_events(self, n: int) -> tuple[list[tuple[str, dict[str, Any]]], int, bool]:
        """(game, event) of every published entry of table ``n``, moves, all games over."""
        path = self.table_dir(n) / "journal.sqlite"
        if not path.exists():
            return [], 0, False
        kinds = ",".join(f"'{k}'" for k in PUBLISHED_KINDS)
        with contextlib.closing(sqlite3.connect(path, timeout=10)) as db:
            try:
                rows = db.execute(
                    f"SELECT e.game, e.kind, e.t, e.data FROM entries e JOIN games g "
                    f"ON g.id=e.game WHERE e.kind IN ({kinds}) ORDER BY g.started, e.seq"
                ).fetchall()
                unfinished = db.execute(
                    "SELECT COUNT(*) FROM games WHERE finished IS NULL").fetchone()[0]
                games = db.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                return [], 0, False  # the table is creating its journal just now
        events = [(g, event_payload(k, t, d)) for g, k, t, d in rows]
        moves = sum(1 for _, e in events if e["event"] == "move")
        return events, moves, games >= self.games and unfinished == 0

    def hub_events(self) -> dict[int, list[tuple[str, dict[str, Any]]]]:
        path = self.folder / "hub.sqlite"
        out: dict[int, list[tuple[str, dict[str, Any]]]] = {}
        if not path.exists():
            return out
        with contextlib.closing(sqlite3.connect(path, timeout=10)) as db:
            try:
                # the games the tables announced: a game a table never named (a hostile
                # client with its password) is the arbiter's, not the table's journal's
                rows = db.execute(
                    "SELECT e.tbl, e.game, e.event FROM events e JOIN games g ON "
                    "g.tbl=e.tbl AND g.game=e.game WHERE g.announced=1 "
                    "ORDER BY e.tbl, g.first_seen, e.seq"
                ).fetchall()
            except sqlite3.OperationalError:
                return out  # the hub has not created its store yet
        for tbl, game, event in rows:
            out.setdefault(tbl, []).append((game, json.loads(event)))
        return out

    def compare(self) -> Comparison:
        hub = self.hub_events()
        results = []
        for n in range(1, self.n + 1):
            journal, moves, finished = self.journal_events(n)
            stored = hub.get(n, [])
            results.append(TableResult(n, len(journal), len(stored), moves,
                                       journal == stored, finished))
        return Comparison(results)

    def latency_note(self) -> str:
        """Move -> hub latency over the round (table journal to hub store, one clock)."""
        path = self.folder / "hub.sqlite"
        try:
            with contextlib.closing(sqlite3.connect(path, timeout=10)) as db:
                lat = sorted(r[0] for r in db.execute(
                    "SELECT received - wall FROM events WHERE wall IS NOT NULL "
                    "AND event LIKE '%\"event\":\"move\"%'"))
        except sqlite3.Error:
            lat = []
        if not lat:
            return "move -> hub latency: no moves stored"
        p99 = lat[min(len(lat) - 1, int(len(lat) * 0.99))]
        return (f"move -> hub latency: median {lat[len(lat) // 2] * 1000:.1f} ms, "
                f"p99 {p99 * 1000:.1f} ms over {len(lat)} moves")

    def wait_complete(self, timeout: float, poll: float = 0.5,
                      events_only: bool = False) -> Comparison:
        """Wait until every table has finished its game and the hub holds every event
        (``events_only``: only the latter, the games being counted elsewhere)."""
        deadline = time.monotonic() + timeout
        while True:
            c = self.compare()
            if (c.equal and (c.finished or events_only)) or time.monotonic() > deadline:
                return c
            time.sleep(poll)


def _say(text: str) -> None:
    print(text, flush=True)


def simulate(options: SimulateOptions, say: Callable[[str], None] = _say) -> Summary:
    """Play one round in a simulated hall and compare every table with the hub. With
    ``options.web`` the pages' addresses are said as soon as they are up, the summary
    when the round is over, and the pages stay up until Ctrl-C (or SIGTERM)."""
    with contextlib.ExitStack() as stack:
        folder = options.folder or stack.enter_context(
            tempfile.TemporaryDirectory(prefix="kaeshi-hall-"))
        hall = Hall(folder, options.tables, options.speed, errors=options.errors,
                    seed=options.seed, event=options.event, web=options.web,
                    games=options.games)
        with running(hall, options, options.tables, say) as started:
            comparison = hall.wait_complete(
                timeout=600 + 6000 * options.games / options.speed)
            seconds = time.monotonic() - started
            notes = [hall.latency_note()]
            if options.folder:
                notes.append(f"files in {folder}")
            if not comparison.finished:
                notes.append("not every table finished its games in time")
            summary = Summary(options.tables, seconds, comparison, notes, options.games)
            if options.web:
                show_until_interrupted(summary.text(), say)
        return summary
    raise KaeshiError("unreachable")  # pragma: no cover - ExitStack does not swallow
