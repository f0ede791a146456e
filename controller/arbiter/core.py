"""The arbiter: observations in, events out, as a pure state machine.

A move is judged when its player presses the clock; without a clock, when the next
move begins (a disc of the next mover's colour appears, ``noclock``) or when the log
ends. A board legal play explains better than a fault is adopted (``explain``).
Until then anything may happen on the board — discs half turned, hands hiding
squares, a disc turned and turned back — and nothing is said. After a judged move
with irregularities the board may still be put right before the opponent's next
move (rule 5①: the opponent presses, points it out, the mover corrects and
presses); otherwise the physical position becomes the official one, exactly as
unnoticed forgotten flips stay on a tournament board.

The arbiter's whole state is one :class:`~controller.arbiter.state.ArbiterState`.
The parts that judge are functions over it, each given the state and the
configuration: ``turns`` (a turn judged, passes, the end), ``corrections``,
``noclock``, ``explain``, ``presswait`` and ``views``. This module routes each
input to them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.arbiter import corrections, presswait, views
from controller.arbiter.config import ArbiterConfig
from controller.arbiter.explain import explained, in_rules_order, out_of_turn
from controller.arbiter.noclock import without_clock
from controller.arbiter.readings import StableBoard, frame_masks
from controller.arbiter.state import CORRECTING, OVER, TURN, WAITING, ArbiterState, OpenMove
from controller.arbiter.turns import adopt_turn, end_game, judge_turn
from controller.arbiter.views import Overlay
from controller.events import Event, Irregularity
from controller.irregular_flow import Flow
from controller.observation import Observation
from controller.position import Position
from controller.records.model import GameRecord, Move
from controller.squares import Color


class RulingRefused(ValueError):
    """An arbiter's ruling that cannot apply now; the message says why."""


class Arbiter:
    """Judges one game. ``feed`` every observation in time order; ``finish`` at the end.

    Its whole state is :attr:`state` (:class:`~controller.arbiter.state.ArbiterState`);
    the parts that judge are functions over it, called from here.
    """

    def __init__(self, config: ArbiterConfig | None = None) -> None:
        #: how the game is run; the service may change its draw rules mid-game
        self.config = config or ArbiterConfig()
        self.state = ArbiterState.start(self.config.start, self.config.clock)

    # ------------------------------------------------------------ properties
    @property
    def position(self) -> Position:
        """The official position: every fault left on the board is part of it."""
        return self.state.position

    @property
    def stable(self) -> StableBoard:
        return self.state.stable

    @property
    def phase(self) -> str:
        return self.state.phase

    @property
    def open(self) -> OpenMove | None:
        return self.state.open

    @property
    def moves(self) -> list[Move]:
        return self.state.moves

    @property
    def result(self) -> tuple[int, int] | None:
        return self.state.result

    @property
    def last_board(self) -> str | None:
        return self.state.last_board

    @property
    def last_move(self) -> str | None:
        return self.state.last_move

    @property
    def game_over(self) -> bool:
        return self.state.phase == OVER

    @property
    def to_move(self) -> Color:
        return self.state.position.to_move

    # ------------------------------------------------------------------ views
    def flow(self) -> Flow:
        """Where the irregularity of the last move stands (rule 5①), for every output."""
        return views.flow(self.state)

    def overlay(self) -> Overlay:
        """Pending and wrong discs for the LEDs, computed on demand (never per frame)."""
        return views.overlay(self.state)

    def open_flags(self) -> list[dict[str, Any]]:
        """Irregularities flagged on the last move and not yet put right (arbiter's view)."""
        return views.open_flags(self.state)

    def record(self) -> GameRecord:
        """The game so far; irregularities are comments on the moves they happened in."""
        return views.record(self.state, self.config)

    def held_until(self) -> float | None:
        """When the held press will be judged (None: no press is held)."""
        return presswait.held_until(self.state.held, self.config)

    # ------------------------------------------------------------------ input
    def feed(self, obs: Observation) -> list[Event]:
        """Take one observation; return the events it causes, in time order."""
        s = self.state
        if s.last_t is not None and obs.t < s.last_t:
            raise ValueError(f"time goes backwards ({obs.t} after {s.last_t})")
        s.last_t = obs.t
        events = self._release_at(presswait.release_before(s.held, self.config, obs.t))
        board = obs.board
        if board is not None:
            if board == s.last_board:
                s.repeats += 1
                if s.repeats >= 2:  # a still board read a third time changes nothing
                    return events + self._release_reached(obs.t)
            else:
                s.repeats = 0
            events += self._board(obs.t, board)
            return events + self._release_reached(obs.t)
        if obs.press is not None:
            return events + self._press(obs.t, obs.press)
        return events

    def elapse(self, t: float) -> list[Event]:
        """Time ``t`` has come with no new observation: a reading that stood since counts.

        A raw source may report a board once and then fall silent until something
        changes (a camera whose board changed again before a second frame agreed), so
        a live service calls this once :meth:`settles_at` is due: the board shown and
        any correction then follow without waiting for the next input. A log needs no
        call: its next observation does the same. With ``settled`` readings nothing
        is ever left waiting. A held press whose wait has ended by ``t`` is judged.
        """
        s = self.state
        if s.held is not None:
            held = s.held
            released = self._release_reached(t)
            if not released and s.held is not None:  # the facts wait for the press
                s.stable.elapse(t)
                held.view.elapse(t)
                return []
            return released + self.elapse(t)
        if not s.stable.elapse(t):
            return []
        if s.clock is True:
            return self._confirmed_with_clock(t)
        h = s.history
        occ, known = h[-1][:2] if h else (0, 0)
        return without_clock(s, self.config, t, occ, known, True)

    def settles_at(self) -> float | None:
        """When a reading no observation has confirmed yet will count if it still stands,
        or a held press is judged, whichever comes first."""
        times = [x for x in (self.state.stable.due(), self.held_until()) if x is not None]
        return min(times) if times else None

    def finish(self, t: float) -> list[Event]:
        """End of input at ``t``: without a clock, the move on the board is judged now.

        The last board counts as it stood until ``t``: a caller that knows the input
        went on (a video played to its end) passes that time; ``arbitrate`` passes
        the last observation's, so a log's last reading needs a second one.
        """
        s = self.state
        if s.held is not None:  # the input ended: judged with what it showed
            return self._release(t) + self.finish(t)
        if s.phase == OVER:
            return []
        if s.clock:
            # A faulty last move nobody put right: the game ended as it stands.
            return end_game(s, self.config, t) if s.open and s.position.is_game_over() else []
        events = self.elapse(t)
        if s.phase == OVER:
            return events
        sb = s.stable
        if not (sb.black | sb.white) & ~(s.position.black | s.position.white):
            return events
        return events + judge_turn(s, self.config, t, s.position.to_move, sb.black, sb.white,
                                   sb.shifted)

    # ---------------------------------------------------------------- rulings
    def rule_position(self, t: float, board: str | None = None) -> list[Event]:
        """The arbiter's ruling: accept the board as it stands (``None``) or impose ``board``.

        The rules leave an irregular position to the arbiter's judgement; after the
        ruling the game goes on from it with the same side to move and no open flag.
        """
        s = self.state
        if s.phase == OVER:
            raise RulingRefused("the game is over")
        to_move = s.position.to_move
        if board is None:
            sb = s.stable
            if (sb.black | sb.white) == 0:
                raise RulingRefused("no board has been read yet")
            position = Position(sb.black, sb.white, to_move, s.position.size)
            shifted = sb.shifted
        else:
            position = Position.from_board_string(board, to_move, s.position.size)
            shifted = 0
        s.position = position
        s.shifted = shifted
        s.open = None
        s.stable = StableBoard.of(position.black, position.white, shifted)
        s.notes.append(f"position set by the arbiter at {t:.1f}s: {position.board_string()}")
        if position.is_game_over():
            return end_game(s, self.config, t)
        if s.phase == CORRECTING:
            s.phase = TURN
        return []

    # ----------------------------------------------------------------- boards
    def _board(self, t: float, board: str) -> list[Event]:
        s = self.state
        black, white, shifted, known = frame_masks(board, s.position.size)
        s.last_board = board
        if s.held is not None:  # the board at the held press: taken in when it is judged
            presswait.see(s.held, black, white, shifted, known, t, s.position.size,
                          self.config.settled)
        changed = s.stable.update(black, white, shifted, known, t, self.config.settled)
        if s.held is not None:
            return []
        if s.clock is not True:
            return without_clock(s, self.config, t, black | white, known, changed)
        return self._confirmed_with_clock(t) if changed else []

    def _confirmed_with_clock(self, t: float) -> list[Event]:
        """A confirmed square changed in a clock game: note the first new disc, check fixes."""
        s = self.state
        sb = s.stable
        if s.first is None:
            new = (sb.black | sb.white) & ~(s.position.black | s.position.white)
            if new:
                s.first = (new & -new).bit_length() - 1
        if s.open is not None:
            return corrections.check_corrections(s, self.config, t)
        return []

    # ---------------------------------------------------------------- presses
    def _press(self, t: float, player: Color) -> list[Event]:
        s = self.state
        if s.clock is False:
            return []  # a stray press in a game played without a clock
        if s.clock is None:
            s.clock = True
            s.phase = WAITING
            s.history.clear()
        if self.config.press_wait > 0:
            # a press already held is judged first, with what came before
            events = self._release(t) if s.held is not None else []
            s.held = presswait.hold(t, player, s.stable, s.last_board)
            return events
        events = self._confirmed_with_clock(t) if s.stable.settle(t) else []
        return events + self._pressed(t, player)

    def _pressed(self, t: float, player: Color) -> list[Event]:
        s = self.state
        if s.phase == WAITING:
            if player is s.position.to_move.opponent:
                s.phase = TURN
                s.turn_t = t
            return []
        if player is not s.position.to_move:
            if s.phase != TURN:
                return []  # that side's time is not running: the button does nothing
            # The press says ``player`` moved last: adopt the board if legal play ending
            # with them gives it (a press forgotten, a turn lost) — unless it is the
            # move of a player who passed illegally and now simply plays instead, or
            # one move of theirs while the side to move could play (out of turn).
            sb = s.stable
            plies = explained(s, player, sb.black, sb.white, lost_turn=True)
            op = s.open
            if op is not None and op.judgement.player is player and any(
                    f.kind is Irregularity.ILLEGAL_PASS for f in op.flags) \
                    and (plies is None or not in_rules_order(s.position, plies)):
                return corrections.pass_replaced(s, self.config, t, player, op)
            if plies is not None and out_of_turn(s.position, plies):
                return judge_turn(s, self.config, t, player, sb.black, sb.white, sb.shifted,
                                  out_of_turn=True)
            if plies is not None:
                return adopt_turn(s, self.config, t, plies, sb.black, sb.white, sb.shifted)
            return []
        if s.phase == CORRECTING:
            return corrections.end_correction(s, self.config, t, player)
        sb = s.stable
        pos = s.position
        unchanged = (
            sb.black == pos.black
            and sb.white == pos.white
            and not sb.shifted & ~s.shifted
        )
        op = s.open
        if unchanged and op is not None and op.judgement.player is player.opponent:
            return corrections.challenge(s, t, op)
        if s.phase == OVER:
            return []
        return judge_turn(s, self.config, t, player, sb.black, sb.white, sb.shifted)

    # ------------------------------------------------------------ held press
    def _release_reached(self, t: float) -> list[Event]:
        """The readings have reached ``t``: a press whose wait ends by then is judged."""
        return self._release_at(presswait.release_reached(self.state.held, self.config, t))

    def _release_at(self, until: float | None) -> list[Event]:
        return [] if until is None else self._release(until)

    def _release(self, until: float) -> list[Event]:
        """Judge the held press on its view with the readings up to ``until`` (what
        stood until then counts, a lone reading that did not has had its chance),
        then take in what changed on the board after the press."""
        s = self.state
        held = s.held
        assert held is not None
        s.held = None
        view, real = held.view, s.stable
        view.settle(until)
        real.elapse(until)
        s.stable = view  # the press is judged on the board as it stood at the press
        try:
            events = self._confirmed_with_clock(held.t) if view.masks() != held.masks else []
            events += self._pressed(held.t, held.player)
        finally:
            s.stable = real
        if real.masks() != view.masks() and s.phase != OVER and s.clock is True:
            events += self._confirmed_with_clock(until)
        return events


def arbitrate(
    observations: Iterable[Observation], config: ArbiterConfig | None = None
) -> list[Event]:
    """Judge a whole log; the events a live arbiter would have emitted, in order."""
    arbiter = Arbiter(config)
    events: list[Event] = []
    t = 0.0
    for obs in observations:
        events.extend(arbiter.feed(obs))
        t = obs.t
    events.extend(arbiter.finish(t))
    return events
