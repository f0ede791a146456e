"""Playing a recorded game on a simulated physical board, with the truth an arbiter must find.

The players follow the record while it stays legal on the real board; once an
uncorrected irregularity has changed the position (as unnoticed forgotten flips
do in real tournaments) they carry on with legal moves of their own, so every
log runs to a proper end.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from controller.bitboard import bit_indices as bits
from controller.events import Event, Irregularity
from controller.events import corrected as corrected_event
from controller.events import game_over as game_over_event
from controller.events import irregularity as irregularity_event
from controller.events import move as move_event
from controller.events import pass_ as pass_event
from controller.events import pointed_out as pointed_out_event
from controller.irregularities import REPORT_ORDER
from controller.observation import Observation
from controller.position import Position
from controller.records.model import GameRecord
from controller.simulator.plan import (
    CLOCK_KINDS,
    COMBOS,
    HABIT_KINDS,
    NO_CLOCK_KINDS,
    Plan,
    char,
    combine,
    correct_plan,
    fix_actions,
    inject,
)
from controller.simulator.table import Table, neighbours
from controller.squares import Color, parse_square, square_name

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


@dataclass
class Simulation:
    observations: list[Observation]
    truth: list[Event]  # the events a perfect arbiter emits, in order
    injected: list[Injected] = field(default_factory=list)


def _names(squares: list[int], size: int) -> list[str]:
    return [square_name(q, size) for q in sorted(squares)]


class _Game:
    def __init__(self, game: GameRecord, options: SimOptions) -> None:
        self.options = options
        self.rng = random.Random(options.seed)
        self.pos = game.start
        self.table = Table(self.pos.board_string(), self.rng, options.hand, options.noise,
                           prompt=random.Random(options.seed + 1) if options.habits else None)
        self.truth: list[Event] = []
        self.injected: list[Injected] = []
        self.size = game.start.size
        self.script = [parse_square(s, self.size) for s in game.transcript_moves()]
        self.next_index = 0
        self.diverged = False
        self.number = 0
        self.left_open = False  # the last move's irregularity was left on the board
        self.unpressed: Plan | None = None  # a clean move whose press was forgotten
        self.pass_replaced: list[str] | None = None  # an illegal pass the offender replaces

    # ---------------------------------------------------------------- moves
    def choose(self) -> int | None:
        legal = self.pos.legal_moves()
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
        table, clock = self.table, self.options.clock
        table.still(3)
        if clock:
            table.press(self.pos.to_move.opponent)  # rule 4: white's press starts black's time
        while not self.pos.is_game_over():
            me = self.pos.to_move
            table.think()
            if not self.pos.legal_moves():
                if clock:
                    self.truth.append(pass_event(table.press(me), me.value))
                else:
                    self.truth.append(pass_event(table.t, me.value))
                self.pos = self.pos.pass_turn()
                continue
            sq = self.choose()
            if sq is None:
                break
            self.number += 1
            kind = self.draw_kind()
            if self.unpressed is not None:
                kind = None  # the reply to a move whose press was forgotten is clean
            if kind in (K.ILLEGAL_PASS, K.OUT_OF_TURN) and self.left_open:
                # a press now would point out the opponent's fault (rule 5①); a disc of
                # theirs now could read as putting it right
                kind = None
            self.left_open = False
            if kind is K.ILLEGAL_PASS:
                if not self.illegal_pass(sq):
                    self.play(sq, None)
            elif kind is K.OUT_OF_TURN:
                if not self.out_of_turn(sq):
                    self.play(sq, None)
            else:
                self.play(sq, kind)
        if self.pos.is_game_over():
            b, w = self.pos.final_score()
            winner = "black" if b > w else "white" if w > b else "draw"
            self.truth.append(game_over_event(table.t, b, w, winner))
        table.still(3)
        return Simulation(table.observations, self.truth, self.injected)

    def draw_kind(self) -> Irregularity | None:
        if self.rng.random() >= self.options.errors:
            return None
        kinds: tuple[Irregularity, ...] = CLOCK_KINDS if self.options.clock else NO_CLOCK_KINDS
        if not self.options.habits:
            kinds = tuple(k for k in kinds if k not in HABIT_KINDS)
        return self.rng.choice(kinds)

    def draw_fix(self, kind: Irregularity) -> str:
        r = self.rng.random()
        if kind is K.OUT_OF_TURN:  # pointed out, taken back unprompted, or played on
            return "opponent" if r < 0.4 else "after" if r < 0.6 else "none"
        if self.options.habits:
            if kind is K.ILLEGAL_PASS:
                return "opponent" if r < 0.3 else "self" if r < 0.65 else "none"
            fix = "none" if r < 0.35 else "mover" if r < 0.55 else "opponent" if r < 0.8 \
                else "after"
            return fix if self.options.clock or fix != "after" else "mover"
        if kind is K.ILLEGAL_PASS:
            return "opponent" if r < 0.4 else "none"
        return "none" if r < 0.5 else "mover" if r < 0.75 else "opponent"

    def second_fault(self, kind: Irregularity, plan: Plan, sq: int) -> Plan:
        """Now and then a second fault in the same move (``habits``)."""
        rng = self.rng
        if not self.options.habits:
            if kind is K.FORGOTTEN_FLIP and rng.random() < 0.3:
                other = inject(K.OVER_FLIP, self.pos, sq, self.table.cells, rng)
                if other is not None:
                    plan = combine(plan, other) or plan
            return plan
        pairs = [b for a, b in COMBOS if a is kind]
        if not pairs or rng.random() >= 0.3:
            return plan
        other = inject(rng.choice(pairs), self.pos, sq, self.table.cells, rng)
        both = combine(plan, other) if other is not None else None
        return both or plan

    # ------------------------------------------------------------ physical
    def perform(self, plan: Plan) -> None:
        """Place, turn in a random order, now and then fumble a disc and put it right."""
        table = self.table
        me = plan.player
        transient = self.rng.random() < 0.15
        nudge = self.options.habits and plan.place.isupper() and self.rng.random() < 0.1
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
                self.fumble(plan)
            table.touch(q, char(me))
        if when == len(order):
            self.fumble(plan)
        for q, c in plan.actions:
            table.touch(q, c)
        table.retreat()

    def fumble(self, plan: Plan) -> None:
        """A disc turned and turned back, lifted and put down again, or (``habits``) one of the
        mover's colour put down on an empty square and taken back: normal, never flagged."""
        table = self.table
        near = {n for q in (plan.square, *plan.turns) for n in neighbours(self.size)[q]}
        skip = {plan.square, *plan.turns, *(q for q, _ in plan.actions)}
        options = sorted(q for q in near if q not in skip and table.cells[q] != "-")
        if not options:
            return
        if self.options.habits and self.rng.random() < 0.3 and self.may_put_down(plan):
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

    def may_put_down(self, plan: Plan) -> bool:
        """Without a clock a disc of the mover's colour is their next move when the
        opponent must pass: only put one down by mistake where the opponent can move."""
        if self.options.clock:
            return True
        return bool(plan.flips) and bool(self.pos.play(plan.square).legal_moves())

    def position_of(self, cells: list[str], to_move: Color) -> Position:
        return Position.from_board_string("".join(cells).upper(), to_move, self.size)

    def forgets_press(self, plan: Plan, flags: dict[Irregularity, list[int]]) -> bool:
        """A clean move left without pressing the clock (``habits``); the opponent then
        moves and presses, so their press shows two moves."""
        if not (self.options.habits and self.options.clock) or flags:
            return False
        if self.unpressed is not None or self.pass_replaced is not None:
            return False
        after = self.pos.play(plan.square)
        return bool(after.legal_moves()) and self.rng.random() < 0.03

    def judged(self, t: float, plan: Plan, flags: dict[Irregularity, list[int]]) -> None:
        me = plan.player.value
        if self.pass_replaced is not None:  # the offender's press withdraws the pass
            self.truth.append(corrected_event(t, K.ILLEGAL_PASS, self.pass_replaced))
            self.pass_replaced = None
        self.truth.append(move_event(t, me, square_name(plan.square, self.size),
                                     _names(plan.flips, self.size)))
        for kind in sorted(flags, key=REPORT_ORDER.__getitem__):
            self.truth.append(irregularity_event(t, me, kind, _names(flags[kind], self.size)))

    def play(self, sq: int, kind: Irregularity | None) -> None:
        table, clock, rng = self.table, self.options.clock, self.rng
        me = self.pos.to_move
        good = correct_plan(self.pos, sq)
        correct_after = self.pos.play(sq)
        plan = None
        for _ in range(8 if kind is not None and not correct_after.is_game_over() else 0):
            plan = inject(kind, self.pos, sq, table.cells, rng)  # type: ignore[arg-type]
            if plan is None:
                break
            plan = self.second_fault(kind, plan, sq)  # type: ignore[arg-type]
            after = self.position_of(plan.after(table.cells), me.opponent)
            if not (after.is_game_over() or self.ambiguous(plan, after)):
                break
            plan = None  # draw the faulty disc again
        if plan is None:
            self.perform(good)
            self.finish_turn(good, {})
            return
        fix = self.draw_fix(kind)  # type: ignore[arg-type]
        before = table.cells[:]
        self.injected.append(Injected(
            self.number, me, {k.value: _names(v, self.size) for k, v in plan.flags.items()}, fix))
        self.perform(plan)
        if fix == "none":
            self.finish_turn(plan, plan.flags)
            self.left_open = True
            return
        if fix == "mover" or not clock:
            if fix == "opponent":
                table.think()  # the opponent points it out; the mover puts it right
            self.repair(plan, before)
            if K.ILLEGAL_SQUARE in plan.flags:
                self.perform(good)
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
            self.truth.append(pointed_out_event(said, me.value, _names(flagged, self.size)))
        self.repair(plan, before)
        for kind_ in sorted(plan.flags, key=REPORT_ORDER.__getitem__):
            self.truth.append(corrected_event(table.t, kind_, _names(plan.flags[kind_], self.size),
                                              pointed_out=fix == "opponent"))
        if K.ILLEGAL_SQUARE in plan.flags:
            self.perform(good)
            self.finish_turn(good, {})
            return
        if fix == "opponent":
            table.press(me)
        self.pos = self.position_of(table.cells, me.opponent)

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
        if self.options.clock:
            return False
        if K.ILLEGAL_SQUARE in plan.flags:
            return not after.legal_moves()
        right = self.pos.play(plan.square)
        if K.EXTRA_DISC in plan.flags and not right.legal_moves():
            return True
        # Who moves next is read on the board the move should leave; a fault left on
        # the board that changes it has no truth without a clock.
        return bool(right.legal_moves()) != bool(after.legal_moves())

    def repair(self, plan: Plan, before: list[str]) -> None:
        """Put a flagged move right: fault by fault in the order the rules list them, or
        (``habits``, half the time) every fault at once under one hand."""
        actions = fix_actions(plan, before)
        if self.options.habits:
            rank = {q: REPORT_ORDER[k] for k, qs in plan.flags.items() for q in qs}
            actions.sort(key=lambda a: rank.get(a[0], 0))
            if len(actions) > 1 and self.rng.random() < 0.5:
                self.table.touch_all(actions)
                actions = []
        for q, c in actions:
            self.table.touch(q, c)
        self.table.retreat()

    def finish_turn(self, plan: Plan, flags: dict[Irregularity, list[int]]) -> None:
        me = plan.player
        if self.forgets_press(plan, flags):
            self.unpressed = plan  # judged when the opponent's press shows both moves
            self.pos = self.pos.play(plan.square)
            return
        t = self.table.press(me) if self.options.clock else self.table.t
        if self.unpressed is not None:
            self.judged(t, self.unpressed, {})
            self.unpressed = None
        self.judged(t, plan, flags)
        self.pos = self.position_of(self.table.cells, me.opponent)
        if not self.options.clock and not self.pos.legal_moves() and self.pos.opponent_moves():
            self.truth.append(pass_event(t, self.pos.to_move.value))
            self.pos = self.pos.pass_turn()

    def out_of_turn(self, sq: int) -> bool:
        """Clock only: while the side to move thinks, the opponent plays a legal move of
        their own and presses (手番の間違い). Pointed out (the side to move presses; the
        offender takes the disc back, turns back what it turned and presses) or taken
        back unprompted, the side to move then plays ``sq``; left, the side to move
        plays on from the board as it stands."""
        if not self.options.clock:
            return False
        table, me = self.table, self.pos.to_move
        plan = inject(K.OUT_OF_TURN, self.pos, sq, table.cells, self.rng)
        if plan is None:
            return False
        you = plan.player
        flagged = _names(plan.flags[K.OUT_OF_TURN], self.size)
        fix = self.draw_fix(K.OUT_OF_TURN)
        before = table.cells[:]
        self.injected.append(Injected(self.number, you, {K.OUT_OF_TURN.value: flagged}, fix))
        self.perform(plan)
        self.judged(table.press(you), plan, plan.flags)
        if fix == "none":  # the side to move plays on: the disc stands as the offender's
            self.pos = self.position_of(table.cells, me)
            self.left_open = True
            self.diverged = True
            return True
        if fix == "opponent":
            table.think()
            said = table.press(me)
            self.truth.append(pointed_out_event(said, you.value, flagged))
        else:  # seen by the offender, and taken back before the side to move plays
            table.still(2)
        self.repair(plan, before)
        self.truth.append(corrected_event(table.t, K.OUT_OF_TURN, flagged,
                                          pointed_out=fix == "opponent"))
        if fix == "opponent":
            table.press(you)  # the offender's press hands the turn back
        table.think()
        self.play(sq, None)
        return True

    def illegal_pass(self, sq: int) -> bool:
        """Clock only: the player presses without moving although ``sq`` (and more) is legal."""
        if not self.options.clock:
            return False
        me = self.pos.to_move
        if not self.pos.opponent_moves():
            return False  # the answer would be a pass, which reads as pointing it out
        legal = _names(bits(self.pos.legal_moves()), self.size)
        fix = self.draw_fix(K.ILLEGAL_PASS)
        self.injected.append(Injected(self.number, me, {K.ILLEGAL_PASS.value: legal}, fix))
        t = self.table.press(me)
        self.truth.append(pass_event(t, me.value))
        self.truth.append(irregularity_event(t, me.value, K.ILLEGAL_PASS, legal))
        if fix == "opponent":
            self.table.think()
            t = self.table.press(me.opponent)
            self.truth.append(pointed_out_event(t, me.value, legal))
            self.truth.append(corrected_event(t, K.ILLEGAL_PASS, legal, pointed_out=True))
            self.table.think()
            self.play(sq, None)
            return True
        if fix == "self":  # nobody presses; the offender plays and presses again
            self.table.think()
            self.pass_replaced = legal
            self.play(sq, None)
            return True
        self.pos = self.pos.with_to_move(me.opponent)
        self.left_open = True
        if not self.diverged:
            self.next_index -= 1  # the record's move was not played
            self.diverged = True
        return True


def simulate_game(game: GameRecord, options: SimOptions | None = None) -> Simulation:
    """The observation log a real board would give for ``game``, and the truth about it."""
    return _Game(game, options or SimOptions()).run()
