"""Playing a recorded game on a simulated physical board, with the truth an arbiter must find.

The players follow the record while it stays legal on the real board; once an
uncorrected irregularity has changed the position (as unnoticed forgotten flips
do in real tournaments) they carry on with legal moves of their own, so every
log runs to a proper end. Each turn is the mover's own move
(:mod:`controller.simulator.move`) unless the game draws one that is not: an illegal
pass, or a move out of turn, played here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.bitboard import bit_indices as bits
from controller.events import Event, Irregularity
from controller.events import corrected as corrected_event
from controller.events import game_over as game_over_event
from controller.events import irregularity as irregularity_event
from controller.events import pass_ as pass_event
from controller.events import pointed_out as pointed_out_event
from controller.observation import Observation
from controller.records.model import GameRecord
from controller.simulator.hand import Hand
from controller.simulator.move import Mover, Progress, names
from controller.simulator.plan import (
    CLOCK_KINDS,
    HABIT_KINDS,
    NO_CLOCK_KINDS,
    Injected,
    draw_fix,
    inject,
)
from controller.simulator.table import Table
from controller.squares import parse_square

K = Irregularity


@dataclass(frozen=True)
class SimOptions:
    errors: float = 0.0  # share of moves played with an irregularity
    seed: int = 0
    noise: float = 0.0  # share of frames with one square misread
    clock: bool = True
    hand: bool = True
    #: More of what real players do (off by default so pinned seeds keep their story):
    #: two faults in one move; a fault put right after the press without anyone
    #: pressing (path b); an illegal pass followed by the offender simply playing and
    #: pressing again; several faults put right at once; a disc put down and taken
    #: back; the new disc put down off-centre and pushed in; a forgotten clock press;
    #: the clock pressed 0.15-0.4 s after the hand leaves the board; a move out of turn
    #: (the opponent plays and presses while the mover's time runs).
    habits: bool = False


@dataclass
class Simulation:
    observations: list[Observation]
    truth: list[Event]  # the events a perfect arbiter emits, in order
    injected: list[Injected] = field(default_factory=list)


class _Game:
    def __init__(self, game: GameRecord, options: SimOptions) -> None:
        self.options = options
        self.rng = random.Random(options.seed)
        self.table = Table(game.start.board_string(), self.rng, options.hand, options.noise,
                           prompt=random.Random(options.seed + 1) if options.habits else None)
        self.size = game.start.size
        self.progress = Progress(game.start)
        self.hand = Hand(self.table, self.rng, self.size, options.habits, options.clock)
        self.mover = Mover(self.progress, self.hand, self.rng, options.clock, options.habits)
        self.script = [parse_square(s, self.size) for s in game.transcript_moves()]
        self.next_index = 0
        self.diverged = False

    def choose(self) -> int | None:
        legal = self.progress.pos.legal_moves()
        if not self.diverged:
            if self.next_index < len(self.script):
                sq = self.script[self.next_index]
                if legal >> sq & 1:
                    self.next_index += 1
                    return sq
                self.diverged = True
            else:
                return None  # the record stops here
        return self.rng.choice(bits(legal))

    def run(self) -> Simulation:
        table, clock, progress = self.table, self.options.clock, self.progress
        truth = progress.truth
        table.still(3)
        if clock:
            table.press(progress.pos.to_move.opponent)  # rule 4: white's press starts black's time
        while not progress.pos.is_game_over():
            me = progress.pos.to_move
            table.think()
            if not progress.pos.legal_moves():
                if clock:
                    truth.append(pass_event(table.press(me), me.value))
                else:
                    truth.append(pass_event(table.t, me.value))
                progress.pos = progress.pos.pass_turn()
                continue
            sq = self.choose()
            if sq is None:
                break
            progress.number += 1
            kind = self.draw_kind()
            if progress.unpressed is not None:
                kind = None  # the reply to a move whose press was forgotten is clean
            if kind in (K.ILLEGAL_PASS, K.OUT_OF_TURN) and progress.left_open:
                # a press now would point out the opponent's fault (rule 5①); a disc of
                # theirs now could read as putting it right
                kind = None
            progress.left_open = False
            if kind is K.ILLEGAL_PASS:
                if not self.illegal_pass(sq):
                    self.mover.play(sq, None)
            elif kind is K.OUT_OF_TURN:
                if not self.out_of_turn(sq):
                    self.mover.play(sq, None)
            else:
                self.mover.play(sq, kind)
        if progress.pos.is_game_over():
            b, w = progress.pos.final_score()
            winner = "black" if b > w else "white" if w > b else "draw"
            truth.append(game_over_event(table.t, b, w, winner))
        table.still(3)
        return Simulation(table.observations, truth, progress.injected)

    def draw_kind(self) -> Irregularity | None:
        if self.rng.random() >= self.options.errors:
            return None
        kinds: tuple[Irregularity, ...] = CLOCK_KINDS if self.options.clock else NO_CLOCK_KINDS
        if not self.options.habits:
            kinds = tuple(k for k in kinds if k not in HABIT_KINDS)
        return self.rng.choice(kinds)

    def out_of_turn(self, sq: int) -> bool:
        """Clock only: while the side to move thinks, the opponent plays a legal move of
        their own and presses (手番の間違い). Pointed out (the side to move presses; the
        offender takes the disc back, turns back what it turned and presses) or taken
        back unprompted, the side to move then plays ``sq``; left, the side to move
        plays on from the board as it stands."""
        if not self.options.clock:
            return False
        table, progress, mover = self.table, self.progress, self.mover
        me = progress.pos.to_move
        plan = inject(K.OUT_OF_TURN, progress.pos, sq, table.cells, self.rng)
        if plan is None:
            return False
        you = plan.player
        flagged = names(plan.flags[K.OUT_OF_TURN], self.size)
        fix = draw_fix(K.OUT_OF_TURN, self.rng, self.options.habits, self.options.clock)
        before = table.cells[:]
        progress.injected.append(
            Injected(progress.number, you, {K.OUT_OF_TURN.value: flagged}, fix))
        self.hand.perform(plan, progress.pos)
        mover.judged(table.press(you), plan, plan.flags)
        if fix == "none":  # the side to move plays on: the disc stands as the offender's
            progress.pos = mover.position_of(table.cells, me)
            progress.left_open = True
            self.diverged = True
            return True
        if fix == "opponent":
            table.think()
            said = table.press(me)
            progress.truth.append(pointed_out_event(said, you.value, flagged))
        else:  # seen by the offender, and taken back before the side to move plays
            table.still(2)
        self.hand.repair(plan, before)
        progress.truth.append(corrected_event(table.t, K.OUT_OF_TURN, flagged,
                                              pointed_out=fix == "opponent"))
        if fix == "opponent":
            table.press(you)  # the offender's press hands the turn back
        table.think()
        mover.play(sq, None)
        return True

    def illegal_pass(self, sq: int) -> bool:
        """Clock only: the player presses without moving although ``sq`` (and more) is legal."""
        if not self.options.clock:
            return False
        table, progress, mover = self.table, self.progress, self.mover
        me = progress.pos.to_move
        if not progress.pos.opponent_moves():
            return False  # the answer would be a pass, which reads as pointing it out
        legal = names(bits(progress.pos.legal_moves()), self.size)
        fix = draw_fix(K.ILLEGAL_PASS, self.rng, self.options.habits, self.options.clock)
        progress.injected.append(
            Injected(progress.number, me, {K.ILLEGAL_PASS.value: legal}, fix))
        t = table.press(me)
        progress.truth.append(pass_event(t, me.value))
        progress.truth.append(irregularity_event(t, me.value, K.ILLEGAL_PASS, legal))
        if fix == "opponent":
            table.think()
            t = table.press(me.opponent)
            progress.truth.append(pointed_out_event(t, me.value, legal))
            progress.truth.append(corrected_event(t, K.ILLEGAL_PASS, legal, pointed_out=True))
            table.think()
            mover.play(sq, None)
            return True
        if fix == "self":  # nobody presses; the offender plays and presses again
            table.think()
            progress.pass_replaced = legal
            mover.play(sq, None)
            return True
        progress.pos = progress.pos.with_to_move(me.opponent)
        progress.left_open = True
        if not self.diverged:
            self.next_index -= 1  # the record's move was not played
            self.diverged = True
        return True


def simulate_game(game: GameRecord, options: SimOptions | None = None) -> Simulation:
    """The observation log a real board would give for ``game``, and the truth about it."""
    return _Game(game, options or SimOptions()).run()
