"""A web facade over a real arbiter and game clock, fed like a simulated board.

Shared by the web and service tests (the server, the browser);
``tests/web/test_web_support.py`` checks that what they rely on is true.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from controller.arbiter import Arbiter, ArbiterConfig, Mode
from controller.clock import GameClock, TimeControl
from controller.events import Event
from controller.irregularities import KIND_NAMES
from controller.leds import plan_overlay
from controller.observation import Observation
from controller.position import Position
from controller.records import GameRecord
from controller.records.irregular import History, for_people
from controller.squares import Color, parse_square
from controller.web import ActionError, ChangeNotifier, View
from controller.web.facade import disc_graph, result_of
from controller.web.heading import heading

TOKEN = "s3cret-arbiter-token"  # 20 characters: strong enough for check_token_strength


class SimulatedGame:
    """A real Arbiter + GameClock; the board is 'sensed' as two identical frames."""

    def __init__(
        self, mode: Mode = Mode.HOME, main: float = 1200.0, now: Callable[[], float] | None = None,
        draw_win_right: Color | None = None, size: int = 8,
    ) -> None:
        self.mode = mode
        self.size = size
        # a draw-win right given: an event without draws (the hall's 伏せ石 recorded)
        self.arbiter = Arbiter(ArbiterConfig(mode=mode, clock=True, start=Position.start(size),
                                             draws_allowed=draw_win_right is None,
                                             draw_win_right=draw_win_right))
        self.clock = GameClock(TimeControl(main=main))
        self.notifier = ChangeNotifier()
        t0 = time.monotonic()
        self._now = now or (lambda: time.monotonic() - t0)
        self._last_t = 0.0
        self.events: list[Event] = []
        self.state = "waiting_for_start"
        self.actions: list[tuple[str, Any]] = []
        self.history = History()
        self.after: dict[int, Position] = {0: self.arbiter.position}
        self.board = self.arbiter.position.board_string()
        self.sense(self.board)

    # ------------------------------------------------------------ simulated board
    def t(self) -> float:
        self._last_t = max(self._last_t + 1e-3, self._now())
        return self._last_t

    def _took(self, t: float, events: list[Event]) -> None:
        """Keep the events, the irregularity history and the positions, as the service."""
        self.events += events
        self.history.take(events, len(self.arbiter.moves), t, self.arbiter.open_flags())
        self.after[len(self.arbiter.moves)] = self.arbiter.position
        if self.arbiter.game_over:
            self.state = "game_over"

    def sense(self, board: str) -> None:
        self.board = board
        for _ in range(2):
            t = self.t()
            self._took(t, self.arbiter.feed(Observation(t, board=board)))
        self.notifier.notify()

    def press(self, color: Color) -> None:
        t = self.t()
        if not self.arbiter.game_over:
            self.clock.press(color, t)
        self.state = "playing"
        self._took(t, self.arbiter.feed(Observation(t, press=color)))
        if self.arbiter.game_over and self.clock.running is not None and not self.clock.paused:
            self.clock.pause(t)  # the game is over: the clock stops with the last press
        self.notifier.notify()

    def start_clock(self) -> None:
        self.press(Color.WHITE)  # rule 4: white's press starts black's time

    def play(self, square: str, forget: tuple[str, ...] = ()) -> None:
        """The side to move puts a disc on ``square``, turns what it should (except
        ``forget``) and presses the clock."""
        pos = self.arbiter.position
        mover = pos.to_move
        after = pos.play(square).board_string()
        cells = list(after)
        for sq in forget:
            cells[parse_square(sq, self.size)] = mover.opponent.symbol
        self.sense("".join(cells))
        self.press(mover)

    def put_right(self) -> None:
        """The offender puts the flagged move right on the board (before the next move)."""
        op = self.arbiter.open
        assert op is not None, "nothing to put right"
        self.sense(op.judgement.correct.board_string())

    def pass_turn(self) -> None:
        """The side to move presses without moving: a pass (illegal if it had a move)."""
        self.press(self.arbiter.position.to_move)

    # -------------------------------------------------------------------- facade
    def snapshot(self, view: View) -> dict[str, Any]:
        now = self._last_t if self.clock.running is None else self._now()
        arb = self.arbiter
        pos = arb.position
        b, w = pos.counts()
        flag = self.clock.flag(now)
        legal = pos.legal_squares()
        audience = "arbiter" if view == "arbiter" else "players"
        plan = plan_overlay(self.mode, arb.overlay(), self.state, legal, audience)
        flags = arb.open_flags()
        return {
            "flow": arb.flow().step().to_json(),
            "kind_names": KIND_NAMES,
            "version": self.notifier.version,
            "mode": self.mode.value,
            "state": "paused" if self.clock.paused and self.state != "game_over" else self.state,
            "size": self.size,
            "board": self.board,
            "position": pos.board_string(),
            "to_move": pos.to_move.value,
            "counts": {"black": b, "white": w},
            "players": {"black": "Hasegawa", "white": "Tamaru"},
            "clocks": {
                "black": self.clock.remaining(Color.BLACK, now),
                "white": self.clock.remaining(Color.WHITE, now),
                "running": self.clock.running.value if self.clock.running else None,
                "paused": self.clock.paused,
                "flag": flag.loser.value if flag and flag.loser else None,
            },
            "moves": [
                {
                    "n": i,
                    "player": m.player.value,
                    "square": m.square,
                    "t": m.time,
                    "comment": m.comment,
                }
                for i, m in enumerate(arb.moves, 1)
            ],  # fmt: skip
            "events": [e.to_dict() for e in self.events[-50:]],
            "last_move": arb.last_move,
            "overlay": {sq: c.to_json() for sq, c in plan.items()},
            "irregularities": flags,
            "history": self.history.to_json(),
            "graph": disc_graph(self.after, len(arb.moves)),
            "result": result_of([e.to_dict() for e in self.events]) if arb.game_over else None,
            "now": now,
            "legal": legal,
            "message": "",
            # the header as the service makes it: a hall's table in round 2 of an event
            "heading": heading(self.mode.value, "Hasegawa", "Tamaru", view=view,
                               event="Club night", table=3, round=2),
        }

    async def wait_change(self, version: int) -> int:
        return await self.notifier.wait_change(version)

    def game_record(self) -> GameRecord:
        rec = for_people(self.arbiter.record(), self.history, self.after)
        rec.black, rec.white, rec.date = "Hasegawa", "Tamaru", "2026-11-28"
        return rec

    def _did(self, action: str, arg: Any = None) -> None:
        self.actions.append((action, arg))
        self.notifier.notify()

    def pause(self) -> None:
        if self.clock.paused:
            raise ActionError("the clock is already paused")
        self.clock.pause(self.t())
        self._did("pause")

    def resume(self) -> None:
        if not self.clock.paused:
            raise ActionError("the clock is not paused")
        self.clock.resume(self.t())
        self._did("resume")

    def adjust_time(self, color: Color, seconds: float) -> None:
        self.clock.adjust(color, seconds, self.t())
        self._did("adjust_time", (color, seconds))

    def accept_position(self) -> None:
        if self.arbiter.open is None:
            raise ActionError("there is no flagged position to accept")
        t = self.t()
        events = self.arbiter.rule_position(t)
        self.history.ruled(t, accepted=True)
        self._took(t, events)
        self._did("accept_position")

    def correct_position(self, board: str) -> None:
        Position.from_board_string(board, self.arbiter.to_move)
        t = self.t()
        events = self.arbiter.rule_position(t, board)
        self.history.ruled(t, accepted=False)
        self._took(t, events)
        self._did("correct_position", board)
