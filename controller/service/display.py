"""The terminal view: the page's header, the board in colour, both clocks, the state,
flags and last events.

It draws from the same snapshot the web page gets, so what the terminal shows is
what the journal holds. On a terminal it redraws in place; into a pipe or a file
it prints one line per change instead, so logs stay readable.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

from controller.boardsize import STANDARD, board_size
from controller.irregularities import describe, name

_RESET = "\x1b[0m"
_BOARD_BG = "\x1b[42m"  # green felt
_FLAG_BG = "\x1b[41m"  # red: a square named by an open irregularity
_LAST_BG = "\x1b[43m"  # yellow: the last move
_BLACK = "\x1b[30m●"
_WHITE = "\x1b[97m●"
_BOLD = "\x1b[1m"
_DIM = "\x1b[2m"


def format_clock(seconds: float | None) -> str:
    """``mm:ss``; a fallen flag shows as ``-mm:ss``."""
    if seconds is None:
        return "--:--"
    sign = "-" if seconds < 0 else ""
    whole = int(abs(seconds))
    minutes, secs = divmod(whole, 60)
    return f"{sign}{minutes:02d}:{secs:02d}"


def describe_event(e: dict[str, Any]) -> str:
    kind = e.get("event")
    if isinstance(e.get("n"), int) and kind in ("move", "pass"):  # its number in the game
        return f"{e['n']}. " + describe_event({k: v for k, v in e.items() if k != "n"})
    if kind == "move":
        flips = ", ".join(e.get("flips", []))
        return f"{e['player']} {e['square']} (flips {flips or 'none'})"
    if kind == "pass":
        return f"{e['player']} passes"
    if kind == "irregularity":
        squares = list(e.get("squares", []))
        return (f"FLAG {name(str(e['kind']))} by {e['player']}: {', '.join(squares)} — "
                f"{describe(str(e['kind']), str(e['player']), squares)}")
    if kind == "pointed_out":
        return (f"pointed out: {e['player']} must put {', '.join(e.get('squares', []))} "
                "right")
    if kind == "corrected":
        return f"corrected {name(str(e['kind']))}: {', '.join(e.get('squares', []))}"
    if kind == "game_over":
        note = f" ({e['reason']})" if e.get("reason") else ""
        return f"game over {e['black']}-{e['white']}, winner {e['winner']}{note}"
    if kind == "resync":
        return f"board adopted ({', '.join(e.get('moves', []))}): {', '.join(e['squares'])}"
    if kind == "state":
        return f"state: {e.get('state', '').replace('_', ' ')} {e.get('why', '')}".rstrip()
    return str(e)


def heading_lines(snapshot: dict[str, Any]) -> tuple[str, str]:
    """The page's header (``controller/web/heading.py``, the snapshot's ``heading``):
    the event, table and round, then the players; a snapshot without one, its names."""
    given = snapshot.get("heading")
    if isinstance(given, dict) and given.get("title") and given.get("players"):
        return f"Kaeshi — {given['title']}", str(given["players"])
    black, white = snapshot.get("black") or "Black", snapshot.get("white") or "White"
    return "Kaeshi", f"{black} (black) vs {white} (white)"


def render(snapshot: dict[str, Any], colour: bool = True) -> list[str]:
    """The lines of the view for one snapshot."""
    size = board_size(snapshot.get("size") or STANDARD)
    n = size.n
    board = snapshot.get("board") or "-" * size.squares
    flagged = {sq for f in snapshot.get("flags", []) for sq in f.get("squares", [])}
    last = snapshot.get("last_move")
    title, players = heading_lines(snapshot)
    lines = [f"{_BOLD}{title}{_RESET}" if colour else title, players]
    lines.append("    " + " ".join(size.columns))
    for row in range(n):
        cells = []
        for col in range(n):
            sq = f"{size.columns[col]}{row + 1}"
            ch = board[row * n + col]
            if colour:
                bg = _FLAG_BG if sq in flagged else _LAST_BG if sq == last else _BOARD_BG
                disc = _BLACK if ch in "Xx" else _WHITE if ch in "Oo" else "\x1b[32m·"
                cells.append(f"{bg}{disc} {_RESET}")
            else:
                mark = "!" if sq in flagged else " "
                cells.append({"X": "X", "O": "O", "x": "x", "o": "o"}.get(ch, ".") + mark)
        lines.append(f"{row + 1:>2}  " + ("".join(cells) if colour else "".join(cells)))
    clocks = snapshot.get("clocks") or {}
    over = snapshot.get("state") == "game_over"
    running = None if over else clocks.get("running")
    parts = []
    for side in ("black", "white"):
        text = f"{side} {format_clock(clocks.get(side))}"
        if running == side:
            text = f"▶ {text}"
            if colour:
                text = f"{_BOLD}{text}{_RESET}"
        else:
            text = f"  {text}"
        parts.append(text)
    if over:
        parts.append("(stopped)")
    elif clocks.get("paused"):
        parts.append("(paused)")
    if clocks.get("flag"):
        parts.append(f"{clocks['flag']}'s flag has fallen")
    counts = snapshot.get("counts") or {}
    lines.append("")
    lines.append("   ".join(parts) + f"    discs {counts.get('black', 0)}-{counts.get('white', 0)}")
    state = str(snapshot.get("state", "")).replace("_", " ")
    to_move = snapshot.get("to_move")
    lines.append(
        f"state: {state}   move {len(snapshot.get('moves', [])) + 1}"
        + (f", {to_move} to play" if to_move and state == "playing" else "")
    )
    flags = snapshot.get("flags", [])
    for f in flags:
        text = (f"FLAG {name(str(f['kind']))} by {f['player']}: "
                f"{', '.join(f.get('squares', []))}"
                + (f" (move {f['n']})" if isinstance(f.get("n"), int) else ""))
        lines.append(f"{_FLAG_BG}{text}{_RESET}" if colour else text)
    said = (snapshot.get("flow") or {}).get("todo")
    if said:  # the one instruction of the flow's state, as the page shows it
        lines.append(f"{_BOLD}{said}{_RESET}" if colour else said)
    elif not flags:
        lines.append("no open flags")
    lines.append("last events:")
    for e in snapshot.get("events", [])[-6:]:
        text = f"  {e.get('t', 0):8.1f}s  {describe_event(e)}"
        lines.append(f"{_DIM}{text}{_RESET}" if colour and e.get("event") == "move" else text)
    if snapshot.get("url"):
        lines.append(f"web page: {snapshot['url']}")
    return lines


class TerminalDisplay:
    """Redraws in place on a terminal; prints new events line by line elsewhere."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out or sys.stdout
        self.live = bool(getattr(self.out, "isatty", lambda: False)())
        self._shown_events = 0
        self._last_state: str | None = None
        self._last_heading: tuple[str, str] | None = None
        self._height = 0

    def update(self, snapshot: dict[str, Any]) -> None:
        if self.live:
            lines = render(snapshot, colour=True)
            up = f"\x1b[{self._height}F" if self._height else ""
            self.out.write(up + "".join(f"\x1b[2K{line}\n" for line in lines))
            self._height = len(lines)
        else:
            head = heading_lines(snapshot)
            if head != self._last_heading:  # the first game, and each new game or round
                self.out.write(f"{head[0]}: {head[1]}\n")
                self._last_heading = head
            events = snapshot.get("events_total", 0)
            recent = snapshot.get("events", [])
            new = events - self._shown_events
            for e in recent[max(0, len(recent) - new):] if new > 0 else []:
                self.out.write(f"{e.get('t', 0):8.1f}s  {describe_event(e)}\n")
            self._shown_events = events
            state = snapshot.get("state")
            if state != self._last_state:
                self.out.write(f"state: {str(state).replace('_', ' ')}\n")
                self._last_state = state
        self.out.flush()

    def message(self, text: str) -> None:
        self.out.write(text + "\n")
        if self.live:
            self._height = 0
        self.out.flush()


def at_a_terminal() -> bool:
    """Someone is watching: standard input and output are a terminal, outside CI (where
    a ``CI`` variable is set). A replay then keeps its game-over page up until Ctrl-C,
    where a pipe or a job must end by itself."""
    return sys.stdin.isatty() and sys.stdout.isatty() and not os.environ.get("CI")
