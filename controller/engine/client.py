"""Talking to an Othello engine over NBoard or GTP, and surviving one that misbehaves.

:class:`NBoardSession` and :class:`GtpSession` each speak one protocol to one
started process. :class:`EngineClient` is what the rest of Kaeshi uses: it starts
the configured engine, asks for a move or for hints, checks every answer against
the rules, and when the engine hangs, dies or answers nonsense it kills it, says
why in :attr:`EngineClient.status`, and answers ``None`` — the game never waits on
an engine. A gone engine is started again once on the next request; after that it
stays gone until the service restarts, so a broken engine cannot stall every move.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, replace
from typing import Protocol

from controller.boardsize import STANDARD
from controller.engine.process import EngineGone, EngineLate, EngineProcess
from controller.engine.protocol import (
    PROTOCOLS,
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
from controller.engine.search import Settings
from controller.engine.timing import MIN_MOVES_LEFT, Clock, move_budget
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
        _check(position, square)
    except (ProtocolError, IllegalMoveError) as exc:
        return f"{reply[:20]!r} ({exc})"
    return None


@dataclass(frozen=True)
class EngineSpec:
    """How to start an engine: argv, protocol, level, seconds per move."""

    argv: tuple[str, ...]
    protocol: str = "nboard"
    level: int = 4
    seconds: float = 5.0
    #: Seconds an answer may be late before the engine counts as hung; None: as long
    #: as the time per move, at least 1 s and at most 5 s.
    grace: float | None = None

    @property
    def deadline(self) -> float:
        """Seconds to wait for one answer at the full time per move."""
        return self.wait(self.seconds)

    def wait(self, budget: float) -> float:
        """Seconds to wait for an answer the engine was given ``budget`` seconds for."""
        grace = self.grace if self.grace is not None else max(1.0, min(5.0, budget))
        return budget + grace

    def budget(self, game: Game) -> float:
        """The engine's time for a move in ``game``: the time per move, or less when the
        clock is short (the engine is told the clocks and budgets the same way)."""
        clock = game.clock
        if clock is None:
            return self.seconds
        pos = game.position()
        empties = pos.empty.bit_count()
        return move_budget(self.seconds, clock.left(pos.to_move), clock.increment, empties)

    def __post_init__(self) -> None:
        if self.protocol not in PROTOCOLS:
            raise ValueError(f"unknown engine protocol {self.protocol!r} "
                             f"(one of {', '.join(PROTOCOLS)})")


class EngineClient:
    """The engine as the game sees it: answers or ``None``, never an exception, never a hang.

    Thread-safe (one request at a time), so the service can ask from a worker thread.
    """

    def __init__(self, spec: EngineSpec, restarts: int = 1) -> None:
        self.spec = spec
        self.restarts = restarts
        self._session: Session | None = None
        self._lock = threading.Lock()
        self.status = "not started"
        self.problem: str | None = None
        self.name = ""
        self.failures = 0
        #: Why the last request had no answer though the engine is fine (GTP limits).
        self.note: str | None = None
        #: How deep the last hints were searched (None: the engine did not say).
        self.depth: float | None = None

    # ------------------------------------------------------------- state
    @property
    def gone(self) -> bool:
        """The engine failed and will not be started again."""
        return self.problem is not None and self.failures > self.restarts

    @property
    def scores(self) -> bool:
        return self.spec.protocol == "nboard"

    def describe(self) -> dict[str, object]:
        """For the page: which engine, and whether it is there."""
        own = self.spec.argv[1:3] == ("-m", "controller.engine.own")
        return {"name": self.name or self.spec.argv[0], "protocol": self.spec.protocol,
                "level": self.spec.level,
                "level_name": Settings.for_level(self.spec.level).name if own else None,
                "status": self.status, "problem": self.problem, "gone": self.gone}

    def _start(self) -> Session:
        if self._session is not None:
            return self._session
        if self.gone:
            raise EngineGone(self.problem or "the engine is gone")
        process = EngineProcess(list(self.spec.argv))
        try:
            cls = NBoardSession if self.spec.protocol == "nboard" else GtpSession
            self._session = cls(process, self.spec.level)
        except (EngineGone, ProtocolError) as exc:
            process.close()
            raise EngineGone(f"the engine did not start properly: {exc}") from None
        self.name = self._session.name or self.name
        self.status = "ready"
        log.info("engine started: %s (%s)", self.name or self.spec.argv[0], self.spec.protocol)
        return self._session

    def _fail(self, why: str) -> None:
        self.failures += 1
        self.problem = why
        if self._session is not None:
            self._session.close()
            self._session = None
        self.status = "gone" if self.gone else "restarting"
        log.warning("engine %s: %s", "gone" if self.gone else "failed, will restart", why)

    def _ask(self, what: str, call: object) -> object:
        with self._lock:
            if self.gone:
                return None
            try:
                session = self._start()
                self.status = "thinking"
                answer = call(session)  # type: ignore[operator]
                self.depth = session.depth
                if session.stale:  # still thinking about an answer given up on
                    session.close()
                    self._session = None
            except Unsupported as exc:
                self.status = "ready"
                self.note = f"{what}: {exc}"
                return None
            except (EngineGone, ProtocolError, IllegalMoveError, OSError) as exc:
                self._fail(f"{what}: {exc}")
                return None
            self.status = "ready"
            return answer

    # ---------------------------------------------------------- requests
    def told(self, game: Game) -> Game:
        """``game`` as the engine is told it: with its clocks, or, in a game without a
        clock, with clocks that give the engine the time per move for each move still
        to come — so an engine that budgets from a clock (NTest) keeps to it too."""
        if game.clock is not None:
            return game
        pos = game.position()
        moves = max(MIN_MOVES_LEFT, (pos.empty.bit_count() + 1) // 2)
        left = min(360_000.0, self.spec.seconds * moves)
        return replace(game, clock=Clock(left, 0.0, left, left))

    def choose(self, game: Game) -> EngineMove | None:
        """The engine's move in ``game``'s position, checked against the rules."""
        position = game.position()
        seconds = self.spec.wait(self.spec.budget(game))
        game = self.told(game)

        def call(session: Session) -> EngineMove:
            move = session.choose(game, seconds)
            _check(position, move.square)
            return move

        return self._ask("move", call)  # type: ignore[return-value]

    def hints(self, game: Game, count: int | None = None
              ) -> dict[str | None, float | None] | None:
        """Scores of up to ``count`` moves, every move by default (None where the
        protocol gives none), within the time per move: an engine still searching then
        answers with what it has."""
        position = game.position()
        count = position.size * position.size if count is None else count
        seconds = self.spec.deadline

        def call(session: Session) -> dict[str | None, float | None]:
            scores = session.hints(game, count, seconds)
            for square in scores:
                _check(position, square)
            return scores

        return self._ask("hint", call)  # type: ignore[return-value]

    def close(self) -> None:
        with self._lock:
            if self._session is not None:
                self._session.close()
                self._session = None
            if not self.gone:
                self.status = "stopped"


def _check(position: Position, square: str | None) -> None:
    """An engine's move must be legal here; a pass only when there is no move."""
    if square is None:
        if position.legal_moves():
            raise IllegalMoveError(f"the engine passed, but {' '.join(position.legal_squares())} "
                                   "can be played")
        return
    if not position.is_legal(square):
        raise IllegalMoveError(f"the engine answered {square}, not a legal move here")
