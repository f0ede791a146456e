"""The two protocols an engine is spoken to in: one session per started process.

:class:`NBoardSession` and :class:`GtpSession` each turn a :class:`Game` into the
protocol's lines and the engine's answer back into a move or scores; a request the
protocol cannot express is :class:`Unsupported` (the engine itself is fine). Split
from :mod:`controller.engine.client`, whose :class:`~controller.engine.client.EngineClient`
starts the session, checks every answer against the rules (:func:`check_move`) and
survives an engine that misbehaves.
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from typing import Protocol

from controller.boardsize import STANDARD
from controller.engine.process import EngineLate, EngineProcess
from controller.engine.protocol import (
    EngineMove,
    ProtocolError,
    final_hints,
    ggf_game,
    gtp_color,
    gtp_time_left,
    gtp_time_settings,
    gtp_vertex,
    parse_gtp_reply,
    parse_move,
    parse_nboard_move,
)
from controller.engine.timing import Clock
from controller.position import IllegalMoveError, Position

log = logging.getLogger("kaeshi.engine")

#: Seconds an engine may take to start and answer its first ping.
START_SECONDS = 10.0


class Unsupported(ValueError):
    """A request this engine's protocol cannot express; the engine itself is fine."""


@dataclass(frozen=True)
class Game:
    """What an engine is asked about: a start position and the moves since (None: pass)."""

    start: Position
    moves: tuple[str | None, ...] = ()
    #: The game's clocks as the request is made; None: a game without a clock.
    clock: Clock | None = None

    def position(self) -> Position:
        pos = self.start
        for sq in self.moves:
            pos = pos.pass_turn() if sq is None else pos.play(sq)
        return pos


class Session(Protocol):
    name: str
    scores: bool  # whether the protocol gives scores (NBoard) or moves only (GTP)
    #: The engine is still busy with an answer given up on: start it afresh.
    stale: bool
    #: How deep the last hints were searched, as the engine said (None: not said).
    depth: float | None

    def choose(self, game: Game, seconds: float) -> EngineMove: ...

    def hints(self, game: Game, count: int, seconds: float) -> dict[str | None, float | None]: ...

    def close(self) -> None: ...


class NBoardSession:
    """NBoard protocol 2: ``set game``, then ``go`` or ``hint N`` followed by a ping."""

    scores = True

    def __init__(self, process: EngineProcess, level: int) -> None:
        self.process = process
        self.name = ""
        self.stale = False
        self.depth: float | None = None
        self._ping = 0
        process.send("nboard 2")
        process.send(f"set depth {level}")
        self._sync(time.monotonic() + START_SECONDS)

    def _note_name(self, line: str) -> None:
        if line.startswith("set myname "):
            self.name = line[len("set myname "):].strip()[:60]

    def _sync(self, deadline: float, lines: list[str] | None = None) -> list[str]:
        """Send a ping, return every line before its pong (noting the engine's name);
        ``lines`` collects them as they come, for a caller that gives up waiting."""
        self._ping += 1
        self.process.send(f"ping {self._ping}")
        lines = [] if lines is None else lines
        while True:
            line = self.process.read(deadline)
            self._note_name(line)
            if line.split()[:2] == ["pong", str(self._ping)]:
                return lines
            lines.append(line)

    def _set_game(self, game: Game, deadline: float) -> None:
        self._sync(deadline)  # nothing of an earlier request is still on its way
        self.process.send(f"set game {ggf_game(game.start, list(game.moves), game.clock)}")

    def choose(self, game: Game, seconds: float) -> EngineMove:
        _nboard_size(game)
        deadline = time.monotonic() + seconds
        self._set_game(game, deadline)
        self.process.send("go")
        while True:
            line = self.process.read(deadline)
            self._note_name(line)
            if line.startswith("==="):
                return parse_nboard_move(line)

    def hints(self, game: Game, count: int, seconds: float) -> dict[str | None, float | None]:
        """The engine's final scores (:func:`final_hints`). Past the deadline, what it has
        said so far is the answer — a weaker one, not a failure — and the engine, still
        thinking, is started afresh before the next request."""
        _nboard_size(game)
        deadline = time.monotonic() + seconds
        self._set_game(game, deadline)
        self.process.send(f"hint {count}")
        lines: list[str] = []
        try:
            self._sync(deadline, lines)
        except EngineLate:
            scores, self.depth = final_hints(lines)
            if not scores:
                raise
            self.stale = True
            log.info("engine hint late: answered with what it had searched (%d moves)",
                     len(scores))
            return dict(scores)
        scores, self.depth = final_hints(lines)
        return dict(scores)

    def close(self) -> None:
        self.process.close()


def _nboard_size(game: Game) -> None:
    """NBoard is 8x8 Othello's protocol: its engines are never asked about another board."""
    if game.start.size != STANDARD:
        raise Unsupported(f"an NBoard engine plays {STANDARD}x{STANDARD} Othello only, "
                          f"not {game.start.size}x{game.start.size} (use a GTP engine)")


class GtpSession:
    """GTP as Egaroucid speaks it: the game is replayed with ``play`` before each request,
    so the engine's board can never drift from the one on the table.

    ``reg_genmove`` (a move without playing it) is preferred where the engine lists it;
    an engine whose ``reg_genmove`` answers nonsense (Edax answers the last move played)
    is asked with ``genmove`` from then on, which the replay makes just as safe.
    """

    scores = False

    def __init__(self, process: EngineProcess, level: int) -> None:
        self.process = process
        self.stale = False
        self.depth: float | None = None
        deadline = time.monotonic() + START_SECONDS
        self.name = self.command("name", deadline)[:60]
        self.size = STANDARD
        self.command(f"boardsize {self.size}", deadline)
        known = self.command("list_commands", deadline).split()
        #: ``reg_genmove`` asks without playing the move on the engine's board.
        self.genmove = "reg_genmove" if "reg_genmove" in known else "genmove"
        self.timed = "time_settings" in known and "time_left" in known

    def command(self, line: str, deadline: float) -> str:
        self.process.send(line)
        reply: list[str] = []
        while True:
            text = self.process.read(deadline)
            if not text.strip():
                if reply:
                    break
                continue  # blank lines before a reply
            if not reply and not text.startswith(("=", "?")):
                continue  # chatter before the reply (GTP allows none; engines print it)
            reply.append(text)
        ok, body = parse_gtp_reply(reply)
        if not ok:
            raise ProtocolError(f"the engine refused {line.split()[0]!r}: {body[:80]}")
        return body

    def _setup(self, game: Game, deadline: float) -> Position:
        size = game.start.size
        if game.start != Position.start(size):
            raise Unsupported("GTP cannot set up a handicap or set-up start")
        if size != self.size:
            try:
                self.command(f"boardsize {size}", deadline)
            except ProtocolError:
                raise Unsupported(f"the engine does not play {size}x{size} boards "
                                  "(it refused boardsize)") from None
            self.size = size
        self.command("clear_board", deadline)
        pos = game.start
        for sq in game.moves:
            self.command(f"play {gtp_color(pos.to_move)} {gtp_vertex(sq)}", deadline)
            pos = pos.pass_turn() if sq is None else pos.play(sq)
        if game.clock is not None and self.timed:
            self.command(gtp_time_settings(game.clock.main), deadline)
            for color in (pos.to_move, pos.to_move.opponent):
                self.command(gtp_time_left(color, game.clock.left(color)), deadline)
        return pos

    def choose(self, game: Game, seconds: float) -> EngineMove:
        deadline = time.monotonic() + seconds
        pos = self._setup(game, deadline)
        try:
            reply = self.command(f"{self.genmove} {gtp_color(pos.to_move)}", deadline)
        except ProtocolError as exc:
            if self.genmove != "reg_genmove":
                raise
            reply = f"? {exc}"  # refused, though listed: the fallback below
        if self.genmove == "reg_genmove":
            why = _unplayable(pos, reply)
            if why is not None:
                log.warning("engine's reg_genmove answered %s; asking with genmove from now "
                            "on", why)
                self.genmove = "genmove"
                return self.choose(game, max(0.0, deadline - time.monotonic()))
        return EngineMove(parse_move(reply.split()[0] if reply else "", pos.size))

    def hints(self, game: Game, count: int, seconds: float) -> dict[str | None, float | None]:
        move = self.choose(game, seconds)
        return {move.square: None}  # GTP gives the best move, no scores

    def close(self) -> None:
        self.process.close()


def _unplayable(position: Position, reply: str) -> str | None:
    """Why a move answer cannot be played in ``position`` (None: it can)."""
    try:
        square = parse_move(reply.split()[0] if reply else "", position.size)
        check_move(position, square)
    except (ProtocolError, IllegalMoveError) as exc:
        return f"{reply[:20]!r} ({exc})"
    return None


def check_move(position: Position, square: str | None) -> None:
    """An engine's move must be legal here; a pass only when there is no move."""
    if square is None:
        if position.legal_moves():
            raise IllegalMoveError(f"the engine passed, but {' '.join(position.legal_squares())} "
                                   "can be played")
        return
    if not position.is_legal(square):
        raise IllegalMoveError(f"the engine answered {square}, not a legal move here")
