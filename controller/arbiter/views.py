"""What the arbiter shows: the LED overlay, the open flags, the game record.

Computed on demand from the arbiter's state (never per frame), and filtered by mode
where players may not be advised (rule 21).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.arbiter.config import ArbiterConfig, Mode
from controller.arbiter.corrections import CORRECTING, TURN, OpenMove, names
from controller.arbiter.judge import judge
from controller.arbiter.readings import StableBoard
from controller.events import Irregularity
from controller.irregular_flow import Fault, Flow, Stage
from controller.position import Position
from controller.records.model import GameRecord, Move


@dataclass(frozen=True)
class Overlay:
    """What an LED layer or web page could show now, before any mode filtering."""

    last_move: str | None
    pending: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    irregular: bool = False


class Views:
    """The arbiter's outputs other than events."""

    config: ArbiterConfig
    position: Position
    shifted: int
    stable: StableBoard
    phase: str
    open: OpenMove | None
    moves: list[Move]
    notes: list[str]
    result: tuple[int, int] | None
    last_move: str | None
    _challenged: OpenMove | None

    def flow(self) -> Flow:
        """Where the irregularity of the last move stands (rule 5①), for every output."""
        op = self.open
        if op is not None and op.flags:
            size = self.position.size
            flow = Flow().flagged(op.judgement.player.value, op.record_index + 1, (
                Fault(f.kind, tuple(names(f.squares, size)),
                      tuple(names(f.fix, size)) if f.kind is Irregularity.EXTRA_DISC else ())
                for f in op.flags))
            return flow.point_out() if op.challenged else flow
        if self.phase == CORRECTING and self._challenged is not None:
            return Flow(Stage.PUT_RIGHT, self._challenged.judgement.player.value,
                        self._challenged.record_index + 1)
        return Flow()

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
        size = self.position.size
        return Overlay(self.last_move, names(pending, size), names(wrong, size),
                       self.open is not None)

    def open_flags(self) -> list[dict[str, Any]]:
        """Irregularities flagged on the last move and not yet put right (arbiter's view)."""
        op = self.open
        if op is None:
            return []
        size = self.position.size
        return [
            {"player": op.judgement.player.value, "kind": f.kind.value,
             "squares": names(f.squares, size), "n": op.record_index + 1,
             "pointed_out": op.challenged,
             **({"fix": names(f.fix, size)} if f.kind is Irregularity.EXTRA_DISC else {})}
            for f in op.flags
        ]

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
