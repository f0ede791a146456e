"""Corrections (rule 5①): pointing a fault out, putting the board right, withdrawing a move.

After a move with irregularities the opponent may press their own button to hand
the turn back and name the discs; the mover corrects and presses again. The board
may also simply be put right before the opponent's next move. Either way each
irregularity is corrected (one ``corrected`` each, however many are put right in
one go) as soon as its squares show what they should; a move on an illegal square
is withdrawn once all of its faults are put right, and so is a move out of turn,
once its disc is taken back and what it turned turned back: the side that was on
move then plays from the position before it (after a point-out, once the offender
has pressed to hand the turn back). Once the next move begins, whatever was not put
right stays on the board (a move out of turn too: the side that was on move has
played on from it, and the turns go on from there). An illegal pass is put right by the
opponent's pointing-out press, or by the offender simply playing and pressing again.
"""

from __future__ import annotations

from controller.arbiter.config import ArbiterConfig
from controller.arbiter.judge import Flag, fixed
from controller.arbiter.state import CORRECTING, OVER, TURN, ArbiterState, OpenMove, names
from controller.arbiter.turns import end_game, judge_turn
from controller.events import Event, Irregularity
from controller.events import corrected as corrected_event
from controller.events import pointed_out as pointed_out_event
from controller.position import Position
from controller.squares import Color


def challenge(s: ArbiterState, t: float, op: OpenMove) -> list[Event]:
    """Rule 5①: the opponent presses to hand the turn back and points the fault out."""
    offender = op.judgement.player
    size = s.position.size
    flagged = 0
    for f in op.flags:
        flagged |= f.squares
    said = pointed_out_event(t, offender.value, names(flagged, size))
    flag = next((f for f in op.flags if f.kind is Irregularity.ILLEGAL_PASS), None)
    if flag is not None:
        events = [said, corrected_event(t, flag.kind, names(flag.squares, size),
                                        pointed_out=True)]
        _void_open(s, op)
        s.position = s.position.with_to_move(offender)
        s.turn_t = t
        s.open = None
        if s.phase == OVER:
            s.phase = TURN
        return events
    op.challenged = True
    s.challenged = op
    s.fixed_any = False
    s.challenge_t = t
    s.was_over = s.phase == OVER
    s.phase = CORRECTING
    could_move = bool(s.position.with_to_move(offender.opponent).legal_moves())
    s.position = s.position.with_to_move(offender)
    if could_move:
        return [said]
    # The opponent had no move: the press may be their pass. It is said to be a
    # point-out once something is put right or the offender presses again unmoved.
    s.said = said
    return []


def pass_replaced(s: ArbiterState, config: ArbiterConfig, t: float, player: Color,
                  op: OpenMove) -> list[Event]:
    """After an illegal pass the offender simply plays and presses again (the clock
    already runs on the opponent's side): the pass is withdrawn, the move judged."""
    sb = s.stable
    pos = s.position
    if not (sb.black | sb.white) & ~(pos.black | pos.white):
        return []  # pressed again without moving: the button does nothing
    flag = next(f for f in op.flags if f.kind is Irregularity.ILLEGAL_PASS)
    events = [corrected_event(t, flag.kind, names(flag.squares, s.position.size))]
    _void_open(s, op)
    s.open = None
    s.position = pos.with_to_move(player)
    return events + judge_turn(s, config, t, player, sb.black, sb.white, sb.shifted)


def end_correction(s: ArbiterState, config: ArbiterConfig, t: float, player: Color
                   ) -> list[Event]:
    """The offender presses after correcting (or after declining to)."""
    op = s.challenged
    sb = s.stable
    events: list[Event] = []
    s.challenged = None
    said, s.said = s.said, None
    if op is not None and not s.fixed_any and _opponent_began(s, op):
        # Nothing was corrected and the offender made a new move: the opponent's
        # press was a pass after all, not a challenge.
        opp = player.opponent
        ct = s.challenge_t if s.challenge_t is not None else t
        pos = s.position.with_to_move(opp)
        s.open = None
        first = s.first
        events.extend(judge_turn(s, config, ct, opp, pos.black, pos.white, s.shifted))
        s.first = first
        s.phase = TURN
        events.extend(judge_turn(s, config, t, player, sb.black, sb.white, sb.shifted))
        return events
    if said is not None:
        events.append(said)
    if op is not None and s.open is op:
        # The offender pressed without putting everything right: what was not put
        # right stands, and nothing more is asked of them.
        s.open = None
    # The board as it stands is now the official one; the opponent is to move.
    s.position = Position(sb.black, sb.white, player.opponent, s.position.size)
    s.shifted = sb.shifted
    s.turn_t = t
    was_over = s.was_over
    s.phase = OVER if was_over and s.position.is_game_over() else TURN
    if s.phase == TURN and s.position.is_game_over():
        events.extend(end_game(s, config, t))
    return events


def check_corrections(s: ArbiterState, config: ArbiterConfig, t: float) -> list[Event]:
    """A confirmed square changed while a flagged move is open: what it put right."""
    op = s.open
    assert op is not None
    sb = s.stable
    passed = any(f.kind is Irregularity.ILLEGAL_PASS for f in op.flags)
    if not passed and _opponent_began(s, op):
        # The next move has begun: what was not put right stays on the board.
        s.open = None
        if s.position.is_game_over():
            return end_game(s, config, t)
        if op.judgement.void and not any(
                f.kind is Irregularity.ILLEGAL_SQUARE for f in op.flags):
            # The illegal disc went back and the offender plays again at once.
            _void_open(s, op)
            s.position = s.position.with_to_move(op.judgement.player)
            s.phase = TURN
        return []
    correct = op.judgement.correct
    done = [f for f in op.flags
            if f.kind is not Irregularity.ILLEGAL_PASS
            and fixed(f, correct, sb.black, sb.white, sb.shifted)]
    if not done:
        return []
    size = s.position.size
    events = [] if s.said is None else [s.said]
    s.said = None
    events += [corrected_event(t, f.kind, names(f.squares, size), pointed_out=op.challenged)
               for f in done]
    s.fixed_any = True
    pos = s.position
    black, white = pos.black, pos.white
    for f in done:
        m = f.fix
        black = (black & ~m) | (correct.black & m)
        white = (white & ~m) | (correct.white & m)
        s.shifted = (s.shifted & ~m) | (sb.shifted & m)  # as put back
        op.flags.remove(f)
    _note_corrected(s, op, done)
    s.position = Position(black, white, pos.to_move, pos.size)
    if op.flags:
        return events  # partly put right: the end is only judged on the whole board
    s.open = None
    if op.judgement.out_of_turn:
        # Withdrawn: the position before it, the side to move as it is now (the one
        # that was on move; after a point-out the offender, whose press is due).
        _void_open(s, op)
        s.first = None
        s.position = Position(correct.black, correct.white, pos.to_move, correct.size)
        s.shifted = sb.shifted
        return events
    if op.judgement.void:
        # An illegal square put right: the move is void, the offender plays again
        # from the position before it.
        _void_open(s, op)
        s.first = None
        s.position = Position(correct.black, correct.white, op.judgement.player,
                              correct.size)
        s.shifted = sb.shifted
        s.phase = TURN
        return events
    if s.position.is_game_over():
        events.extend(end_game(s, config, t))
    elif s.phase == OVER:
        s.phase = TURN
    return events


def _opponent_began(s: ArbiterState, op: OpenMove) -> bool:
    """A disc appeared that is not a removed disc being put back: a new move began."""
    sb = s.stable
    back = 0
    for f in op.flags:
        if f.kind is Irregularity.REMOVED_DISC:
            back |= f.squares
    return bool((sb.black | sb.white) & ~(s.position.black | s.position.white) & ~back)


def _void_open(s: ArbiterState, op: OpenMove) -> None:
    idx = op.record_index
    if idx < len(s.moves):
        mv = s.moves.pop(idx)
        how = "after it was pointed out" if op.challenged else "unprompted"
        s.notes.append(
            f"{mv.player.value} {mv.square or 'pass'} withdrawn {how} ({mv.comment})"
        )
    s.last_move = next((m.square for m in reversed(s.moves) if m.square), None)


def _note_corrected(s: ArbiterState, op: OpenMove, done: list[Flag]) -> None:
    idx = op.record_index
    if idx < len(s.moves):
        mv = s.moves[idx]
        extra = "; ".join(f"{f.kind.value} corrected" for f in done)
        mv.comment = f"{mv.comment}; {extra}" if mv.comment else extra
