"""The arbiter's irregularity flow (rule 5①) as one explicit state machine, one text per state.

A move with faults goes: flagged, and the opponent *may point it out* (press their
clock to hand the turn back); once *pointed out*, the offender must put the named
discs right and press; then it is *put right* (the offender's press still due) and
*corrected*, or it *stands* because the opponent played on, or the arbiter *ruled*.

Everything a person reads about an open irregularity — the table's page, the
terminal, the hub's card — is :meth:`Flow.step` of one :class:`Flow`: the same
words, naming the squares, the colours, whose clock and what to press. Several
faults in one move are one flow with one combined instruction.

Pure: no I/O, no clock (beside the vocabulary it speaks, :mod:`controller.irregularities`).
The arbiter builds its flow from its own state
(:func:`controller.arbiter.views.flow`); whoever only has the open flags as
JSON (the hub) builds the same one with :func:`of_flags`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any

from controller.events import Irregularity
from controller.irregularities import REPORT_ORDER, describe, fix, point_out


class Stage(StrEnum):
    CLEAR = "clear"  # nothing open
    MAY_POINT_OUT = "may_point_out"  # flagged: the opponent may point it out
    POINTED_OUT = "pointed_out"  # the offender must put it right, then press
    PUT_RIGHT = "put_right"  # all put right after the point-out; the offender's press is due
    CORRECTED = "corrected"  # put right, play goes on
    STANDS = "stands"  # not pointed out (or not put right): the board stands as it is
    RULED = "ruled"  # the arbiter ruled on the position

    @property
    def final(self) -> bool:
        return self in (Stage.CLEAR, Stage.CORRECTED, Stage.STANDS, Stage.RULED)


class FlowError(ValueError):
    """A transition the flow does not have in its current stage."""


@dataclass(frozen=True, slots=True)
class Fault:
    """One fault of the move: its kind, the squares it names, and the discs to put right
    (for an extra disc, the discs that are not the move)."""

    kind: Irregularity
    squares: tuple[str, ...]
    fix: tuple[str, ...] = ()

    def fix_squares(self) -> list[str]:
        return list(self.fix or self.squares)


@dataclass(frozen=True, slots=True)
class Step:
    """What the person must read now: the text, who acts next (a colour, or None when
    nothing is pending) and whose clock that person must press (None: no press).
    ``todo`` is the text without what happened (for a page that lists the faults
    above it): what to do next, in one instruction."""

    stage: Stage
    text: str
    who: str | None
    press: str | None
    todo: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"stage": self.stage.value, "text": self.text, "todo": self.todo or self.text,
                "who": self.who, "press": self.press}


def _cap(color: str) -> str:
    return color.capitalize()


def _other(color: str) -> str:
    return "white" if color == "black" else "black"


def _join(parts: list[str], last: str = "and") -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" {last} " + parts[-1]


@dataclass(frozen=True, slots=True)
class Flow:
    """The irregularity of one move and where its flow stands (immutable: each
    transition returns the next flow)."""

    stage: Stage = Stage.CLEAR
    offender: str | None = None  # "black" or "white"
    n: int | None = None  # the move's number (1–60 as on a kifu, passes counted)
    faults: tuple[Fault, ...] = ()

    # ------------------------------------------------------------ transitions
    def flagged(self, offender: str, n: int | None, faults: Iterable[Fault]) -> Flow:
        """A judged move with faults: whatever came before is over."""
        ordered = tuple(sorted(faults, key=lambda f: REPORT_ORDER[f.kind]))
        if not ordered:
            return Flow()
        return Flow(Stage.MAY_POINT_OUT, offender, n, ordered)

    def point_out(self) -> Flow:
        """The opponent pressed to hand the turn back. An illegal pass is put right by
        that press alone: the offender is to move again."""
        self._require(Stage.MAY_POINT_OUT)
        left = tuple(f for f in self.faults if f.kind is not Irregularity.ILLEGAL_PASS)
        if not left:
            return replace(self, stage=Stage.CORRECTED, faults=())
        return replace(self, stage=Stage.POINTED_OUT, faults=left)

    def put_right(self, kinds: Iterable[Irregularity]) -> Flow:
        """Some faults now show what they should on the board."""
        self._require(Stage.MAY_POINT_OUT, Stage.POINTED_OUT)
        gone = set(kinds)
        left = tuple(f for f in self.faults if f.kind not in gone)
        if left:
            return replace(self, faults=left)
        if self.stage is Stage.POINTED_OUT:
            return replace(self, stage=Stage.PUT_RIGHT, faults=())
        return replace(self, stage=Stage.CORRECTED, faults=())

    def offender_pressed(self) -> Flow:
        """The offender pressed after the point-out: what was not put right stands."""
        self._require(Stage.POINTED_OUT, Stage.PUT_RIGHT)
        if self.stage is Stage.PUT_RIGHT:
            return replace(self, stage=Stage.CORRECTED)
        return replace(self, stage=Stage.STANDS)

    def played_on(self) -> Flow:
        """The opponent's next move began without a point-out: the board stands."""
        self._require(Stage.MAY_POINT_OUT)
        return replace(self, stage=Stage.STANDS)

    def ruled(self) -> Flow:
        """The arbiter accepted the board or set the position: the flow is over."""
        if self.stage is Stage.CLEAR:
            return self
        return replace(self, stage=Stage.RULED, faults=())

    def _require(self, *stages: Stage) -> None:
        if self.stage not in stages:
            raise FlowError(f"no such step while the irregularity is {self.stage.value}")

    # ------------------------------------------------------------------ words
    def step(self) -> Step:
        """The one text of the current stage, with who acts and whose clock to press."""
        s = self.stage
        if s is Stage.CLEAR or self.offender is None:
            return Step(Stage.CLEAR, "", None, None)
        off, opp = self.offender, _other(self.offender)
        move = f"Move {self.n}" if self.n is not None else "The last move"
        if s is Stage.MAY_POINT_OUT:
            head = f"Move {self.n}: " if self.n is not None else ""
            what = "; ".join(describe(f.kind, off, list(f.squares)) for f in self.faults)
            todo = point_out(off, self.pointed(), self.fixes())
            return Step(s, f"{head}{what}. {todo}", opp, opp, todo)
        if s is Stage.POINTED_OUT:
            return Step(s, f"Pointed out: {self.fixes()}, then press {_cap(off)}'s clock.",
                        off, off)
        if s is Stage.PUT_RIGHT:
            return Step(s, f"Put right: {_cap(off)} must now press {_cap(off)}'s clock; "
                           f"then {_cap(opp)} is to move.", off, off)
        if s is Stage.CORRECTED:
            return Step(s, f"{move} was put right: play goes on.", None, None)
        if s is Stage.STANDS:
            return Step(s, f"{move} was not put right: the board stands as it is.", None, None)
        return Step(s, f"{move}: the arbiter has ruled on the position.", None, None)

    def pointed(self) -> str:
        """What the opponent names: every flagged square, or for a pass the legal moves."""
        if all(f.kind is Irregularity.ILLEGAL_PASS for f in self.faults):
            legal = [q for f in self.faults for q in f.squares]
            return f"that {_cap(self.offender or '')} can play {_join(legal, 'or')}"
        seen: list[str] = []
        for f in self.faults:
            seen += [q for q in f.squares if q not in seen]
        return _join(seen)

    def fixes(self) -> str:
        """``Black must turn the disc on e5 to black and take back the disc on a7``: every
        fault's correction in one sentence for the one offender."""
        assert self.offender is not None
        who = f"{_cap(self.offender)} must "
        parts = []
        for f in self.faults:
            text = fix(f.kind, self.offender, f.fix_squares())
            parts.append(text[len(who):] if text.startswith(who) else text)
        return who + _join(parts)


def fault_of(d: Mapping[str, Any]) -> Fault:
    """A fault from a flag as the snapshots and the hall's state carry it."""
    return Fault(Irregularity(str(d["kind"])), tuple(str(s) for s in d.get("squares", [])),
                 tuple(str(s) for s in d.get("fix", []) or []))


def of_flags(flags: Iterable[Mapping[str, Any]], put_right: str | None = None) -> Flow:
    """The flow the open flags (as JSON) say: pointed out if they say so. ``put_right``:
    the colour whose press is due after a point-out put right (no flag left open)."""
    items = list(flags)
    if not items:
        if put_right in ("black", "white"):
            return Flow(Stage.PUT_RIGHT, put_right)
        return Flow()
    first = items[0]
    n = first.get("n")
    flow = Flow().flagged(str(first.get("player")), n if isinstance(n, int) else None,
                          (fault_of(f) for f in items))
    if any(f.get("pointed_out") for f in items):
        flow = replace(flow, stage=Stage.POINTED_OUT, faults=tuple(
            f for f in flow.faults if f.kind is not Irregularity.ILLEGAL_PASS))
    return flow
