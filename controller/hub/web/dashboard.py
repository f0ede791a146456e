"""The arbiter's dashboard: one card per table, what needs the arbiter first.

An arbiter walking a hall of a hundred tables must not scan them all. The order is
the order of urgency at a real event:

1. an open irregularity — the players wait for a ruling, the exact discs are shown;
2. a clock near zero or fallen — a flag decides the game, and a fallen flag must be
   called (rule 13); the lower clock comes first;
3. a paused, sensor-lost or offline table, or one that refuses its pairing (its board
   is not the event's: the table says so, or its round step does,
   :func:`refused_pairings`) — a game stands still or cannot begin;
4. a result waiting for confirmation — the round cannot be paired before it;
5. the rest, by table number.

Pure: the caller passes the tables and the time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from controller.hall_protocol.protocol import ClockState, TableStatus
from controller.irregular_flow import of_flags
from controller.irregularities import describe, name

IRREGULARITY, CLOCK, STOPPED, RESULT, REST = range(5)
REASONS = {
    IRREGULARITY: "irregularity",
    CLOCK: "clock",
    STOPPED: "stopped",
    RESULT: "result",
    REST: "",
}
#: Service states in which a game stands still.
STOPPED_SERVICES = frozenset({"paused", "sensor_lost"})
#: A clock at or below this many seconds is "near zero" unless the settings say otherwise.
CLOCK_WARNING_SECONDS = 60.0


@dataclass(frozen=True)
class Attention:
    """Why a table needs the arbiter (``rank`` 0 is the most urgent) and its sort key."""

    rank: int
    reason: str
    detail: str
    key: tuple[int, float, int]


def clock_now(clock: ClockState, now: float) -> tuple[int, int]:
    """Both clocks' remaining milliseconds at ``now``: the running side loses the time
    since the reading was taken (the table's wall time; halls keep their clocks in step)."""
    black, white = clock.black_ms, clock.white_ms
    if clock.running is not None and not clock.paused:
        spent = int(max(0.0, now - clock.at) * 1000)
        if clock.running == "black":
            black -= spent
        else:
            white -= spent
    return max(0, black), max(0, white)


def _game_over(status: TableStatus) -> bool:
    s = status.state
    return s is not None and (s.result is not None or s.service == "game_over")


def irregularities(status: TableStatus) -> list[dict[str, Any]]:
    """The open flags the arbiter may see (none in record mode: nothing live there)."""
    s = status.state
    if s is None or s.mode == "record":
        return []
    return list(s.irregularities)


def _flag_line(f: dict[str, Any]) -> str:
    """``white: forgotten flip d4 e4 at move 23``: who, what, where, which move."""
    who = f"{f['player']}: " if f.get("player") in ("black", "white") else ""
    what = name(str(f.get("kind")))
    where = " ".join(f.get("squares", []))
    move = f" at move {f['n']}" if isinstance(f.get("n"), int) else ""
    return f"{who}{what} {where}{move}".strip()


def explained(flags: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The open flags with what a person reads: the sentence, and what happens next."""
    out = []
    # one combined instruction for the move, on its first flag (controller.irregular_flow)
    said = of_flags(flags).step().to_json()["todo"] if flags else ""
    for i, f in enumerate(flags):
        player, kind = str(f.get("player", "")), str(f.get("kind", ""))
        squares = [str(s) for s in f.get("squares", [])]
        out.append({**f, "line": _flag_line(f), "text": describe(kind, player, squares),
                    **({"instruction": said} if i == 0 else {})})
    return out


def discs(board: str) -> dict[str, int]:
    """Discs on the board as it stands (shifted ones counted)."""
    return {"black": sum(board.count(c) for c in "Xx"),
            "white": sum(board.count(c) for c in "Oo")}


def attention(status: TableStatus, now: float, awaiting: bool,
              warning: float = CLOCK_WARNING_SECONDS) -> Attention:
    """How urgently table ``status`` needs the arbiter; ``awaiting``: its result waits."""
    s = status.state
    table = status.table
    flags = irregularities(status)
    if flags:
        detail = "; ".join(_flag_line(f) for f in flags)
        return Attention(IRREGULARITY, REASONS[IRREGULARITY], detail, (IRREGULARITY, 0.0, table))
    if s is not None and s.clock is not None and not _game_over(status):
        black, white = clock_now(s.clock, now)
        low = min(black, white)
        if s.clock.flag is not None or low <= 0:
            who = s.clock.flag or ("black" if black <= 0 else "white")
            return Attention(CLOCK, REASONS[CLOCK], f"{who}'s flag has fallen",
                             (CLOCK, 0.0, table))
        if low <= warning * 1000:
            who = "black" if black <= white else "white"
            return Attention(CLOCK, REASONS[CLOCK], f"{who} has {low / 1000:.0f} s left",
                             (CLOCK, float(low), table))
    if not status.online:
        return Attention(STOPPED, REASONS[STOPPED], "offline", (STOPPED, 0.0, table))
    if s is not None and s.refusal is not None:
        return Attention(STOPPED, REASONS[STOPPED], f"pairing refused: {s.refusal}",
                         (STOPPED, 0.0, table))
    if s is not None and not _game_over(status) and (
        s.service in STOPPED_SERVICES or (s.clock is not None and s.clock.paused)
    ):
        what = s.service.replace("_", " ") if s.service in STOPPED_SERVICES else "paused"
        return Attention(STOPPED, REASONS[STOPPED], what, (STOPPED, 0.0, table))
    if awaiting and s is not None and s.result is not None:
        r = s.result
        return Attention(RESULT, REASONS[RESULT], f"{r.black}-{r.white} to confirm",
                         (RESULT, 0.0, table))
    return Attention(REST, REASONS[REST], "", (REST, 0.0, table))


def card(status: TableStatus, now: float, awaiting: bool,
         warning: float = CLOCK_WARNING_SECONDS, att: Attention | None = None
         ) -> dict[str, Any]:
    """One table at a glance, as the dashboard's JSON carries it."""
    s = status.state
    att = att or attention(status, now, awaiting, warning)
    out: dict[str, Any] = {
        "table": status.table,
        "online": status.online,
        "last_seen": status.last_seen,
        "attention": {"rank": att.rank, "reason": att.reason, "detail": att.detail},
        "awaiting_confirmation": bool(awaiting and s is not None and s.result is not None),
        "irregularities": explained(irregularities(status)),
    }
    if s is None:
        return out
    clock = None
    if s.clock is not None:
        black, white = clock_now(s.clock, now)
        clock = {"black_ms": black, "white_ms": white, "running": s.clock.running,
                 "paused": s.clock.paused, "flag": s.clock.flag}
    out.update({
        "game": s.game,
        "round": s.round,
        "black": s.black,
        "white": s.white,
        "mode": s.mode,
        "service": s.service,
        "size": s.size,
        "refusal": s.refusal,
        "board": s.board,
        "to_move": s.to_move,
        "moves": s.moves,
        "discs": discs(s.board),
        "clock": clock,
        "result": None if s.result is None else {
            "black": s.result.black, "white": s.result.white, "winner": s.result.winner,
            "reason": s.result.reason,
        },
        # rule 15 and rules 11–12 as the table reports them
        "signoff": None if s.signoff is None else s.signoff.status,
        "late": None if s.late is None else {
            "player": s.late.late, "state": s.late.state,
            "remaining_ms": s.late.remaining_ms},
    })
    return out


def refused_pairings(cards: list[dict[str, Any]]) -> None:
    """A card whose round step (``round_step``, :mod:`controller.round_flow`) is a
    refused pairing needs the arbiter as a table that stands still does, even once the
    table, restarted on the same wrong board, no longer says so itself: its attention
    names the next step, and the cards keep the order of urgency."""
    bumped = False
    for c in cards:
        step = c.get("round_step")
        if step and step["stage"] == "refused" and c["attention"]["rank"] > STOPPED:
            c["attention"] = {"rank": STOPPED, "reason": REASONS[STOPPED],
                              "detail": f"pairing refused; {step['who']}: {step['todo']}"}
            bumped = True
    if bumped:  # by rank, then as dashboard() orders within one (the clocks by time left)
        order = {id(c): i for i, c in enumerate(cards)}
        cards.sort(key=lambda c: (c["attention"]["rank"], order[id(c)]
                                  if c["attention"]["rank"] == CLOCK else c["table"]))


def dashboard(statuses: Iterable[TableStatus], now: float,
              awaiting: Callable[[TableStatus], bool],
              warning: float = CLOCK_WARNING_SECONDS) -> list[dict[str, Any]]:
    """Every table's card, most urgent first (see the module's docstring)."""
    keyed = []
    for status in statuses:
        wait = awaiting(status)
        att = attention(status, now, wait, warning)
        keyed.append((att.key, card(status, now, wait, warning, att)))
    keyed.sort(key=lambda kc: kc[0])
    return [c for _, c in keyed]
