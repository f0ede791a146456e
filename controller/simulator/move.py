"""The mover's own move on the simulated board: drawn clean or faulty, acted out, put
right or left, pressed, and told as the truth an arbiter must find.

A fault is only drawn where the board can tell its truth (:meth:`Mover.ambiguous`);
where it cannot, the faulty disc is drawn again and, failing that, the move is played
clean. Turns that are not a variation of the mover's move (an illegal pass, a move out
of turn) are the game's (:mod:`controller.simulator.game`); they share the
:class:`Progress` and the truth-telling here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.events import Event, Irregularity
from controller.events import corrected as corrected_event
from controller.events import irregularity as irregularity_event
from controller.events import move as move_event
from controller.events import pass_ as pass_event
from controller.events import pointed_out as pointed_out_event
from controller.irregularities import REPORT_ORDER
from controller.position import Position
from controller.simulator.hand import Hand
from controller.simulator.plan import (
    COMBOS,
    Injected,
    Plan,
    combine,
    correct_plan,
    draw_fix,
    inject,
)
from controller.squares import Color, square_name

K = Irregularity


@dataclass
class Progress:
    """Where the game stands and what has been told of it: what every turn reads and
    changes, whichever module plays it."""

    pos: Position
    truth: list[Event] = field(default_factory=list)  # the events a perfect arbiter emits
    injected: list[Injected] = field(default_factory=list)
    number: int = 0  # the move being played
    left_open: bool = False  # the last move's irregularity was left on the board
    unpressed: Plan | None = None  # a clean move whose press was forgotten
    pass_replaced: list[str] | None = None  # an illegal pass the offender replaces


def names(squares: list[int], size: int) -> list[str]:
    """``squares`` as the events name them, in board order."""
    return [square_name(q, size) for q in sorted(squares)]


class Mover:
    """Plays the side to move's own move into ``progress``, the hand at work on the table."""

    def __init__(self, progress: Progress, hand: Hand, rng: random.Random, clock: bool,
                 habits: bool) -> None:
        self.progress = progress
        self.hand = hand
        self.table = hand.table
        self.size = hand.size
        self.rng = rng
        self.clock = clock
        self.habits = habits

    def position_of(self, cells: list[str], to_move: Color) -> Position:
        return Position.from_board_string("".join(cells).upper(), to_move, self.size)

    def second_fault(self, kind: Irregularity, plan: Plan, sq: int) -> Plan:
        """Now and then a second fault in the same move (``habits``)."""
        rng, pos = self.rng, self.progress.pos
        if not self.habits:
            if kind is K.FORGOTTEN_FLIP and rng.random() < 0.3:
                other = inject(K.OVER_FLIP, pos, sq, self.table.cells, rng)
                if other is not None:
                    plan = combine(plan, other) or plan
            return plan
        pairs = [b for a, b in COMBOS if a is kind]
        if not pairs or rng.random() >= 0.3:
            return plan
        other = inject(rng.choice(pairs), pos, sq, self.table.cells, rng)
        both = combine(plan, other) if other is not None else None
        return both or plan

    def forgets_press(self, plan: Plan, flags: dict[Irregularity, list[int]]) -> bool:
        """A clean move left without pressing the clock (``habits``); the opponent then
        moves and presses, so their press shows two moves."""
        progress = self.progress
        if not (self.habits and self.clock) or flags:
            return False
        if progress.unpressed is not None or progress.pass_replaced is not None:
            return False
        after = progress.pos.play(plan.square)
        return bool(after.legal_moves()) and self.rng.random() < 0.03

    def judged(self, t: float, plan: Plan, flags: dict[Irregularity, list[int]]) -> None:
        """The truth of a move pressed at ``t``: the move, then each of ``flags``."""
        progress, me = self.progress, plan.player.value
        if progress.pass_replaced is not None:  # the offender's press withdraws the pass
            progress.truth.append(corrected_event(t, K.ILLEGAL_PASS, progress.pass_replaced))
            progress.pass_replaced = None
        progress.truth.append(move_event(t, me, square_name(plan.square, self.size),
                                         names(plan.flips, self.size)))
        for kind in sorted(flags, key=REPORT_ORDER.__getitem__):
            progress.truth.append(irregularity_event(t, me, kind, names(flags[kind], self.size)))

    def play(self, sq: int, kind: Irregularity | None) -> None:
        """The side to move plays ``sq``, with a fault of ``kind`` if the board can tell it."""
        table, clock, rng, progress = self.table, self.clock, self.rng, self.progress
        me = progress.pos.to_move
        good = correct_plan(progress.pos, sq)
        correct_after = progress.pos.play(sq)
        plan = None
        for _ in range(8 if kind is not None and not correct_after.is_game_over() else 0):
            plan = inject(kind, progress.pos, sq, table.cells, rng)  # type: ignore[arg-type]
            if plan is None:
                break
            plan = self.second_fault(kind, plan, sq)  # type: ignore[arg-type]
            after = self.position_of(plan.after(table.cells), me.opponent)
            if not (after.is_game_over() or self.ambiguous(plan, after)):
                break
            plan = None  # draw the faulty disc again
        if plan is None:
            self.hand.perform(good, progress.pos)
            self.finish_turn(good, {})
            return
        fix = draw_fix(kind, self.rng, self.habits, self.clock)  # type: ignore[arg-type]
        before = table.cells[:]
        progress.injected.append(Injected(
            progress.number, me, {k.value: names(v, self.size) for k, v in plan.flags.items()},
            fix))
        self.hand.perform(plan, progress.pos)
        if fix == "none":
            self.finish_turn(plan, plan.flags)
            progress.left_open = True
            return
        if fix == "mover" or not clock:
            if fix == "opponent":
                table.think()  # the opponent points it out; the mover puts it right
            self.hand.repair(plan, before)
            if K.ILLEGAL_SQUARE in plan.flags:
                self.hand.perform(good, progress.pos)
            self.finish_turn(good, {})
            return
        t = table.press(me)
        self.judged(t, plan, plan.flags)
        if fix == "after":  # seen after the press and put right before the opponent moves
            table.still(2)
        else:  # rule 5①: the opponent presses back and points it out
            table.think()
            said = table.press(me.opponent)
            flagged = sorted({q for squares in plan.flags.values() for q in squares})
            progress.truth.append(pointed_out_event(said, me.value, names(flagged, self.size)))
        self.hand.repair(plan, before)
        for kind_ in sorted(plan.flags, key=REPORT_ORDER.__getitem__):
            progress.truth.append(corrected_event(
                table.t, kind_, names(plan.flags[kind_], self.size),
                pointed_out=fix == "opponent"))
        if K.ILLEGAL_SQUARE in plan.flags:
            self.hand.perform(good, progress.pos)
            self.finish_turn(good, {})
            return
        if fix == "opponent":
            table.press(me)
        progress.pos = self.position_of(table.cells, me.opponent)

    def ambiguous(self, plan: Plan, after: Position) -> bool:
        """Faults whose truth the board cannot tell.

        A disc the opponent plays where one was just removed reads as it put back.
        Without a clock, a second disc of the mover's colour when the opponent must
        pass after the right move is the mover's next move (docs/arbiter.md: the next
        move begins when a disc of the next mover's colour appears), and whether the
        opponent must pass is read on the right board.
        """
        removed = plan.flags.get(K.REMOVED_DISC)
        if removed and (after.legal_moves() | after.opponent_moves()) >> removed[0] & 1:
            return True
        if self.clock:
            return False
        if K.ILLEGAL_SQUARE in plan.flags:
            return not after.legal_moves()
        right = self.progress.pos.play(plan.square)
        if K.EXTRA_DISC in plan.flags and not right.legal_moves():
            return True
        # Who moves next is read on the board the move should leave; a fault left on
        # the board that changes it has no truth without a clock.
        return bool(right.legal_moves()) != bool(after.legal_moves())

    def finish_turn(self, plan: Plan, flags: dict[Irregularity, list[int]]) -> None:
        """The press that ends the move (or, forgotten, the opponent's that ends both)."""
        progress, me = self.progress, plan.player
        if self.forgets_press(plan, flags):
            progress.unpressed = plan  # judged when the opponent's press shows both moves
            progress.pos = progress.pos.play(plan.square)
            return
        t = self.table.press(me) if self.clock else self.table.t
        if progress.unpressed is not None:
            self.judged(t, progress.unpressed, {})
            progress.unpressed = None
        self.judged(t, plan, flags)
        progress.pos = self.position_of(self.table.cells, me.opponent)
        if not self.clock and not progress.pos.legal_moves() and progress.pos.opponent_moves():
            progress.truth.append(pass_event(t, progress.pos.to_move.value))
            progress.pos = progress.pos.pass_turn()
