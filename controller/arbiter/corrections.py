"""Corrections (rule 5①): pointing a fault out, putting the board right, withdrawing a move.

After a move with irregularities the opponent may press their own button to hand
the turn back and name the discs; the mover corrects and presses again. The board
may also simply be put right before the opponent's next move. Either way each
irregularity is corrected (one ``corrected`` each, however many are put right in
one go) as soon as its squares show what they should; a move on an illegal square
is withdrawn once all of its faults are put right. Once the next move begins,
whatever was not put right stays on the board. An illegal pass is put right by the
opponent's pointing-out press, or by the offender simply playing and pressing again.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.arbiter.judge import Flag, Judgement, fixed
from controller.arbiter.readings import StableBoard
from controller.events import Event, Irregularity
from controller.events import corrected as corrected_event
from controller.events import pointed_out as pointed_out_event
from controller.position import Position
from controller.records.model import Move
from controller.squares import Color, squares_of

WAITING, TURN, CORRECTING, OVER = "waiting", "turn", "correcting", "over"


def names(mask: int, size: int) -> list[str]:
    return squares_of(mask, size)


@dataclass
class OpenMove:
    """The last judged move while its irregularities can still be corrected."""

    judgement: Judgement
    flags: list[Flag]
    record_index: int
    challenged: bool = False


class Corrections:
    """The part of the arbiter that handles a flagged move until the opponent moves on."""

    position: Position
    shifted: int
    stable: StableBoard
    phase: str
    open: OpenMove | None
    moves: list[Move]
    notes: list[str]
    last_move: str | None
    turn_t: float | None
    challenge_t: float | None
    _challenged: OpenMove | None
    _said: Event | None  # a point-out not yet told (it may still prove a pass)
    _fixed_any: bool
    _was_over: bool
    _first: int | None

    def _judge(self, t: float, player: Color, black: int, white: int, shifted: int
               ) -> list[Event]:
        raise NotImplementedError  # the arbiter's own judgement (core.Arbiter)

    def _end(self, t: float) -> list[Event]:
        raise NotImplementedError  # the arbiter's game end (core.Arbiter)

    def _challenge(self, t: float, op: OpenMove) -> list[Event]:
        """Rule 5①: the opponent presses to hand the turn back and points the fault out."""
        offender = op.judgement.player
        size = self.position.size
        flagged = 0
        for f in op.flags:
            flagged |= f.squares
        said = pointed_out_event(t, offender.value, names(flagged, size))
        flag = next((f for f in op.flags if f.kind is Irregularity.ILLEGAL_PASS), None)
        if flag is not None:
            events = [said, corrected_event(t, flag.kind, names(flag.squares, size),
                                            pointed_out=True)]
            self._void_open(op)
            self.position = self.position.with_to_move(offender)
            self.turn_t = t
            self.open = None
            if self.phase == OVER:
                self.phase = TURN
            return events
        op.challenged = True
        self._challenged = op
        self._fixed_any = False
        self.challenge_t = t
        self._was_over = self.phase == OVER
        self.phase = CORRECTING
        could_move = bool(self.position.with_to_move(offender.opponent).legal_moves())
        self.position = self.position.with_to_move(offender)
        if could_move:
            return [said]
        # The opponent had no move: the press may be their pass. It is said to be a
        # point-out once something is put right or the offender presses again unmoved.
        self._said = said
        return []

    def _pass_replaced(self, t: float, player: Color, op: OpenMove) -> list[Event]:
        """After an illegal pass the offender simply plays and presses again (the clock
        already runs on the opponent's side): the pass is withdrawn, the move judged."""
        sb = self.stable
        pos = self.position
        if not (sb.black | sb.white) & ~(pos.black | pos.white):
            return []  # pressed again without moving: the button does nothing
        flag = next(f for f in op.flags if f.kind is Irregularity.ILLEGAL_PASS)
        events = [corrected_event(t, flag.kind, names(flag.squares, self.position.size))]
        self._void_open(op)
        self.open = None
        self.position = pos.with_to_move(player)
        return events + self._judge(t, player, sb.black, sb.white, sb.shifted)

    def _end_correction(self, t: float, player: Color) -> list[Event]:
        """The offender presses after correcting (or after declining to)."""
        op = self._challenged
        sb = self.stable
        events: list[Event] = []
        self._challenged = None
        said, self._said = self._said, None
        if op is not None and not self._fixed_any and self._opponent_began(op):
            # Nothing was corrected and the offender made a new move: the opponent's
            # press was a pass after all, not a challenge.
            opp = player.opponent
            ct = self.challenge_t if self.challenge_t is not None else t
            pos = self.position.with_to_move(opp)
            self.open = None
            first = self._first
            events.extend(self._judge(ct, opp, pos.black, pos.white, self.shifted))
            self._first = first
            self.phase = TURN
            events.extend(self._judge(t, player, sb.black, sb.white, sb.shifted))
            return events
        if said is not None:
            events.append(said)
        if op is not None and self.open is op:
            # The offender pressed without putting everything right: what was not put
            # right stands, and nothing more is asked of them.
            self.open = None
        # The board as it stands is now the official one; the opponent is to move.
        self.position = Position(sb.black, sb.white, player.opponent, self.position.size)
        self.shifted = sb.shifted
        self.turn_t = t
        was_over = self._was_over
        self.phase = OVER if was_over and self.position.is_game_over() else TURN
        if self.phase == TURN and self.position.is_game_over():
            events.extend(self._end(t))
        return events


    def _check_corrections(self, t: float) -> list[Event]:
        op = self.open
        assert op is not None
        sb = self.stable
        passed = any(f.kind is Irregularity.ILLEGAL_PASS for f in op.flags)
        if not passed and self._opponent_began(op):
            # The next move has begun: what was not put right stays on the board.
            self.open = None
            if self.position.is_game_over():
                return self._end(t)
            if op.judgement.void and not any(
                    f.kind is Irregularity.ILLEGAL_SQUARE for f in op.flags):
                # The illegal disc went back and the offender plays again at once.
                self._void_open(op)
                self.position = self.position.with_to_move(op.judgement.player)
                self.phase = TURN
            return []
        correct = op.judgement.correct
        done = [f for f in op.flags
                if f.kind is not Irregularity.ILLEGAL_PASS
                and fixed(f, correct, sb.black, sb.white, sb.shifted)]
        if not done:
            return []
        size = self.position.size
        events = [] if self._said is None else [self._said]
        self._said = None
        events += [corrected_event(t, f.kind, names(f.squares, size), pointed_out=op.challenged)
                   for f in done]
        self._fixed_any = True
        pos = self.position
        black, white = pos.black, pos.white
        for f in done:
            m = f.fix
            black = (black & ~m) | (correct.black & m)
            white = (white & ~m) | (correct.white & m)
            self.shifted = (self.shifted & ~m) | (sb.shifted & m)  # as put back
            op.flags.remove(f)
        self._note_corrected(op, done)
        self.position = Position(black, white, pos.to_move, pos.size)
        if op.flags:
            return events  # partly put right: the end is only judged on the whole board
        self.open = None
        if op.judgement.void:
            # An illegal square put right: the move is void, the offender plays again
            # from the position before it.
            self._void_open(op)
            self._first = None
            self.position = Position(correct.black, correct.white, op.judgement.player,
                                     correct.size)
            self.shifted = sb.shifted
            self.phase = TURN
            return events
        if self.position.is_game_over():
            events.extend(self._end(t))
        elif self.phase == OVER:
            self.phase = TURN
        return events

    def _opponent_began(self, op: OpenMove) -> bool:
        """A disc appeared that is not a removed disc being put back: a new move began."""
        sb = self.stable
        back = 0
        for f in op.flags:
            if f.kind is Irregularity.REMOVED_DISC:
                back |= f.squares
        return bool((sb.black | sb.white) & ~(self.position.black | self.position.white) & ~back)

    def _void_open(self, op: OpenMove) -> None:
        idx = op.record_index
        if idx < len(self.moves):
            mv = self.moves.pop(idx)
            how = "after it was pointed out" if op.challenged else "unprompted"
            self.notes.append(
                f"{mv.player.value} {mv.square or 'pass'} withdrawn {how} ({mv.comment})"
            )
        self.last_move = next((m.square for m in reversed(self.moves) if m.square), None)

    def _note_corrected(self, op: OpenMove, done: list[Flag]) -> None:
        idx = op.record_index
        if idx < len(self.moves):
            mv = self.moves[idx]
            extra = "; ".join(f"{f.kind.value} corrected" for f in done)
            mv.comment = f"{mv.comment}; {extra}" if mv.comment else extra
