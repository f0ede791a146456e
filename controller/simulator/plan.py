"""Irregularities to inject: what the hand does differently, and what an arbiter must say.

Each plan changes one move the way real players get it wrong, and carries the
exact ground truth — the kinds and squares the tournament rules make a player
name when pointing the fault out. Plans are only drawn where their truth is
unambiguous on the board (for example, an over-flip never turns a disc the move
turns anyway). Who puts a fault right, and when, is drawn here too (:func:`draw_fix`),
and :class:`Injected` records each fault as it was played.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.bitboard import bit_indices as bits
from controller.events import Irregularity
from controller.position import Position
from controller.simulator.table import neighbours
from controller.squares import Color

K = Irregularity

#: Kinds a board without a clock can show: without a press there is no pass to
#: judge, and a disc of the other colour appearing is how the next move begins
#: (docs/arbiter.md, "When a move is judged"), so a wrong-colour disc cannot be told
#: from it.
NO_CLOCK_KINDS = (
    K.FORGOTTEN_FLIP, K.OVER_FLIP, K.ILLEGAL_SQUARE, K.EXTRA_DISC, K.REMOVED_DISC,
    K.SHIFTED_DISC,
)
#: With a clock, a press also says who moved: a move out of turn is the opponent's
#: move pressed while the mover's time runs.
CLOCK_KINDS = (
    K.FORGOTTEN_FLIP, K.OVER_FLIP, K.WRONG_COLOR, K.ILLEGAL_SQUARE, K.REMOVED_DISC,
    K.SHIFTED_DISC, K.EXTRA_DISC, K.ILLEGAL_PASS, K.OUT_OF_TURN,
)
#: Kinds drawn only with ``SimOptions.habits``, so that the default stream (the demo's
#: and the hall's pinned seeds) keeps its story.
HABIT_KINDS = (K.OUT_OF_TURN,)
#: Two faults in one move, as players make them together (``SimOptions.habits``):
#: the second drawn on the first's plan where their squares do not meet.
COMBOS = (
    (K.FORGOTTEN_FLIP, K.OVER_FLIP), (K.FORGOTTEN_FLIP, K.REMOVED_DISC),
    (K.FORGOTTEN_FLIP, K.EXTRA_DISC), (K.FORGOTTEN_FLIP, K.SHIFTED_DISC),
    (K.OVER_FLIP, K.REMOVED_DISC), (K.OVER_FLIP, K.SHIFTED_DISC), (K.OVER_FLIP, K.EXTRA_DISC),
    (K.ILLEGAL_SQUARE, K.OVER_FLIP),
)


@dataclass(frozen=True)
class Injected:
    """One injected fault: move number, who, the kinds and squares, and who corrected it."""

    number: int
    player: Color
    flags: dict[str, list[str]]
    #: "none" (left on the board), "mover" (put right before the press), "opponent"
    #: (pointed out by the opponent's press, rule 5①), "after" (put right after the
    #: press, before the opponent moves), "self" (an illegal pass: the offender plays
    #: and presses again). For a move out of turn the offender is the opponent of the
    #: side to move, and "opponent" is the side to move pointing it out.
    fix: str


def char(color: Color, shifted: bool = False) -> str:
    c = color.symbol
    return c.lower() if shifted else c


@dataclass
class Plan:
    """How one move is physically played. ``flags``: kind -> squares an arbiter must name."""

    player: Color
    square: int  # the disc put down
    place: str  # what it shows
    turns: list[int]  # discs turned to the mover's colour
    actions: list[tuple[int, str]] = field(default_factory=list)  # further touches
    flags: dict[Irregularity, list[int]] = field(default_factory=dict)
    flips: list[int] = field(default_factory=list)  # what the rules turn (for the move event)

    def after(self, cells: list[str]) -> list[str]:
        out = cells[:]
        out[self.square] = self.place
        for q in self.turns:
            out[q] = char(self.player)
        for q, c in self.actions:
            out[q] = c
        return out


def correct_plan(pos: Position, square: int) -> Plan:
    f = bits(pos.flips(square))
    return Plan(pos.to_move, square, char(pos.to_move), f[:], flips=f)


def inject(kind: Irregularity, pos: Position, square: int, cells: list[str],
           rng: random.Random) -> Plan | None:
    """A plan for ``kind`` on the move ``square`` in ``pos``, or None where it cannot happen.

    A move out of turn is not a variation of that move but the opponent's: a legal move
    of theirs, played as the rules turn it, after which the side to move can still play
    (a press without a move would read as pointing it out)."""
    plan = correct_plan(pos, square)
    me, you = pos.to_move, pos.to_move.opponent
    flips = plan.flips
    if kind is K.FORGOTTEN_FLIP:
        k = 2 if len(flips) >= 3 and rng.random() < 0.3 else 1
        forgot = sorted(rng.sample(flips, k))
        plan.turns = [q for q in flips if q not in forgot]
        plan.flags[kind] = forgot
    elif kind is K.OVER_FLIP:
        q = _over_target(pos, square, flips, cells, rng)
        if q is None:
            return None
        plan.actions.append((q, char(me)))
        plan.flags[kind] = [q]
    elif kind is K.WRONG_COLOR:
        plan.place = char(you)
        plan.flags[kind] = [square]
    elif kind is K.ILLEGAL_SQUARE:
        bad = bits(pos.empty & ~pos.legal_moves())
        if not bad:
            return None
        e = rng.choice(bad)
        plan = Plan(me, e, char(me), [], flags={kind: [e]})
    elif kind is K.EXTRA_DISC:
        # Only where no move is: two discs on legal squares do not say which is the move.
        spare = [q for q in bits(pos.empty & ~pos.legal_moves()) if q != square]
        if not spare:
            return None
        e = rng.choice(spare)
        plan.actions.append((e, char(me)))
        plan.flags[kind] = sorted([square, e])
    elif kind is K.REMOVED_DISC:
        keep = set(flips) | {square}
        occupied = [q for q in bits(pos.black | pos.white) if q not in keep]
        q = rng.choice(occupied)
        plan.actions.append((q, "-"))
        plan.flags[kind] = [q]
    elif kind is K.OUT_OF_TURN:
        theirs = pos.with_to_move(you)
        options = [q for q in bits(theirs.legal_moves()) if theirs.play(q).legal_moves()]
        if not options:
            return None
        e = rng.choice(options)
        turned = bits(theirs.flips(e))
        plan = Plan(you, e, char(you), turned[:], flags={kind: [e]}, flips=turned)
    elif kind is K.SHIFTED_DISC:
        q = rng.choice([square, *flips])
        if q == square:
            plan.place = plan.place.lower()
        else:
            plan.actions.append((q, char(me, shifted=True)))
        plan.flags[kind] = [q]
    else:
        return None
    return plan


def draw_fix(kind: Irregularity, rng: random.Random, habits: bool, clock: bool) -> str:
    """Who puts a fault of ``kind`` right, and when (see :class:`Injected`)."""
    r = rng.random()
    if kind is K.OUT_OF_TURN:  # pointed out, taken back unprompted, or played on
        return "opponent" if r < 0.4 else "after" if r < 0.6 else "none"
    if habits:
        if kind is K.ILLEGAL_PASS:
            return "opponent" if r < 0.3 else "self" if r < 0.65 else "none"
        fix = "none" if r < 0.35 else "mover" if r < 0.55 else "opponent" if r < 0.8 \
            else "after"
        return fix if clock or fix != "after" else "mover"
    if kind is K.ILLEGAL_PASS:
        return "opponent" if r < 0.4 else "none"
    return "none" if r < 0.5 else "mover" if r < 0.75 else "opponent"


def combine(first: Plan, second: Plan) -> Plan | None:
    """Two faults in the same move, or None where their squares meet (the truth would
    no longer be what each names on its own)."""
    def touched(plan: Plan) -> set[int]:
        return {q for qs in plan.flags.values() for q in qs} | {q for q, _ in plan.actions}

    if touched(first) & touched(second) - {first.square}:
        return None
    if second.square != first.square and second.actions and any(
            q == first.square for q, _ in second.actions):
        return None
    out = Plan(first.player, first.square, first.place, first.turns[:], first.actions[:],
               dict(first.flags), first.flips)
    if second.place != first.place and second.square == first.square:
        out.place = second.place  # the new disc left off-centre
    out.turns = [q for q in out.turns if q in second.turns or q not in second.flips]
    out.actions.extend(second.actions)
    out.flags.update(second.flags)
    if K.SHIFTED_DISC in second.flags:
        shifted = second.flags[K.SHIFTED_DISC][0]
        if shifted != out.square and shifted not in out.turns:
            return None  # the flip it would leave off-centre is forgotten
    return out


def _over_target(pos: Position, square: int, flips: list[int], cells: list[str],
                 rng: random.Random) -> int | None:
    you = pos.discs(pos.to_move.opponent)
    near = {n for q in (square, *flips) for n in neighbours(pos.size)[q]}
    options = [q for q in near if you >> q & 1 and q not in flips and cells[q].isupper()]
    if not options:
        options = [q for q in bits(you) if q not in flips and cells[q].isupper()]
    return rng.choice(sorted(options)) if options else None


def fix_actions(plan: Plan, before: list[str]) -> list[tuple[int, str]]:
    """Touches that put a flagged move right (an illegal square: the disc is taken back;
    a move out of turn: the disc taken back and what it turned turned back)."""
    me = plan.player
    out: list[tuple[int, str]] = []
    for kind, squares in plan.flags.items():
        for q in squares:
            if kind is K.FORGOTTEN_FLIP or kind is K.WRONG_COLOR:
                out.append((q, char(me)))
            elif kind is K.OVER_FLIP:
                out.append((q, before[q].upper()))
            elif kind is K.ILLEGAL_SQUARE:
                out.append((q, "-"))
            elif kind is K.OUT_OF_TURN:
                out.append((q, "-"))
                out.extend((f, before[f]) for f in plan.turns)
            elif kind is K.EXTRA_DISC and q != plan.square:
                out.append((q, "-"))
            elif kind is K.REMOVED_DISC:
                out.append((q, before[q]))
            elif kind is K.SHIFTED_DISC:
                out.append((q, char(me)))
    return out
