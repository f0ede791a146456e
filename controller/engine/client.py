"""Talking to an Othello engine over NBoard or GTP, and surviving one that misbehaves.

:class:`~controller.engine.sessions.NBoardSession` and
:class:`~controller.engine.sessions.GtpSession` each speak one protocol to one started
process (:mod:`controller.engine.sessions`). :class:`EngineClient` is what the rest of
Kaeshi uses: it starts the configured engine, asks for a move or for hints, checks
every answer against the rules, and when the engine hangs, dies or answers nonsense it
kills it, says why in :attr:`EngineClient.status`, and answers ``None`` — the game
never waits on an engine. A gone engine is started again once on the next request;
after that it stays gone until the service restarts, so a broken engine cannot stall
every move.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, replace

from controller.engine.process import EngineGone, EngineProcess
from controller.engine.protocol import PROTOCOLS, EngineMove, ProtocolError
from controller.engine.search import Settings
from controller.engine.sessions import Game as Game  # re-exported: the callers' one import
from controller.engine.sessions import (
    GtpSession,
    NBoardSession,
    Session,
    Unsupported,
    check_move,
)
from controller.engine.timing import MIN_MOVES_LEFT, Clock, move_budget
from controller.position import IllegalMoveError

log = logging.getLogger("kaeshi.engine")


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
            check_move(position, move.square)
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
                check_move(position, square)
            return scores

        return self._ask("hint", call)  # type: ignore[return-value]

    def close(self) -> None:
        with self._lock:
            if self._session is not None:
                self._session.close()
                self._session = None
            if not self.gone:
                self.status = "stopped"

