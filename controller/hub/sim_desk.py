"""The arbiter's desk of a simulated hall day, and the players who dispute a result.

A dispute starts where it does in a hall: at the table. The player presses "… disputes"
on the table's own page (``POST /api/dispute``, what a player's phone or the table's
screen sends); the table journals it, its score card turns ``disputed`` (rule 15) and
its state goes to the hub over the table's MQTT link, like any other state. Nothing
here writes to the hub's store or the event file: the dispute reaches the hub only
through the table.

The arbiter then rules on it from the dashboard, as rules 15 and 19 leave it to them:
they recount the board the table shows (the empty squares to the winner) and either
let the table's count stand or confirm their recount (``POST /api/table/N/confirm``
with the counts). Every other result that waits for the arbiter (a flag the table
raised, a table that does not ask its players) is confirmed as the table shows it.

A late arrival (rules 11–12) is marked at the table too, by the table's arbiter on the
table's page (``POST /api/arbiter/late``, then ``late_arrived`` and ``late_play_on``):
the present player's clock press then runs the absent player's time, the clock stops on
arrival, and the late player plays on what is left. The table's state carries each step
to the hub, whose result desk hands it to the director.
"""

from __future__ import annotations

import dataclasses
import json
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controller.boardsize import size_of_board_string
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color
from controller.tournament import Tournament


class Pages(Protocol):
    def call(self, path: str, body: dict[str, Any] | None = None) -> Any: ...


@dataclass(frozen=True)
class PlannedDispute:
    """Who disputes which game: the player of ``colour`` at ``table`` in ``round``
    presses "dispute" on the table's page instead of signing with their clock."""

    round: int
    table: int
    colour: str  # "black" | "white"


def plan_disputes(t: Tournament, wanted: bool) -> list[PlannedDispute]:
    """Round 1's first table: white disputes; with three tables or more, the second
    table's black too (so both colours' press is played). None when not ``wanted``."""
    rnd = t.current
    if not wanted or rnd is None:
        return []
    tables = sorted(g.table for g in rnd.games if g.table is not None)
    plan = [PlannedDispute(rnd.number, tables[0], "white")] if tables else []
    if len(tables) >= 3:
        plan.append(PlannedDispute(rnd.number, tables[1], "black"))
    return plan


#: Table seconds of a late player's game: the present player presses on the arbiter's
#: word at MARK_PRESS; the late player comes ABSENT seconds later (as near as the
#: simulation's polling gets it); the game itself starts at GAME_START, with room.
MARK_PRESS, ABSENT, GAME_START = 60.0, 45.0, 225.0


def late_log(observations: list[Observation], colour: str) -> list[Observation]:
    """A game's observations with the ``colour`` player late: the start position, the
    present player's press that runs the late player's time, then the game as played,
    from GAME_START on."""
    if not observations or observations[0].board is None:
        raise ValueError("a game's observations start with the board")
    present = Color(colour).opponent
    return [observations[0], Observation(MARK_PRESS, press=present),
            *(dataclasses.replace(o, t=o.t + GAME_START) for o in observations)]


def plan_late(t: Tournament, wanted: bool) -> list[PlannedDispute]:
    """Round 1's third table (with four tables or more: the disputes have the first
    two, the arbiter's desk marks the last one late): its white player comes late and
    is marked so at the table."""
    rnd = t.current
    if not wanted or rnd is None:
        return []
    tables = sorted(g.table for g in rnd.games if g.table is not None)
    return [PlannedDispute(rnd.number, tables[2], "white")] if len(tables) >= 4 else []


class LateAtTable:
    """The table's arbiter marking a late player on the table's page, each step as soon
    as the table's state allows it, on a thread of its own (a fast replay leaves a few
    seconds for each). ``log`` says what happened, for the summary."""

    def __init__(self, plan: list[PlannedDispute], table_page: Callable[[int], str],
                 token: Callable[[int], str], speed: float,
                 names: dict[tuple[int, int], tuple[str | None, str | None]],
                 say: Callable[[str], None]) -> None:
        self.plan = plan
        self.table_page = table_page
        self.token = token
        self.speed = speed
        self.names = names  # (round, table) -> (black, white) as sent to the table
        self.say = say
        self.log: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="late-at-table", daemon=True)

    def __enter__(self) -> LateAtTable:
        if self.plan:
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)

    def _state(self, table: int) -> dict[str, Any] | None:
        try:
            got: dict[str, Any] = _get(self.table_page(table) + "/api/state")
            return got
        except (OSError, ValueError):
            return None

    def _act(self, table: int, action: str, body: dict[str, Any]) -> None:
        req = urllib.request.Request(
            f"{self.table_page(table)}/api/arbiter/{action}", data=json.dumps(body).encode(),
            method="POST", headers={"Content-Type": "application/json",
                                    "Authorization": f"Bearer {self.token(table)}"})
        with urllib.request.urlopen(req, timeout=10) as r:
            r.read()

    def _wait(self, table: int, ok: Callable[[dict[str, Any]], bool]) -> dict[str, Any] | None:
        while not self._stop.is_set():
            snap = self._state(table)
            if snap is not None and ok(snap):
                return snap
            self._stop.wait(0.05)
        return None

    def _run(self) -> None:
        for p in self.plan:
            try:
                self._one(p)
            except (OSError, ValueError) as exc:  # HTTPError included: said, not raised
                self.say(f"round {p.round} table {p.table}: the late arrival could not be "
                         f"marked: {exc}")

    def _one(self, p: PlannedDispute) -> None:
        def paired(snap: dict[str, Any]) -> bool:
            names = self.names.get((p.round, p.table))
            return names is not None and (snap.get("black"), snap.get("white")) == names

        if self._wait(p.table, paired) is None:
            return
        self._act(p.table, "late", {"color": p.colour})
        if self._wait(p.table, lambda s: (s.get("late") or {}).get("state")
                      == "clock_running") is None:
            return
        self._stop.wait(ABSENT / self.speed)  # the late player is on the way
        self._act(p.table, "late_arrived", {})
        self._act(p.table, "late_play_on", {})
        late = (self._state(p.table) or {}).get("late") or {}
        left = int(float(late.get("remaining", 0.0)))
        text = (f"round {p.round} table {p.table}: {late.get('late', p.colour)} came late, "
                f"was marked so at the table and played on {left // 60}:{left % 60:02d}")
        self.log.append(text)
        self.say(text)


def _post(url: str, body: dict[str, Any], timeout: float = 10.0) -> Any:
    """A JSON POST as a player's page sends it (no token: a dispute needs none)."""
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return json.loads(r.read())


def _get(url: str, timeout: float = 10.0) -> Any:
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def recount(board: str, on_time: bool) -> tuple[int, int]:
    """The score the arbiter counts on the final board: the empty squares go to the
    winner of a game that ended on the board, and a game the clock ended counts the
    discs as they stand (as the table scores them)."""
    position = Position.from_board_string(board, size=size_of_board_string(board))
    return position.counts() if on_time else position.final_score()


class Desk:
    """The players' disputes at their tables and the arbiter's rulings on the dashboard.

    ``table_page(n)``: the address of table ``n``'s own page (a planned dispute's table
    serves one).
    """

    def __init__(self, pages: Pages, plan: list[PlannedDispute],
                 table_page: Callable[[int], str],
                 say: Callable[[str], None]) -> None:
        self.pages = pages
        self.plan = list(plan)
        self.table_page = table_page
        self.say = say
        self.pressed: dict[tuple[int, int], PlannedDispute] = {}  # (round, table)
        self.rulings: list[str] = []
        self.confirmed: list[str] = []  # other results the arbiter confirmed
        self.refused: set[tuple[int, str]] = set()

    # ------------------------------------------------------------ at the tables
    def press(self, t: Tournament) -> None:
        """Each planned dispute whose game has ended at its table: the player presses
        "dispute" on the table's page (once the table shows the result to sign)."""
        for d in self.plan:
            key = (d.round, d.table)
            if key in self.pressed or d.round > len(t.rounds):
                continue
            game = t.rounds[d.round - 1].table(d.table)
            try:
                snap = _get(self.table_page(d.table) + "/api/state")
            except (OSError, ValueError):
                continue  # the table's page is not up yet
            card = snap.get("signoff")
            if card is None or (snap.get("black"), snap.get("white")) != (game.black, game.white):
                continue  # the game is not over yet (or the table is on another one)
            self.pressed[key] = d
            try:
                _post(self.table_page(d.table) + "/api/dispute", {"color": d.colour})
            except urllib.error.HTTPError as exc:
                why = json.loads(exc.read() or b"{}").get("error", exc.reason)
                self.say(f"round {d.round} table {d.table}: the dispute was refused: {why}")
                continue
            self.say(f"round {d.round} table {d.table}: {d.colour} disputes "
                     f"{card['black']}-{card['white']} on the table's page")

    # ------------------------------------------------------------ at the desk
    def rule(self) -> None:
        """Every result the dashboard says waits for the arbiter: a disputed one ruled
        on by a recount of the table's board, any other confirmed as the table shows it.
        One the director refuses is said once and left standing."""
        for c in self.pages.call("/api/dashboard")["tables"]:
            key = (c["table"], str(c.get("game")))
            if not c.get("awaiting_confirmation") or key in self.refused:
                continue
            shown = c.get("result") or {}
            body: dict[str, Any] = {"game": c["game"]}
            disputed = c.get("signoff") == "disputed"
            if disputed:
                counted = recount(c["board"], shown.get("reason") not in (None, "normal"))
                table_count = (shown.get("black"), shown.get("white"))
                if counted != table_count:
                    body["black"], body["white"] = counted
            try:
                r = self.pages.call(f"/api/table/{c['table']}/confirm", body)["result"]
            except urllib.error.HTTPError as exc:
                self.refused.add(key)
                why = json.loads(exc.read() or b"{}").get("error", exc.reason)
                self.say(f"table {c['table']}: the result cannot be confirmed: {why}")
                continue
            where = f"round {r['round']} table {r['table']}"
            if not disputed:
                self.confirmed.append(f"{where}: {r['black']}-{r['white']} "
                                      f"({c['attention']['detail'] or c['attention']['reason']})")
                continue
            if "black" in body:
                ruling = (f"{where}: dispute upheld, the recount {r['black']}-{r['white']} "
                          f"replaces the table's {shown.get('black')}-{shown.get('white')}")
            else:
                ruling = (f"{where}: dispute rejected, the recount agrees: the table's "
                          f"{r['black']}-{r['white']} stands")
            self.rulings.append(ruling)
            self.say(ruling)
