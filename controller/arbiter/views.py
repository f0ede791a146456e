"""What the arbiter shows: the LED overlay, the open flags, the game record.

Computed on demand from the arbiter's state (never per frame), and filtered by mode
where players may not be advised (rule 21).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.arbiter.config import ArbiterConfig, Mode
from controller.arbiter.judge import judge
from controller.arbiter.state import CORRECTING, TURN, ArbiterState, names
from controller.events import Irregularity
from controller.irregular_flow import Fault, Flow, Stage
from controller.records.model import GameRecord, Move


@dataclass(frozen=True)


class Overlay:
    """What an LED layer or web page could show now, before any mode filtering."""

    last_move: str | None
    pending: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    irregular: bool = False


def flow(s: ArbiterState) -> Flow:
    """Where the irregularity of the last move stands (rule 5①), for every output."""
    op = s.open
    if op is not None and op.flags:
        size = s.position.size
        flagged = Flow().flagged(op.judgement.player.value, op.record_index + 1, (
            Fault(f.kind, tuple(names(f.squares, size)),
                  tuple(names(f.fix, size)) if f.kind is Irregularity.EXTRA_DISC else ())
            for f in op.flags))
        return flagged.point_out() if op.challenged else flagged
    if s.phase == CORRECTING and s.challenged is not None:
        return Flow(Stage.PUT_RIGHT, s.challenged.judgement.player.value,
                    s.challenged.record_index + 1)
    return Flow()


def overlay(s: ArbiterState) -> Overlay:
    """Pending and wrong discs for the LEDs, computed on demand (never per frame)."""
    sb = s.stable
    pending = wrong = 0
    op = s.open
    if op is not None:
        for f in op.flags:
            if f.kind is Irregularity.FORGOTTEN_FLIP:
                pending |= f.squares
            elif f.kind is not Irregularity.ILLEGAL_PASS:
                wrong |= f.fix or f.squares
    elif s.phase == TURN:
        occ0 = s.position.black | s.position.white
        if (sb.black | sb.white) & ~occ0:
            j = judge(s.position, s.shifted, s.position.to_move,
                      sb.black, sb.white, sb.shifted)
            for f in j.flags:
                if f.kind is Irregularity.FORGOTTEN_FLIP:
                    pending |= f.squares
                elif f.kind is not Irregularity.ILLEGAL_SQUARE:
                    wrong |= f.fix or f.squares
                else:
                    wrong |= f.squares
    size = s.position.size
    return Overlay(s.last_move, names(pending, size), names(wrong, size),
                   s.open is not None)


def open_flags(s: ArbiterState) -> list[dict[str, Any]]:
    """Irregularities flagged on the last move and not yet put right (arbiter's view)."""
    op = s.open
    if op is None:
        return []
    size = s.position.size
    return [
        {"player": op.judgement.player.value, "kind": f.kind.value,
         "squares": names(f.squares, size), "n": op.record_index + 1,
         "pointed_out": op.challenged,
         **({"fix": names(f.fix, size)} if f.kind is Irregularity.EXTRA_DISC else {})}
        for f in op.flags
    ]


def record(s: ArbiterState, config: ArbiterConfig) -> GameRecord:
    """The game so far; irregularities are comments on the moves they happened in."""
    rec = GameRecord(
        start=config.start,
        moves=[Move(m.player, m.square, m.time, m.eval, m.comment) for m in s.moves],
        result=s.result,
        draw_win_right=config.draw_winner(),
        comments=list(s.notes),
    )
    if config.mode is not Mode.HOME:
        rec.extra["mode"] = config.mode.value
    return rec
