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
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from controller.arbiter.config import ArbiterConfig
from controller.arbiter.corrections import (
    CORRECTING,
    OVER,
    TURN,
    WAITING,
    Corrections,
    OpenMove,
    names,
)
from controller.arbiter.explain import Explain, in_rules_order
from controller.arbiter.judge import Flag, judge
from controller.arbiter.noclock import Frame, NoClock
from controller.arbiter.presswait import HeldPress
from controller.arbiter.readings import StableBoard, frame_masks
from controller.arbiter.views import Views
from controller.events import Event, Irregularity
from controller.events import game_over as game_over_event
from controller.events import irregularity as irregularity_event
from controller.events import move as move_event
from controller.events import pass_ as pass_event
from controller.observation import Observation
from controller.position import Position
from controller.records.model import Move
from controller.squares import Color, square_name


class RulingRefused(ValueError):
    """An arbiter's ruling that cannot apply now; the message says why."""


class Arbiter(Corrections, NoClock, Explain, Views, HeldPress):
    """Judges one game. ``feed`` every observation in time order; ``finish`` at the end."""

    def __init__(self, config: ArbiterConfig | None = None) -> None:
        self.config = config or ArbiterConfig()
        start = self.config.start
        self.position: Position = start
        self.shifted = 0
        self.stable = StableBoard.of(start.black, start.white)
        self.last_board: str | None = None
        self.clock: bool | None = self.config.clock
        self.phase = WAITING if self.clock else TURN
        self.turn_t: float | None = None
        self.challenge_t: float | None = None
        self._was_over = False
        self._challenged: OpenMove | None = None
        self._said: Event | None = None
        self._fixed_any = False
        self._first: int | None = None  # the first new disc of the turn
        self._repeats = 0  # how often the last board string came again in a row
        self.open: OpenMove | None = None
        self.moves: list[Move] = []
        self.notes: list[str] = []
        self.result: tuple[int, int] | None = None
        self.last_move: str | None = None
        self.last_t: float | None = None
        # No clock: per frame since the last judgement, (occupied, known) as read, the
        # confirmed (black, white, shifted) after it, and its time.
        self._history: list[Frame] = []
        self._base: tuple[int, int, int] = (start.black, start.white, 0)
        # a press waiting for the frames after it (see ``presswait``)
        self._held: tuple[float, Color] | None = None
        self._held_masks: tuple[int, int, int] = (0, 0, 0)
        self._view: StableBoard | None = None
        self._at_press: str | None = None

    # ------------------------------------------------------------ properties
    @property
    def game_over(self) -> bool:
        return self.phase == OVER

    @property
    def to_move(self) -> Color:
        return self.position.to_move

    # ------------------------------------------------------------------ input
    def feed(self, obs: Observation) -> list[Event]:
        """Take one observation; return the events it causes, in time order."""
        if self.last_t is not None and obs.t < self.last_t:
            raise ValueError(f"time goes backwards ({obs.t} after {self.last_t})")
        self.last_t = obs.t
        events = self._release_before(obs.t)
        board = obs.board
        if board is not None:
            if board == self.last_board:
                self._repeats += 1
                if self._repeats >= 2:  # a still board read a third time changes nothing
                    return events + self._release_reached(obs.t)
            else:
                self._repeats = 0
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
        if self._held is not None:
            released = self._release_reached(t)
            if not released and self._view is not None:  # the facts wait for the press
                self.stable.elapse(t)
                self._view.elapse(t)
                return []
            return released + self.elapse(t)
        if not self.stable.elapse(t):
            return []
        if self.clock is True:
            return self._confirmed_with_clock(t)
        h = self._history
        occ, known = h[-1][:2] if h else (0, 0)
        return self._without_clock(t, occ, known, True)

    def settles_at(self) -> float | None:
        """When a reading no observation has confirmed yet will count if it still stands,
        or a held press is judged, whichever comes first."""
        times = [x for x in (self.stable.due(), self.held_until()) if x is not None]
        return min(times) if times else None

    def finish(self, t: float) -> list[Event]:
        """End of input at ``t``: without a clock, the move on the board is judged now.

        The last board counts as it stood until ``t``: a caller that knows the input
        went on (a video played to its end) passes that time; ``arbitrate`` passes
        the last observation's, so a log's last reading needs a second one.
        """
        if self._held is not None:  # the input ended: judged with what it showed
            return self._release(t) + self.finish(t)
        if self.phase == OVER:
            return []
        if self.clock:
            # A faulty last move nobody put right: the game ended as it stands.
            return self._end(t) if self.open and self.position.is_game_over() else []
        events = self.elapse(t)
        if self.phase == OVER:
            return events
        sb = self.stable
        if not (sb.black | sb.white) & ~(self.position.black | self.position.white):
            return events
        return events + self._judge(t, self.position.to_move, sb.black, sb.white, sb.shifted)

    # ---------------------------------------------------------------- rulings
    def rule_position(self, t: float, board: str | None = None) -> list[Event]:
        """The arbiter's ruling: accept the board as it stands (``None``) or impose ``board``.

        The rules leave an irregular position to the arbiter's judgement; after the
        ruling the game goes on from it with the same side to move and no open flag.
        """
        if self.phase == OVER:
            raise RulingRefused("the game is over")
        to_move = self.position.to_move
        if board is None:
            sb = self.stable
            if (sb.black | sb.white) == 0:
                raise RulingRefused("no board has been read yet")
            position = Position(sb.black, sb.white, to_move, self.position.size)
            shifted = sb.shifted
        else:
            position = Position.from_board_string(board, to_move, self.position.size)
            shifted = 0
        self.position = position
        self.shifted = shifted
        self.open = None
        self.stable = StableBoard.of(position.black, position.white, shifted)
        self.notes.append(f"position set by the arbiter at {t:.1f}s: {position.board_string()}")
        if position.is_game_over():
            return self._end(t)
        if self.phase == CORRECTING:
            self.phase = TURN
        return []

    # ----------------------------------------------------------------- boards
    def _board(self, t: float, board: str) -> list[Event]:
        black, white, shifted, known = frame_masks(board, self.position.size)
        self.last_board = board
        if self._held is not None:  # the board at the held press: taken in when it is judged
            self._view_board(black, white, shifted, known, t)
        changed = self.stable.update(black, white, shifted, known, t, self.config.settled)
        if self._held is not None:
            return []
        if self.clock is not True:
            return self._without_clock(t, black | white, known, changed)
        return self._confirmed_with_clock(t) if changed else []

    def _confirmed_with_clock(self, t: float) -> list[Event]:
        """A confirmed square changed in a clock game: note the first new disc, check fixes."""
        sb = self.stable
        if self._first is None:
            new = (sb.black | sb.white) & ~(self.position.black | self.position.white)
            if new:
                self._first = (new & -new).bit_length() - 1
        if self.open is not None:
            return self._check_corrections(t)
        return []

    # ---------------------------------------------------------------- presses
    def _press(self, t: float, player: Color) -> list[Event]:
        if self.clock is False:
            return []  # a stray press in a game played without a clock
        if self.clock is None:
            self.clock = True
            self.phase = WAITING
            self._history.clear()
        if self.config.press_wait > 0:
            return self._hold(t, player)
        events = self._confirmed_with_clock(t) if self.stable.settle(t) else []
        return events + self._pressed(t, player)

    def _pressed(self, t: float, player: Color) -> list[Event]:
        if self.phase == WAITING:
            if player is self.position.to_move.opponent:
                self.phase = TURN
                self.turn_t = t
            return []
        if player is not self.position.to_move:
            if self.phase != TURN:
                return []  # that side's time is not running: the button does nothing
            # The press says ``player`` moved last: adopt the board if legal play ending
            # with them gives it (a press forgotten, a turn lost) — unless it is the
            # move of a player who passed illegally and now simply plays instead.
            sb = self.stable
            plies = self._explained(player, sb.black, sb.white, lost_turn=True)
            op = self.open
            if op is not None and op.judgement.player is player and any(
                    f.kind is Irregularity.ILLEGAL_PASS for f in op.flags) \
                    and (plies is None or not in_rules_order(self.position, plies)):
                return self._pass_replaced(t, player, op)
            if plies is not None:
                return self._adopt(t, plies, sb.black, sb.white, sb.shifted)
            return []
        if self.phase == CORRECTING:
            return self._end_correction(t, player)
        sb = self.stable
        pos = self.position
        unchanged = (
            sb.black == pos.black
            and sb.white == pos.white
            and not sb.shifted & ~self.shifted
        )
        op = self.open
        if unchanged and op is not None and op.judgement.player is player.opponent:
            return self._challenge(t, op)
        if self.phase == OVER:
            return []
        return self._judge(t, player, sb.black, sb.white, sb.shifted)

    # --------------------------------------------------------------- judging
    def _judge(self, t: float, player: Color, black: int, white: int, shifted: int
               ) -> list[Event]:
        j = judge(self.position.with_to_move(player), self.shifted, player, black, white, shifted,
                  self._first)
        if j.flags and j.square is not None:
            plies = self._explained(player, black, white)
            if plies is not None:
                return self._adopt(t, plies, black, white, shifted)
        self._first = None
        size = self.position.size
        events: list[Event] = []
        if j.square is None:
            events.append(pass_event(t, player.value))
        else:
            events.append(move_event(t, player.value, square_name(j.square, size),
                                     names(j.flips, size)))
        for flag in j.flags:
            events.append(irregularity_event(t, player.value, flag.kind,
                                             names(flag.squares, size)))
        used = None
        if self.clock and self.turn_t is not None:
            used = round(t - self.turn_t, 3)
        self.turn_t = t
        self.moves.append(Move(player, None if j.square is None else square_name(j.square, size),
                               used, comment=_comment(j.flags, size)))
        if j.square is not None:
            self.last_move = square_name(j.square, size)
        self.position = j.physical
        self.shifted = j.shifted
        self.open = OpenMove(j, list(j.flags), len(self.moves) - 1) if self.clock and j.flags \
            else None
        events.extend(self._after_turn(t))
        return events

    def _after_turn(self, t: float) -> list[Event]:
        """Passes without a clock are implied by the board; the end is when nobody can move."""
        pos = self.position
        self.phase = TURN
        if pos.is_game_over():
            if self.open is not None:
                return []  # rule 9: a faulty last move may still be pointed out and put right
            return self._end(t)
        if not self.clock and not pos.legal_moves():
            self.moves.append(Move(pos.to_move, None))
            events = [pass_event(t, pos.to_move.value)]
            self.position = pos.pass_turn()
            return events
        return []

    def _end(self, t: float) -> list[Event]:
        self.phase = OVER
        b, w = self.position.final_score()
        self.result = (b, w)
        extra: dict[str, Any] = {}
        if b > w:
            winner = Color.BLACK.value
        elif w > b:
            winner = Color.WHITE.value
        else:
            holder = self.config.draw_winner()
            winner = holder.value if holder else "draw"
            if holder:
                extra["decided_by"] = "draw_win_right"
        return [game_over_event(t, b, w, winner, **extra)]


def _comment(flags: Iterable[Flag], size: int) -> str:
    return "; ".join(f"{f.kind.value} {' '.join(names(f.squares, size))}" for f in flags)


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
