"""What a spectator may see: the hall as it stood ``delay`` seconds ago, public events only.

The broadcast delay (15 minutes is common) keeps outside help away from the players, so a
spectator gets nothing received by the hub after ``now - delay``. The arbiter's channel
never reaches a spectator either: irregularities, corrections and the open flags of a
table state are not public. The live table state is never used: it is current, not
delayed, and its board string is the camera's reading, hands and all.

The board shown is the *official* one each public event message carries (the position
after its step, as the table's arbiter holds it): after a fault nobody pointed out, the
game goes on from the board as it stands, which the rules cannot rebuild from the moves
(a forgotten flip stays unturned, and later moves look illegal). That board is in plain
view of the hall, so it tells a spectator nothing the arbiter's channel says. Messages
without it (from an older table) are replayed under the rules from the last board known.

Everything here is pure: the caller passes the stored events and the current time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from controller.position import IllegalMoveError, Position
from controller.squares import BoardStringError, Color, parse_square

#: Events a spectator may see (after the delay). Everything else is the arbiter's.
#: A ``resync`` (the board was reached by legal play, out of the usual turn order, and
#: adopted) is no fault: its moves are the game's, so a spectator gets them, not its squares.
PUBLIC_EVENTS = frozenset({"move", "pass", "resync", "game_over", "clock"})
#: The fields of each public event that are passed on; anything else is dropped.
_PUBLIC_FIELDS: dict[str, tuple[str, ...]] = {
    "move": ("t", "player", "square"),
    "pass": ("t", "player"),
    "resync": ("t", "moves", "to_move"),
    "game_over": ("t", "black", "white", "winner", "reason", "loser"),
    "clock": ("t", "black", "white", "black_ms", "white_ms", "running", "paused"),
}


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
    # with getattr, so a plain stored event without them is replayed under the rules)


@dataclass(frozen=True)
class GameInfo:
    """Who plays a game and in which round: public from the moment the pairings are out."""

    black: str = ""
    white: str = ""
    round: int | None = None


@dataclass
class SpectatorTable:
    """One table as a spectator sees it, as of ``as_of`` (hub wall time)."""

    table: int
    game: str | None
    as_of: float
    info: GameInfo = field(default_factory=GameInfo)
    board: str = field(default_factory=lambda: Position.start().board_string())
    to_move: str | None = "black"
    moves: list[dict[str, Any]] = field(default_factory=list)
    clock: dict[str, Any] | None = None
    result: dict[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "game": self.game,
            "round": self.info.round,
            "black": self.info.black,
            "white": self.info.white,
            "board": self.board,
            "to_move": self.to_move,
            "moves": self.moves,
            "clock": self.clock,
            "result": self.result,
        }


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


E = TypeVar("E", bound=StoredEventLike)


def visible(events: Iterable[E], now: float, delay: float) -> list[E]:
    """The public events received at least ``delay`` seconds before ``now``."""
    cutoff = now - delay
    return [e for e in events if e.received <= cutoff and e.event.get("event") in PUBLIC_EVENTS]


def delayed_table(
    table: int,
    events: Sequence[StoredEventLike],
    now: float,
    delay: float,
    infos: Mapping[tuple[int, str], GameInfo] | None = None,
    current: tuple[str, GameInfo] | None = None,
    replays: dict[tuple[int, str], Replay] | None = None,
) -> SpectatorTable:
    """Table ``table`` as it stood at ``now - delay``.

    ``events`` are the table's stored events (any games, any order). The game shown is the
    one with the latest visible public event; with none yet, ``current`` (the game the
    table is on now and its players, public since the pairings) from its start position.
    ``replays`` keeps each game's replay between calls (the hub stores a game's events in
    seq order as they arrive, so what is visible of it only ever grows at its end).
    """
    cutoff = now - delay
    shown = visible(events, now, delay)
    infos = infos or {}
    if not shown:
        if current is None:
            return SpectatorTable(table, None, cutoff)
        return SpectatorTable(table, current[0], cutoff, current[1])
    latest = max(shown, key=lambda e: (e.received, e.seq))
    game = latest.game
    mine = sorted((e for e in shown if e.game == game), key=lambda e: e.seq)
    info = infos.get((table, game))
    if info is None:
        info = current[1] if current is not None and current[0] == game else GameInfo()
    view = SpectatorTable(table, game, cutoff, info)
    replay = replays.get((table, game)) if replays is not None else None
    if replay is None or replay.fed > len(mine):
        replay = Replay()
    for stored in mine[replay.fed:]:
        replay.feed(stored)
    if replays is not None:
        replays[(table, game)] = replay
    replay.show(view)
    return view


class Replay:
    """One game as a spectator follows it, fed its public events in seq order; it can be
    fed more as they pass the delay, so a page rebuilt every second reads only what is
    new. The board is the official one the events carry; the rules fill in for events
    that carry none."""

    def __init__(self) -> None:
        self.fed = 0  # events fed so far (public or not)
        self.pos = Position.start()
        self.to_move: str | None = "black"
        self.moves: list[dict[str, Any]] = []
        self.result: dict[str, Any] | None = None
        self.ended: float | None = None  # hub time of the end of the game
        self.clock: tuple[dict[str, Any], float] | None = None

    def feed(self, stored: StoredEventLike) -> None:
        self.fed += 1
        ev = public_event(stored.event)
        if ev is None:
            return
        kind = ev["event"]
        if kind in ("move", "pass"):
            player = _color(ev.get("player"))
            if player is None:
                return
            square = str(ev.get("square", "")) if kind == "move" else None
            if square is not None:
                self.pos = _play(self.pos, player, square)
            elif self.pos.to_move is player:
                self.pos = self.pos.pass_turn()
            self.moves.append({"n": len(self.moves) + 1, "player": player.value,
                               "square": square})
            self.to_move = player.opponent.value
        elif kind == "resync":
            self._resync(ev)
        elif kind == "game_over":
            self.result = {k: ev[k] for k in ("black", "white", "winner", "reason") if k in ev}
            self.to_move = None
            self.ended = stored.received
        elif kind == "clock":
            self.clock = (ev, stored.received)
        self._official(stored)

    def _resync(self, ev: Mapping[str, Any]) -> None:
        """The moves that explain an adopted board (``"white f4"``), each as a move."""
        moves = ev.get("moves")
        for text in moves if isinstance(moves, list) else []:
            name, _, square = str(text).partition(" ")
            player = _color(name)
            if player is None or not square:
                continue
            self.pos = _play(self.pos, player, square)
            self.moves.append({"n": len(self.moves) + 1, "player": player.value,
                               "square": square})
        after = _color(ev.get("to_move"))
        if after is not None:
            self.pos = self.pos.with_to_move(after)
            self.to_move = after.value

    def _official(self, stored: StoredEventLike) -> None:
        """Take the official position the message carries, if it carries one."""
        board = getattr(stored, "board", None)
        if not isinstance(board, str):
            return
        to_move = getattr(stored, "to_move", None)
        side = _color(to_move) if to_move is not None else None
        try:
            self.pos = Position.from_board_string(board, side or self.pos.to_move)
        except BoardStringError:
            return
        if self.result is None:
            self.to_move = None if side is None else side.value

    def show(self, view: SpectatorTable) -> None:
        view.board = self.pos.board_string()
        view.to_move = self.to_move
        view.moves = list(self.moves)
        view.result = None if self.result is None else dict(self.result)
        if self.clock is not None:
            # the reading as it was taken (a stopped clock: as it stood at the end), with
            # ``at`` on the same time line as ``as_of``: a page counts down from there, and
            # the snapshot does not change every second while nothing happens
            ev, taken = self.clock
            until = taken if self.ended is None else max(taken, self.ended)
            view.clock = _clock_at(ev, taken, until, running=self.result is None)


def _color(value: object) -> Color | None:
    try:
        return Color.parse(str(value))
    except BoardStringError:
        return None


def _play(pos: Position, player: Color, square: str) -> Position:
    """Play ``square`` under the rules; a move the rebuilt position cannot hold (after an
    arbiter's ruling set the board) just puts the disc down, so the feed never freezes."""
    try:
        if pos.to_move is not player and not pos.legal_moves():
            pos = pos.pass_turn()
        if pos.to_move is player:
            return pos.play(square)
    except (IllegalMoveError, BoardStringError, ValueError):
        pass
    try:
        index = parse_square(square, 8)
    except BoardStringError:
        return pos
    cells = list(pos.board_string())
    cells[index] = player.symbol
    try:
        return Position.from_board_string("".join(cells), player.opponent)
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


def spectator_tables(
    events_by_table: Mapping[int, Sequence[StoredEventLike]],
    now: float,
    delay: float,
    infos: Mapping[tuple[int, str], GameInfo] | None = None,
    current: Mapping[int, tuple[str, GameInfo]] | None = None,
    replays: dict[tuple[int, str], Replay] | None = None,
) -> list[SpectatorTable]:
    """Every table as a spectator sees it, by table number (``replays``: see
    :func:`delayed_table`; entries of games no longer shown are dropped)."""
    current = current or {}
    tables = sorted(set(events_by_table) | set(current))
    out = [delayed_table(t, events_by_table.get(t, ()), now, delay, infos, current.get(t),
                         replays)
           for t in tables]
    if replays is not None:
        shown = {(v.table, v.game) for v in out}
        for key in [k for k in replays if k not in shown]:
            del replays[key]
    return out
