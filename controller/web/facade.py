"""What the web server needs from the service, and nothing more.

The service implements :class:`ServiceFacade`; tests implement it over a real arbiter
and clock. A snapshot is a plain JSON-ready dict:

```
{
  "version": 17,                       # bumps on every change (see ChangeNotifier)
  "mode": "home" | "tournament" | "record",
  "state": "playing",                  # the service state (controller.service.states)
  "board": "-----...",                 # 64 chars, observation alphabet: what stands on the board
  "to_move": "black" | "white" | null,
  "counts": {"black": 2, "white": 2},
  "players": {"black": "name", "white": "name"},          # optional
  "clocks": {"black": 1187.2, "white": 1200.0,            # seconds left at snapshot time
             "running": "black" | "white" | null, "paused": false,
             "flag": "black" | "white" | null},
  "moves": [{"n": 1, "player": "black", "square": "f5" | null, "t": 4.2}, ...],
  "events": [event dicts as in the event log, newest last],
  "overlay": {"d3": {"rgb": [r, g, b], "pattern": "steady"}, ...},  # plan_overlay for the view
  "message": "text for the status line",                            # optional
  # arbiter view, and the player view in home mode only:
  "irregularities": [{"player": "black", "kind": "forgotten_flip", "squares": ["e5"]}, ...],
  "position": "-----...",              # the arbiter's idea of the position
  "legal": ["c4", "d3", ...],          # home: the page shows them on request; arbiter: always
  "history": [{"n": 23, "player": "white", "kind": "over_flip", "squares": ["e5"],
               "t": 612.4, "status": "open", "until": null, "text": "...",
               "status_text": "...", "instruction": "..."}, ...],  # whole game, as flags
  "graph": [[2, 2], [4, 1], ...],      # discs (black, white) after each move; as flags
  "result": {"black": 38, "white": 26, "winner": "black", "reason": null} | null,
  "now": 731.0,                        # game time of the snapshot (for "since")
  "kind_names": {"forgotten_flip": "forgotten flip", ...},  # controller.irregularities
  "flow": {"stage": "pointed_out", "text": "Pointed out: ...", "who": "black",
           "press": "black"},      # controller.irregular_flow: the one text of the state
  "heading": {"title": "Club night · Table 3 · Round 2",   # controller.web.heading
              "players": "Ann (black) vs Bob (white)", "tab": "Table: Ann vs Bob · ..."},
}
```

What each audience may see is decided in one place,
:func:`controller.web.disclosure.disclosure`. The service shapes its snapshot for the
view it is asked for, and the web server filters it a second time with :func:`for_view`
(and the record with :func:`record_for_view`), so a facade slip cannot leak to a
player: in ``tournament`` and ``record`` modes the player view carries nothing that
could advise a player (tournament rule 21) — no irregularities, no irregularity events,
no move comments, no expected position, no legal moves, no per-square overlay — until
the game is over. In ``record`` mode the arbiter's view shows no live flags either
(they go to the record only).
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable
from typing import Any, Literal, Protocol

from controller.errors import KaeshiError
from controller.position import Position
from controller.records.model import GameRecord
from controller.squares import Color
from controller.web.disclosure import Disclosure, disclosure

View = Literal["player", "arbiter"]

#: What a player may see outside home mode: an allowlist, so a key a facade adds later
#: stays hidden until someone decides it is harmless.
PLAYER_KEYS = frozenset(
    {
        "version",
        "devices",  # a phone camera's and a clock tablet's health: nothing of the game
        "game",
        "heading",  # the event, table, round and players the header names
        "mode",
        "state",
        "size",
        "board",
        "counts",
        "players",
        "black",
        "white",
        "clocks",
        "moves",
        "last_move",
        "events",
        "message",
        "url",
        "signoff",  # rule 15: the result the players sign, once the game is over
        "late",  # rules 11–12: who is late, and their time
        "result",
        "now",
    }
)
PUBLIC_EVENTS = frozenset({"move", "pass", "game_over"})
#: Events that become public with the flags (once the game is over).
FLAG_EVENTS = frozenset({"irregularity", "corrected", "pointed_out"})
#: A move event's ``flips`` are the discs the rules turn: next to the board they would
#: point at a forgotten flip, so players outside home see only who played where.
PUBLIC_EVENT_KEYS = {"move": ("t", "event", "n", "player", "square"),
                     "pass": ("t", "event", "n", "player")}
MOVE_KEYS = ("n", "player", "square", "t")
#: What an audience without the flags does not get (record mode: not even the arbiter).
LIVE_FLAG_KEYS = ("irregularities", "flags", "overlay", "history", "kind_names", "flow")
#: What a player gets with the flags, once the game is over (never the overlay: advice).
#: The disc-count graph counts the official position, which a forgotten flip shifts.
PLAYER_FLAG_KEYS = frozenset({"irregularities", "flags", "history", "graph", "kind_names",
                              "flow"})


class ActionError(KaeshiError):
    """An arbiter action that cannot be done now; the message tells the arbiter why."""


class ServiceFacade(Protocol):
    def snapshot(self, view: View) -> dict[str, Any]:
        """The current state for ``view``, shaped as in the module doc."""
        ...

    async def wait_change(self, version: int) -> int:
        """Return the current version as soon as it differs from ``version``."""
        ...

    def game_record(self) -> GameRecord:
        """The game so far, with every comment; the server filters it per view."""
        ...

    def pause(self) -> Awaitable[None] | None: ...

    def resume(self) -> Awaitable[None] | None: ...

    def adjust_time(self, color: Color, seconds: float) -> Awaitable[None] | None:
        """Add ``seconds`` (negative: take away) to ``color``'s clock (rule 25)."""
        ...

    def accept_position(self) -> Awaitable[None] | None:
        """Take the board as it stands as the true position (after an arbiter's ruling)."""
        ...

    def late_step(self, action: str, color: Color | None = None) -> Awaitable[None] | None:
        """Rules 11–12 on the arbiter's word: ``late`` (with the absent player's colour),
        ``late_arrived``, ``late_play_on``, ``late_forfeit``."""
        ...

    def dispute_result(self, color: Color) -> Awaitable[None] | None:
        """A player disputes the result the table shows (rule 15): the arbiter decides."""
        ...

    def correct_position(self, board: str) -> Awaitable[None] | None:
        """Set the position to ``board`` (64 chars ``-XO``) with the side to move unchanged."""
        ...

    def record_toss(self, black: str, white: str,
                    draw_win_right: str) -> Awaitable[None] | None:
        """The hall's 伏せ石 (rule 1): colours before the first move, and who holds the
        draw-win right (``black``/``white``)."""
        ...


class ChangeNotifier:
    """A version counter that coroutines can wait on; for facade implementations.

    ``notify()`` may be called from the event loop's thread only (use
    ``loop.call_soon_threadsafe(notifier.notify)`` from others).
    """

    def __init__(self) -> None:
        self.version = 0
        self._event = asyncio.Event()

    def notify(self) -> None:
        self.version += 1
        self._event.set()
        self._event = asyncio.Event()

    async def wait_change(self, version: int) -> int:
        while self.version == version:
            await self._event.wait()
        return self.version


def disc_graph(after: dict[int, Position], moves: int) -> list[list[int]]:
    """Discs (black, white) on the official board after each move, from the start."""
    out: list[list[int]] = []
    last = after.get(0)
    for i in range(moves + 1):
        last = after.get(i, last)
        if last is not None:
            out.append(list(last.counts()))
    return out


def result_of(events: list[dict[str, Any]], over: Any = None) -> dict[str, Any] | None:
    """The game's result from its ``game_over`` event (``over``: one the clock decided)."""
    found = over.to_dict() if over is not None else next(
        (e for e in reversed(events) if e.get("event") == "game_over"), None)
    if found is None:
        return None
    return {k: found.get(k) for k in ("black", "white", "winner", "reason", "loser",
                                      "decided_by")}


def _public_moves(moves: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # a move's comment carries the arbiter's notes on it (irregularities)
    return [{k: m[k] for k in MOVE_KEYS if k in m} for m in moves]


def _public_events(events: list[dict[str, Any]], flags: bool = False) -> list[dict[str, Any]]:
    out = []
    for e in events:
        kind = e.get("event")
        if flags and kind in PUBLIC_EVENTS | FLAG_EVENTS:
            out.append(e)
        elif kind in PUBLIC_EVENTS:
            keys = PUBLIC_EVENT_KEYS.get(kind)
            out.append(e if keys is None else {k: e[k] for k in keys if k in e})
    return out


def disclosure_of(snapshot: dict[str, Any], view: View) -> Disclosure:
    """What ``view`` may see of ``snapshot``: its mode, and whether its game is over."""
    return disclosure(snapshot.get("mode"), view, snapshot.get("state") == "game_over")


def _without_advice(snapshot: dict[str, Any], flags: bool) -> dict[str, Any]:
    """The allowlisted, neutral parts.

    ``to_move`` comes from the running clock rather than the rules engine: the
    engine's side to move would tell a player that they have no legal move and must
    pass. Likewise ``counts`` are counted on the board as it stands: the engine's
    counts would differ after a forgotten flip and give it away.
    """
    allowed = PLAYER_KEYS | PLAYER_FLAG_KEYS if flags else PLAYER_KEYS
    safe = {k: v for k, v in snapshot.items() if k in allowed}
    clocks = snapshot.get("clocks") or {}
    safe["to_move"] = clocks.get("running")
    board = snapshot.get("board")
    if isinstance(board, str):  # counts of what stands there, not of the rules' position
        safe["counts"] = {
            "black": sum(board.count(c) for c in "Xx"),
            "white": sum(board.count(c) for c in "Oo"),
        }
    return safe


def for_view(snapshot: dict[str, Any], view: View) -> dict[str, Any]:
    """What ``view`` may see of the facade's ``snapshot``: every page, API answer, event
    stream message and terminal frame goes through here."""
    d = disclosure_of(snapshot, view)
    if d.advice and d.flags:
        return snapshot
    if d.advice:  # the arbiter in record mode while the game runs
        safe = {k: v for k, v in snapshot.items() if k not in LIVE_FLAG_KEYS}
    else:
        safe = _without_advice(snapshot, d.flags)
    safe["events"] = _public_events(snapshot.get("events", []), d.flags)
    if not d.flags:
        safe["moves"] = _public_moves(snapshot.get("moves", []))
    return safe


def player_safe(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The snapshot a player (or spectator) may see."""
    return for_view(snapshot, "player")


def arbiter_safe(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The arbiter's snapshot: everything, except live flags in ``record`` mode."""
    return for_view(snapshot, "arbiter")


def record_for_view(record: GameRecord, snapshot: dict[str, Any], view: View) -> GameRecord:
    """The record ``view`` may download while the game is as ``snapshot`` says.

    The arbiter's notes (irregularities on the moves, rulings on the game) stay out
    until the view may see flags; the moves, names and clock times are public anyway.
    """
    if disclosure_of(snapshot, view).flags:
        return record
    return dataclasses.replace(
        record,
        # a board that stood after an unnoticed fault says there was one: kept back too
        moves=[dataclasses.replace(m, comment="", stands=None) for m in record.moves],
        comments=[],
    )
