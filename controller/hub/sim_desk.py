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
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controller.boardsize import size_of_board_string
from controller.position import Position
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
