"""The arbiter: observations in, events out, as a pure state machine.

A move is judged when its player presses the clock; without a clock, when the next
move begins (a second new disc appears) or when the log ends. Until then anything
may happen on the board — discs half turned, hands hiding squares, a disc turned
and turned back — and nothing is said. After a judged move with irregularities
the board may still be put right before the opponent's next move (rule 5①: the
opponent presses, points it out, the mover corrects and presses); otherwise the
physical position becomes the official one, exactly as unnoticed forgotten flips
stay on a tournament board.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from controller.arbiter.config import ArbiterConfig, Mode
from controller.arbiter.corrections import (
    CORRECTING,
    OVER,
    TURN,
    WAITING,
    Corrections,
    OpenMove,
    names,
)
from controller.arbiter.judge import Flag, judge
from controller.arbiter.readings import StableBoard, frame_masks
from controller.events import Event, Irregularity
from controller.events import game_over as game_over_event
from controller.events import irregularity as irregularity_event
from controller.events import move as move_event
from controller.events import pass_ as pass_event
from controller.observation import Observation
from controller.position import Position
from controller.records.model import GameRecord, Move
from controller.squares import Color, square_name

HISTORY_LIMIT = 4096  # frames kept for one turn without a clock


@dataclass(frozen=True)
class Overlay:
    """What an LED layer or web page could show now, before any mode filtering."""

    last_move: str | None
    pending: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    irregular: bool = False


class RulingRefused(ValueError):
    """An arbiter's ruling that cannot apply now; the message says why."""


class Arbiter(Corrections):
    """Judges one game. ``feed`` every observation in time order; ``finish`` at the end."""

    def __init__(self, config: ArbiterConfig | None = None) -> None:
        self.config = config or ArbiterConfig()
        if self.config.start.size != 8:
            raise ValueError("the arbiter judges 8x8 games")
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
        self._fixed_any = False
        self._first: int | None = None  # the first new disc of the turn
        self._repeats = 0  # how often the last board string came again in a row
        self.open: OpenMove | None = None
        self.moves: list[Move] = []
        self.notes: list[str] = []
        self.result: tuple[int, int] | None = None
        self.last_move: str | None = None
        self.last_t: float | None = None
        # No clock: per-frame (occupied, known, black, white, shifted) since the last judgement.
        self._history: list[tuple[int, int, int, int, int]] = []
        self._base: tuple[int, int, int] = (start.black, start.white, 0)

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
        board = obs.board
        if board is not None:
            if board == self.last_board:
                self._repeats += 1
                if self._repeats >= 2:  # a still board read a third time changes nothing
                    h = self._history
                    if self.clock is not True and h and (len(h) < 2 or h[-1] is not h[-2]):
                        h.append(h[-1])  # two readings of a still board are enough
                    return []
            else:
                self._repeats = 0
            return self._board(obs.t, board)
        if obs.press is not None:
            return self._press(obs.t, obs.press)
        return []

    def finish(self, t: float) -> list[Event]:
        """End of input: without a clock, the move on the board is judged now."""
        if self.clock or self.phase == OVER:
            return []
        sb = self.stable
        if not (sb.black | sb.white) & ~(self.position.black | self.position.white):
            return []
        return self._judge(t, self.position.to_move, sb.black, sb.white, sb.shifted)

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
            position, shifted = Position(sb.black, sb.white, to_move), sb.shifted
        else:
            position, shifted = Position.from_board_string(board, to_move), 0
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
        black, white, shifted, known = frame_masks(board)
        self.last_board = board
        sb = self.stable
        changed = sb.update(black, white, shifted, known)
        if self.clock is False or self.clock is None:
            hist = self._history
            hist.append((black | white, known, sb.black, sb.white, sb.shifted))
            if len(hist) > HISTORY_LIMIT:  # a turn that never ends: keep its recent part
                half = len(hist) // 2
                self._base = hist[half - 1][2:]
                del hist[:half]
            if not changed:
                return []
            occ0 = self.position.black | self.position.white
            new = (sb.black | sb.white) & ~occ0
            if not new:
                return []
            if self.clock is None:
                self.clock = False
                self.phase = TURN
            if self._first is None:
                self._first = (new & -new).bit_length() - 1
            if self.phase == OVER or not new & (new - 1):
                return []
            return self._next_move_began(t, new)
        if not changed:
            return []
        if self._first is None:
            new = (sb.black | sb.white) & ~(self.position.black | self.position.white)
            if new:
                self._first = (new & -new).bit_length() - 1
        if self.open is not None:
            return self._check_corrections(t)
        return []

    def _next_move_began(self, t: float, new: int) -> list[Event]:
        """No clock: a second new disc appeared, so the move before it is complete."""
        hist = self._history
        # The newest disc is one that the frame before did not show as confirmed.
        prev = hist[-2] if len(hist) >= 2 else (0, 0, *self._base)
        newest = new & ~(prev[2] | prev[3]) or new
        sq = (newest & -newest).bit_length() - 1
        bit = 1 << sq
        snap = self._base
        cut = 0
        i = len(hist) - 1
        while i >= 0 and (hist[i][2] | hist[i][3]) & bit:
            i -= 1  # confirmed frames; a later one-frame misread of the square is ignored
        # Then the latest two consecutive definite readings of the square as empty: the
        # board just before the disc went down (a single misread cannot fake a pair).
        later_empty = False
        while i >= 0:
            occ, known = hist[i][0], hist[i][1]
            if known & bit:
                empty = not occ & bit
                if empty and later_empty:
                    snap = hist[i][2:]
                    cut = i + 1
                    break
                later_empty = empty
            i -= 1
        mover = self.position.to_move
        events = self._judge(t, mover, *snap)
        self._base = snap
        self._history = hist[cut:]
        return events

    # ---------------------------------------------------------------- presses
    def _press(self, t: float, player: Color) -> list[Event]:
        if self.clock is False:
            return []  # a stray press in a game played without a clock
        if self.clock is None:
            self.clock = True
            self.phase = WAITING
            self._history.clear()
        if self.phase == WAITING:
            if player is self.position.to_move.opponent:
                self.phase = TURN
                self.turn_t = t
            return []
        if player is not self.position.to_move:
            return []  # that side's time is not running: the button does nothing
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
        self._first = None
        events: list[Event] = []
        if j.square is None:
            events.append(pass_event(t, player.value))
        else:
            events.append(move_event(t, player.value, square_name(j.square), names(j.flips)))
        for flag in j.flags:
            events.append(irregularity_event(t, player.value, flag.kind, names(flag.squares)))
        used = None
        if self.clock and self.turn_t is not None:
            used = round(t - self.turn_t, 3)
        self.turn_t = t
        self.moves.append(Move(player, None if j.square is None else square_name(j.square),
                               used, comment=_comment(j.flags)))
        if j.square is not None:
            self.last_move = square_name(j.square)
        self.position = j.physical
        self.shifted = j.shifted
        self.open = OpenMove(j, list(j.flags), len(self.moves) - 1) if self.clock and j.flags \
            else None
        events.extend(self._after_turn(t))
        return events

    def _after_turn(self, t: float) -> list[Event]:
        """Passes without a clock are implied by the board; the end is when nobody can move."""
        pos = self.position
        if pos.is_game_over():
            return self._end(t)
        self.phase = TURN
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

    # ----------------------------------------------------------------- output
    def overlay(self) -> Overlay:
        """Pending and wrong discs for the LEDs, computed on demand (never per frame)."""
        sb = self.stable
        pending = wrong = 0
        op = self.open
        if op is not None:
            for f in op.flags:
                if f.kind is Irregularity.FORGOTTEN_FLIP:
                    pending |= f.squares
                elif f.kind is not Irregularity.ILLEGAL_PASS:
                    wrong |= f.fix or f.squares
        elif self.phase == TURN:
            occ0 = self.position.black | self.position.white
            if (sb.black | sb.white) & ~occ0:
                j = judge(self.position, self.shifted, self.position.to_move,
                          sb.black, sb.white, sb.shifted)
                for f in j.flags:
                    if f.kind is Irregularity.FORGOTTEN_FLIP:
                        pending |= f.squares
                    elif f.kind is not Irregularity.ILLEGAL_SQUARE:
                        wrong |= f.fix or f.squares
                    else:
                        wrong |= f.squares
        return Overlay(self.last_move, names(pending), names(wrong), self.open is not None)

    def open_flags(self) -> list[dict[str, Any]]:
        """Irregularities flagged on the last move and not yet put right (arbiter's view)."""
        op = self.open
        if op is None:
            return []
        return [
            {"player": op.judgement.player.value, "kind": f.kind.value, "squares": names(f.squares)}
            for f in op.flags
        ]

    def player_overlay(self) -> Overlay:
        """What the players' LEDs may show: everything at home, no advice otherwise (rule 21)."""
        full = self.overlay()
        if self.config.mode is Mode.HOME:
            return full
        return Overlay(full.last_move)

    def record(self) -> GameRecord:
        """The game so far; irregularities are comments on the moves they happened in."""
        rec = GameRecord(
            start=self.config.start,
            moves=[Move(m.player, m.square, m.time, m.eval, m.comment) for m in self.moves],
            result=self.result,
            draw_win_right=self.config.draw_winner(),
            comments=list(self.notes),
        )
        if self.config.mode is not Mode.HOME:
            rec.extra["mode"] = self.config.mode.value
        return rec

    # ------------------------------------------------------------ persistence
    def snapshot(self) -> dict[str, Any]:
        from controller.arbiter.persist import snapshot

        return snapshot(self)

    @classmethod
    def restore(cls, data: dict[str, Any]) -> Arbiter:
        from controller.arbiter.persist import restore

        return restore(cls, data)


def _comment(flags: Iterable[Flag]) -> str:
    return "; ".join(f"{f.kind.value} {' '.join(names(f.squares))}" for f in flags)


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
