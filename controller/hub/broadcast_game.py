"""One game as a spectator follows it, built from what its table says happened.

The table's arbiter is the authority: every event message carries the official board
after its step and who moves next, and that is what a spectator is shown, step by step.
Nothing here re-judges the game under the rules, because the arbiter may have accepted
what the rules refuse (a pass with a legal move left, a disc left shifted, a forgotten
flip nobody pointed out, a board the arbiter set by hand); a broadcast that re-derived
the game would stop at the first of them. Only an event from a table that sends no
position is placed under the rules, and there too a move the rules refuse just puts
the disc down.

What a game carries for the pages (see the hub documentation for the fields): the
official board after each step, the last move, disc counts, a numbered move list (an
illegal pass and a board changed without a move are marked as such), the clocks, the
side to move and the result.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol

from controller.boardsize import SIZES, STANDARD, BoardSizeError, size_of_board_string
from controller.hall_protocol.checks import patterns
from controller.position import IllegalMoveError, Position
from controller.squares import BoardStringError, Color, parse_square

#: Events a spectator may see (after the delay). Everything else is the arbiter's.
#: A ``resync`` (the board was reached by legal play, out of the usual turn order, and
#: adopted) is no fault: its moves are the game's, so a spectator gets them, not its squares.
PUBLIC_EVENTS = frozenset({"move", "pass", "resync", "game_over", "clock"})
#: Arbiter's events a replay reads without passing them on: an illegal pass is marked
#: on the pass everybody saw, and a correction tells a board put right by the players
#: from one set by the arbiter. Neither their squares nor any other field is shown.
MARKING_EVENTS = frozenset({"irregularity", "corrected"})
#: The fields of each public event that are passed on; anything else is dropped.
_PUBLIC_FIELDS: dict[str, tuple[str, ...]] = {
    "move": ("t", "player", "square"),
    "pass": ("t", "player"),
    "resync": ("t", "moves", "to_move"),
    "game_over": ("t", "black", "white", "winner", "reason", "loser"),
    "clock": ("t", "black", "white", "black_ms", "white_ms", "running", "paused"),
}

START = Position.start().board_string()


class StoredEventLike(Protocol):
    """What broadcast needs of a stored event (the hub store's ``StoredEvent``)."""

    @property
    def table(self) -> int: ...
    @property
    def game(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def received(self) -> float: ...
    @property
    def event(self) -> Mapping[str, Any]: ...
    # optional: ``board`` / ``to_move``, the official position after the event (read
    # with getattr, so a plain stored event without them is placed under the rules)


def public_event(event: Mapping[str, Any]) -> dict[str, Any] | None:
    """The spectator's copy of ``event`` (allow-listed fields), or None if it is not public."""
    kind = event.get("event")
    if kind not in PUBLIC_EVENTS:
        return None
    fields = _PUBLIC_FIELDS[str(kind)]
    out = {"event": kind}
    out.update({k: event[k] for k in fields if k in event})
    if kind == "clock" and isinstance(event.get("clock"), Mapping):
        out.update({k: v for k, v in event["clock"].items() if k in fields})
    return out


def discs(board: str) -> dict[str, int]:
    """Disc counts of a board string (shifted discs count as discs)."""
    return {"black": board.count("X") + board.count("x"),
            "white": board.count("O") + board.count("o")}


class Replay:
    """One game, fed its stored events in seq order; it can be fed more as they pass the
    delay, so a page rebuilt every second reads only what is new. ``feed`` never raises
    on what a table sent: a step it cannot place is shown as the table's board says."""

    def __init__(self, size: int = STANDARD) -> None:
        self.fed = 0  # events fed so far (public or not)
        self.pos = Position.start(size)
        self.to_move: str | None = "black"
        self.moves: list[dict[str, Any]] = []
        #: The official board after each entry of ``moves`` (kept apart: the hall's
        #: overview sends the move list without them, one table's page with them).
        self.boards: list[str] = []
        self.plies = 0  # moves and passes so far (the list also holds board changes)
        self.result: dict[str, Any] | None = None
        self.ended: float | None = None  # hub time of the end of the game
        self.clock: tuple[dict[str, Any], float] | None = None
        self._illegal: set[str] = set()  # illegal passes flagged before their pass came
        self._corrected_t: object = None  # ``t`` of the last correction by the players
        self.board = self.pos.board_string()  # ``pos`` as a string (kept, not recomputed)

    def _resize(self, board: str) -> None:
        """The first official board is of another size than assumed (the hub keeps no
        size per event: the board's length says it): start over on that board."""
        if self.plies or self.moves or len(board) == len(self.board):
            return
        try:
            self.pos = Position.start(size_of_board_string(board))
        except BoardSizeError:
            return
        self.board = self.pos.board_string()

    def feed(self, stored: StoredEventLike) -> None:
        self.fed += 1
        raw = stored.event
        kind = raw.get("event")
        if kind in MARKING_EVENTS:
            self._mark(raw)
            return
        ev = public_event(raw)
        if ev is None:
            return
        official = _official(stored)
        if official is not None:
            self._resize(official[0])
            if len(official[0]) != len(self.board):
                official = None  # a board of another game's size: not this game's position
        if kind in ("move", "pass"):
            self._ply(ev, official)
        elif kind == "resync":
            self._resync(ev, official)
        else:
            if official is not None and official[0] != self.board:
                # the board changed without a move: put right by the players, or set by
                # the arbiter (no correction in this step)
                self._entry("board", None, None, official[0],
                            ruling=raw.get("t") != self._corrected_t)
            if kind == "game_over":
                self.result = {k: ev[k] for k in ("black", "white", "winner", "reason")
                               if k in ev}
                self.to_move = None
                self.ended = stored.received
            elif kind == "clock":
                self.clock = (ev, stored.received)
        if official is not None:
            self._take(official)

    # ----------------------------------------------------------------- steps
    def _mark(self, raw: Mapping[str, Any]) -> None:
        """An illegal pass marks its pass; its correction (the player then played
        instead) marks it withdrawn. Other faults only matter for what follows."""
        kind = raw.get("kind")
        if raw.get("event") == "corrected":
            self._corrected_t = raw.get("t")
            if kind == "illegal_pass":
                for entry in reversed(self.moves):
                    if entry.get("illegal"):
                        entry["withdrawn"] = True
                        break
            return
        if kind != "illegal_pass":
            return
        player = str(raw.get("player"))
        last = next((e for e in reversed(self.moves) if e["kind"] != "board"), None)
        if last is not None and last["kind"] == "pass" and last["player"] == player \
                and not last.get("illegal"):
            last["illegal"] = True
        else:
            self._illegal.add(player)

    def _ply(self, ev: Mapping[str, Any], official: tuple[str, str | None] | None) -> None:
        player = _color(ev.get("player"))
        if player is None:
            return
        if ev["event"] == "move":
            square = str(ev.get("square", ""))
            if official is None:  # placed under the rules; the disc goes down regardless
                self._set(_play(self.pos, player, square), player.opponent)
            entry = self._entry("move", player.value, square,
                                official[0] if official is not None else self.board)
        else:
            if official is None:  # the turn goes over, legal or not: the table said so
                self._set(self.pos.with_to_move(player.opponent), player.opponent)
            entry = self._entry("pass", player.value, None,
                                official[0] if official is not None else self.board)
            if player.value in self._illegal:
                self._illegal.discard(player.value)
                entry["illegal"] = True

    def _resync(self, ev: Mapping[str, Any], official: tuple[str, str | None] | None) -> None:
        """The moves that explain an adopted board (``"white f4"``), each as a move."""
        moves = ev.get("moves")
        for text in moves if isinstance(moves, list) else []:
            name, _, square = str(text).partition(" ")
            player = _color(name)
            if player is None or not square:
                continue
            self._set(_play(self.pos, player, square), player.opponent)
            self._entry("move", player.value, square, self.board)
        after = _color(ev.get("to_move"))
        if after is not None and official is None:
            self._set(self.pos.with_to_move(after), after)

    def _entry(self, kind: str, player: str | None, square: str | None, board: str,
               **marks: bool) -> dict[str, Any]:
        if kind != "board":
            self.plies += 1
        entry: dict[str, Any] = {"n": self.plies if kind != "board" else None,
                                 "kind": kind, "player": player, "square": square,
                                 **discs(board)}
        entry.update({k: v for k, v in marks.items() if v or k == "ruling"})
        self.moves.append(entry)
        self.boards.append(board)
        return entry

    def _take(self, official: tuple[str, str | None]) -> None:
        """Make ``official`` (board, side to move or None at the end) the position."""
        board, to_move = official
        side = _color(to_move) if to_move is not None else None
        if board == self.board and (side or self.pos.to_move) is self.pos.to_move:
            pos = self.pos  # most steps: the board the last one left
        else:
            try:
                pos = Position.from_board_string(board, side or self.pos.to_move, self.pos.size)
            except BoardStringError:
                return
        self.pos, self.board = pos, board
        if self.result is None:
            self.to_move = None if side is None else side.value

    def _set(self, pos: Position, to_move: Color) -> None:
        """A position placed by the replay itself (no official one was sent)."""
        self.pos, self.board = pos, pos.board_string()
        if self.result is None:
            self.to_move = to_move.value

    # ------------------------------------------------------------------ view
    def last(self) -> dict[str, Any] | None:
        """The last move or pass (board changes are not moves)."""
        entry = next((e for e in reversed(self.moves) if e["kind"] != "board"), None)
        if entry is None:
            return None
        return {k: entry[k] for k in ("n", "kind", "player", "square")
                } | ({"illegal": True} if entry.get("illegal") else {})

    def fields(self) -> dict[str, Any]:
        """What a page shows of the game (clock apart: it depends on the time asked)."""
        return {"size": self.pos.size, "board": self.board, "to_move": self.to_move,
                "last": self.last(),
                "discs": discs(self.board), "moves": with_boards(self.moves, self.boards),
                "result": None if self.result is None else dict(self.result)}

    def clock_at(self) -> dict[str, Any] | None:
        """The clock reading as it was taken (a stopped clock: as it stood at the end),
        with ``at`` on the hub's time line: a page counts down from there, and the
        snapshot does not change every second while nothing happens."""
        if self.clock is None:
            return None
        ev, taken = self.clock
        until = taken if self.ended is None else max(taken, self.ended)
        return _clock_at(ev, taken, until, running=self.result is None)


def with_boards(moves: list[dict[str, Any]], boards: list[str]) -> list[dict[str, Any]]:
    """Move entries with the official board after each."""
    return [{**m, "board": b} for m, b in zip(moves, boards, strict=True)]


def _official(stored: StoredEventLike) -> tuple[str, str | None] | None:
    """The official position a message carries, if it carries a readable one."""
    board = getattr(stored, "board", None)
    if not isinstance(board, str) or not any(patterns(n)[3].match(board) for n in SIZES):
        return None
    to_move = getattr(stored, "to_move", None)
    return board, to_move if to_move in ("black", "white") else None


def _color(value: object) -> Color | None:
    try:
        return Color.parse(str(value))
    except BoardStringError:
        return None


def _play(pos: Position, player: Color, square: str) -> Position:
    """Play ``square`` under the rules; a move the rebuilt position cannot hold just
    puts the disc down, so the feed never freezes."""
    try:
        if pos.to_move is not player and not pos.legal_moves():
            pos = pos.pass_turn()
        if pos.to_move is player:
            return pos.play(square)
    except (IllegalMoveError, BoardStringError, ValueError):
        pass
    try:
        index = parse_square(square, pos.size)
    except BoardStringError:
        return pos
    cells = list(pos.board_string())
    cells[index] = player.symbol
    try:
        return Position.from_board_string("".join(cells), player.opponent, pos.size)
    except BoardStringError:
        return pos


def _clock_at(ev: Mapping[str, Any], received: float, until: float,
              running: bool) -> dict[str, Any]:
    """The clock as it read at ``until`` (hub time, given as ``at``): the running side lost
    the time since ``received``; ``running`` False: it has stopped (it counted until then)."""
    black = _ms(ev.get("black_ms"), ev.get("black"))
    white = _ms(ev.get("white_ms"), ev.get("white"))
    side = ev.get("running") if not ev.get("paused") else None
    spent = max(0.0, (until - received) * 1000.0)
    if side == "black" and black is not None:
        black = max(0, int(black - spent))
    elif side == "white" and white is not None:
        white = max(0, int(white - spent))
    return {"black_ms": black, "white_ms": white,
            "running": side if running and side in ("black", "white") else None,
            "at": until}


def _ms(ms: object, seconds: object) -> int | None:
    """Milliseconds from ``*_ms`` or, as clock events carry them, from seconds."""
    for value, scale in ((ms, 1.0), (seconds, 1000.0)):
        if not isinstance(value, bool) and isinstance(value, int | float):
            return int(value * scale)
    return None
