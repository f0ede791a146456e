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
from dataclasses import dataclass
from typing import Protocol

from controller.engine.process import EngineGone, EngineProcess
from controller.engine.protocol import (
    PROTOCOLS,
    EngineMove,
    ProtocolError,
    ggf_game,
    gtp_color,
    gtp_vertex,
    parse_gtp_reply,
    parse_move,
    parse_nboard_move,
    parse_search_line,
)
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

    def position(self) -> Position:
        pos = self.start
        for sq in self.moves:
            pos = pos.pass_turn() if sq is None else pos.play(sq)
        return pos


class Session(Protocol):
    name: str
    scores: bool  # whether the protocol gives scores (NBoard) or moves only (GTP)

    def choose(self, game: Game, seconds: float) -> EngineMove: ...

    def hints(self, game: Game, count: int, seconds: float) -> dict[str | None, float | None]: ...

    def close(self) -> None: ...


class NBoardSession:
    """NBoard protocol 2: ``set game``, then ``go`` or ``hint N`` followed by a ping."""

    scores = True

    def __init__(self, process: EngineProcess, level: int) -> None:
        self.process = process
        self.name = ""
        self._ping = 0
        process.send("nboard 2")
        process.send(f"set depth {level}")
        self._sync(time.monotonic() + START_SECONDS)

    def _sync(self, deadline: float) -> list[str]:
        """Send a ping, return every line before its pong (noting the engine's name)."""
        self._ping += 1
        self.process.send(f"ping {self._ping}")
        lines: list[str] = []
        while True:
            line = self.process.read(deadline)
            if line.startswith("set myname "):
                self.name = line[len("set myname "):].strip()[:60]
            if line.split()[:2] == ["pong", str(self._ping)]:
                return lines
            lines.append(line)

    def choose(self, game: Game, seconds: float) -> EngineMove:
        deadline = time.monotonic() + seconds
        self._sync(deadline)  # nothing of an earlier request is still on its way
        self.process.send(f"set game {ggf_game(game.start, list(game.moves))}")
        self.process.send("go")
        while True:
            line = self.process.read(deadline)
            if line.startswith("set myname "):
                self.name = line[len("set myname "):].strip()[:60]
            if line.startswith("==="):
                return parse_nboard_move(line)

    def hints(self, game: Game, count: int, seconds: float) -> dict[str | None, float | None]:
        deadline = time.monotonic() + seconds
        self._sync(deadline)
        self.process.send(f"set game {ggf_game(game.start, list(game.moves))}")
        self.process.send(f"hint {count}")
        scores: dict[str | None, float | None] = {}
        for line in self._sync(deadline):
            if line.startswith(("search ", "book ")):
                square, score = parse_search_line(line)
                scores[square] = score  # a later line is a deeper search of the move
        return scores

    def close(self) -> None:
        self.process.close()


class GtpSession:
    """GTP as Egaroucid speaks it: the game is replayed with ``play`` before each request,
    so the engine's board can never drift from the one on the table."""

    scores = False

    def __init__(self, process: EngineProcess, level: int) -> None:
        self.process = process
        deadline = time.monotonic() + START_SECONDS
        self.name = self.command("name", deadline)[:60]
        self.command("boardsize 8", deadline)
        known = self.command("list_commands", deadline).split()
        #: ``reg_genmove`` asks without playing the move on the engine's board.
        self.genmove = "reg_genmove" if "reg_genmove" in known else "genmove"

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
        if game.start != Position.start():
            raise Unsupported("GTP cannot set up a handicap or set-up start")
        self.command("clear_board", deadline)
        pos = game.start
        for sq in game.moves:
            self.command(f"play {gtp_color(pos.to_move)} {gtp_vertex(sq)}", deadline)
            pos = pos.pass_turn() if sq is None else pos.play(sq)
        return pos

    def choose(self, game: Game, seconds: float) -> EngineMove:
        deadline = time.monotonic() + seconds
        pos = self._setup(game, deadline)
        reply = self.command(f"{self.genmove} {gtp_color(pos.to_move)}", deadline)
        return EngineMove(parse_move(reply.split()[0] if reply else ""))

    def hints(self, game: Game, count: int, seconds: float) -> dict[str | None, float | None]:
        move = self.choose(game, seconds)
        return {move.square: None}  # GTP gives the best move, no scores

    def close(self) -> None:
        self.process.close()


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
        """Seconds to wait for one answer."""
        grace = self.grace if self.grace is not None else max(1.0, min(5.0, self.seconds))
        return self.seconds + grace

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
        return {"name": self.name or self.spec.argv[0], "protocol": self.spec.protocol,
                "level": self.spec.level, "status": self.status, "problem": self.problem,
                "gone": self.gone}

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
    def choose(self, game: Game) -> EngineMove | None:
        """The engine's move in ``game``'s position, checked against the rules."""
        position = game.position()
        seconds = self.spec.deadline

        def call(session: Session) -> EngineMove:
            move = session.choose(game, seconds)
            _check(position, move.square)
            return move

        return self._ask("move", call)  # type: ignore[return-value]

    def hints(self, game: Game, count: int = 64) -> dict[str | None, float | None] | None:
        """Scores of up to ``count`` moves (None where the protocol gives none)."""
        position = game.position()
        seconds = self.spec.deadline * max(1, min(count, 4))

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
