"""The player's hand acting out a plan on the simulated board, disc by disc.

A plan says what a move leaves on the board (:mod:`controller.simulator.plan`); the
hand says how it gets there as a sensor watches: the new disc put down, the flips
turned one at a time in any order, now and then a disc fumbled and put back, and a
flagged move put right again. What it does is never judged: the truth about a move
is the game's (:mod:`controller.simulator.move`), whatever the hand did on the way.
"""

from __future__ import annotations

import random

from controller.irregularities import REPORT_ORDER
from controller.position import Position
from controller.simulator.plan import Plan, char, fix_actions
from controller.simulator.table import Table, neighbours


class Hand:
    """Touches on ``table``, drawn from the game's own ``rng`` so a seed keeps its log.

    ``habits`` adds what real players do (a disc pushed onto its square, one of the
    mover's colour put down and taken back, every fault put right at once); ``clock``
    says whether a disc of the mover's colour may be put down by mistake anywhere."""

    def __init__(self, table: Table, rng: random.Random, size: int, habits: bool,
                 clock: bool) -> None:
        self.table = table
        self.rng = rng
        self.size = size
        self.habits = habits
        self.clock = clock

    def perform(self, plan: Plan, pos: Position) -> None:
        """Place, turn in a random order, now and then fumble a disc and put it right;
        ``pos`` is the position the move is played from."""
        table = self.table
        me = plan.player
        transient = self.rng.random() < 0.15
        nudge = self.habits and plan.place.isupper() and self.rng.random() < 0.1
        if nudge:  # put down off-centre, pushed onto its square a moment later
            table.touch(plan.square, plan.place.lower())
            table.glimpse(plan.square)
        table.touch(plan.square, plan.place)
        if transient:
            table.glimpse(plan.square)
            table.show(table.cover(plan.square) - {plan.square})
        order = plan.turns[:]
        self.rng.shuffle(order)
        when = self.rng.randint(0, len(order)) if transient else -1
        for i, q in enumerate(order):
            if i == when:
                self.fumble(plan, pos)
            table.touch(q, char(me))
        if when == len(order):
            self.fumble(plan, pos)
        for q, c in plan.actions:
            table.touch(q, c)
        table.retreat()

    def fumble(self, plan: Plan, pos: Position) -> None:
        """A disc turned and turned back, lifted and put down again, or (``habits``) one of the
        mover's colour put down on an empty square and taken back: normal, never flagged."""
        table = self.table
        near = {n for q in (plan.square, *plan.turns) for n in neighbours(self.size)[q]}
        skip = {plan.square, *plan.turns, *(q for q, _ in plan.actions)}
        options = sorted(q for q in near if q not in skip and table.cells[q] != "-")
        if not options:
            return
        if self.habits and self.rng.random() < 0.3 and self.may_put_down(plan, pos):
            empty = sorted(q for q in near if q not in skip and table.cells[q] == "-")
            if empty:  # a disc of the mover's colour put down by mistake and taken back
                q = self.rng.choice(empty)
                table.touch(q, char(plan.player))
                table.glimpse(q)
                table.touch(q, "-")
                return
        q = self.rng.choice(options)
        was = table.cells[q]
        other = {"X": "O", "O": "X", "x": "o", "o": "x"}[was]
        table.touch(q, "-" if self.rng.random() < 0.3 else other)
        table.glimpse(q)
        table.touch(q, was)

    def may_put_down(self, plan: Plan, pos: Position) -> bool:
        """Without a clock a disc of the mover's colour is their next move when the
        opponent must pass: only put one down by mistake where the opponent can move."""
        if self.clock:
            return True
        return bool(plan.flips) and bool(pos.play(plan.square).legal_moves())

    def repair(self, plan: Plan, before: list[str]) -> None:
        """Put a flagged move right: fault by fault in the order the rules list them, or
        (``habits``, half the time) every fault at once under one hand."""
        actions = fix_actions(plan, before)
        if self.habits:
            rank = {q: REPORT_ORDER[k] for k, qs in plan.flags.items() for q in qs}
            actions.sort(key=lambda a: rank.get(a[0], 0))
            if len(actions) > 1 and self.rng.random() < 0.5:
                self.table.touch_all(actions)
                actions = []
        for q, c in actions:
            self.table.touch(q, c)
        self.table.retreat()
