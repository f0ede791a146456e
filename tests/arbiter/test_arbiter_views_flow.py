"""The irregularity flow (rule 5①): its words, and, driven through the real arbiter by
random presses, moves, faults and corrections, never stuck and never contradictory."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from controller.arbiter import Arbiter
from controller.arbiter.config import ArbiterConfig
from controller.arbiter.state import CORRECTING
from controller.events import Irregularity
from controller.irregular_flow import Fault, Flow, FlowError, Stage, of_flags
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color, parse_square

K = Irregularity


def test_one_combined_instruction_for_two_faults_naming_the_disc_to_take_back() -> None:
    flow = Flow().flagged("black", 23, [Fault(K.EXTRA_DISC, ("f4", "a7"), ("a7",)),
                                        Fault(K.FORGOTTEN_FLIP, ("e5",))])
    step = flow.step()
    assert step.text == (
        "Move 23: Black did not turn the disc on e5; Black put more than one new disc down "
        "(f4 and a7). White may point out e5, f4 and a7: press White's clock to hand the "
        "turn back; then Black must turn the disc on e5 to black and take back the disc on "
        "a7, then press Black's clock. If White plays on instead, the board stands as it is.")
    assert (step.who, step.press) == ("white", "white")
    out = flow.point_out().step()
    assert out.text == ("Pointed out: Black must turn the disc on e5 to black and take back "
                        "the disc on a7, then press Black's clock.")
    assert (out.who, out.press) == ("black", "black")
    half = flow.point_out().put_right([K.FORGOTTEN_FLIP]).step()
    assert half.text == ("Pointed out: Black must take back the disc on a7, then press "
                         "Black's clock.")
    done = flow.point_out().put_right([K.FORGOTTEN_FLIP, K.EXTRA_DISC])
    assert done.step().text == ("Put right: Black must now press Black's clock; then White "
                                "is to move.")
    assert done.offender_pressed().step().text == "Move 23 was put right: play goes on."
    assert flow.played_on().step().text == ("Move 23 was not put right: the board stands as "
                                            "it is.")
    assert flow.ruled().step().text == "Move 23: the arbiter has ruled on the position."


def test_an_illegal_pass_is_put_right_by_the_point_out_itself() -> None:
    flow = Flow().flagged("white", 20, [Fault(K.ILLEGAL_PASS, ("d1", "e1"))])
    assert "Black may point out that White can play d1 or e1: press Black's clock" in (
        flow.step().text)
    assert flow.point_out().stage is Stage.CORRECTED


def test_the_hall_state_flags_give_the_same_flow() -> None:
    flags = [{"player": "black", "kind": "forgotten_flip", "squares": ["e5"], "n": 7,
              "pointed_out": True}]
    assert of_flags(flags) == Flow().flagged("black", 7, [Fault(K.FORGOTTEN_FLIP, ("e5",))]
                                             ).point_out()


class PureFlow(RuleBasedStateMachine):
    """Every transition, legal or not: a refused one changes nothing; each stage has
    one text, and a stage still open says who acts and whose clock to press."""

    def __init__(self) -> None:
        super().__init__()
        self.flow = Flow()

    def _try(self, change: object) -> None:
        before = self.flow
        try:
            self.flow = change()  # type: ignore[operator]
        except FlowError:
            assert self.flow == before

    @rule(offender=st.sampled_from(["black", "white"]), n=st.integers(1, 60),
          kinds=st.sets(st.sampled_from(list(K)), min_size=1, max_size=3))
    def flagged(self, offender: str, n: int, kinds: set[Irregularity]) -> None:
        self.flow = self.flow.flagged(offender, n, [Fault(k, ("e5",)) for k in kinds])

    @rule()
    def point_out(self) -> None:
        self._try(self.flow.point_out)

    @rule(data=st.data())
    def put_right(self, data: st.DataObject) -> None:
        kinds = data.draw(st.sets(st.sampled_from([f.kind for f in self.flow.faults] or [
            K.FORGOTTEN_FLIP])))
        self._try(lambda: self.flow.put_right(kinds))

    @rule()
    def offender_pressed(self) -> None:
        self._try(self.flow.offender_pressed)

    @rule()
    def played_on(self) -> None:
        self._try(self.flow.played_on)

    @rule()
    def ruled(self) -> None:
        self.flow = self.flow.ruled()

    @invariant()
    def one_clear_next_step(self) -> None:
        step = self.flow.step()
        assert step.stage is self.flow.stage or self.flow.stage is Stage.CLEAR
        if step.stage.final:
            assert step.who is None and step.press is None
            return
        assert step.who in ("black", "white") and step.press == step.who
        # the first press the text asks for is the one the step names
        first = step.text.index("press ")
        assert step.text[first:].startswith(f"press {step.press.capitalize()}'s clock")
        if step.stage is Stage.MAY_POINT_OUT:
            assert self.flow.faults
        else:
            assert step.press == self.flow.offender
            assert all(f.kind is not K.ILLEGAL_PASS for f in self.flow.faults)


TestPureFlow = PureFlow.TestCase
TestPureFlow.settings = settings(max_examples=60, stateful_step_count=25, deadline=None)


class LiveFlow(RuleBasedStateMachine):
    """The real arbiter fed random presses, moves (some faulty) and corrections: its
    flow always names a next step that the arbiter takes, and never two."""

    def __init__(self) -> None:
        super().__init__()
        self.arb = Arbiter(ArbiterConfig(clock=True, settled=True))
        self.t = 0.0
        self.board = self.arb.position.board_string()
        self._feed(Observation(self._next(), board=self.board))
        self._feed(Observation(self._next(), press=Color.WHITE))  # black's time starts

    def _next(self) -> float:
        self.t += 1.0
        return self.t

    def _feed(self, obs: Observation) -> None:
        self.arb.feed(obs)

    def _show(self, board: str) -> None:
        self.board = board
        self._feed(Observation(self._next(), board=board))

    @precondition(lambda self: not self.arb.game_over)
    @rule(color=st.sampled_from(list(Color)))
    def press(self, color: Color) -> None:
        self._feed(Observation(self._next(), press=color))

    @precondition(lambda self: not self.arb.game_over and self.arb.open is None
                  and self.arb.phase != CORRECTING)
    @rule(data=st.data(), fault=st.sampled_from(["none", "forget", "extra", "wrong"]))
    def move(self, data: st.DataObject, fault: str) -> None:
        pos: Position = self.arb.position
        legal = pos.legal_squares()
        if not legal:
            return
        square = data.draw(st.sampled_from(legal))
        after = pos.play(square)
        cells = list(after.board_string())
        flips = [i for i, (a, b) in enumerate(zip(pos.board_string(), cells, strict=True))
                 if a != b and a != "-"]
        me = pos.to_move
        if fault == "forget" and flips:
            cells[data.draw(st.sampled_from(flips))] = me.opponent.symbol
        elif fault == "extra":
            empty = [i for i, c in enumerate(cells) if c == "-"]
            if empty:
                cells[data.draw(st.sampled_from(empty))] = me.symbol
        elif fault == "wrong":
            cells[parse_square(square)] = me.opponent.symbol
        self._show("".join(cells))
        self._feed(Observation(self._next(), press=me))

    @precondition(lambda self: self.arb.open is not None and not self.arb.open.challenged)
    @rule()
    def point_out(self) -> None:
        """The opponent presses on the unchanged board (as a person following the text)."""
        assert self.arb.open is not None
        self._feed(Observation(self._next(),
                               press=self.arb.open.judgement.player.opponent))

    @precondition(lambda self: self.arb.open is not None)
    @rule()
    def put_right(self) -> None:
        assert self.arb.open is not None
        self._show(self.arb.open.judgement.correct.board_string())

    @rule()
    def look_again(self) -> None:
        """The board read again, unchanged (and the game may be over)."""
        self._show(self.board)

    @precondition(lambda self: not self.arb.game_over)
    @rule()
    def ruling(self) -> None:
        self.arb.rule_position(self._next())

    @invariant()
    def never_stuck_never_contradictory(self) -> None:
        arb = self.arb
        step = arb.flow().step()
        event(f"stage {step.stage.value}")
        if step.stage.final:
            assert step.who is None and arb.open is None
            return
        assert step.press in ("black", "white") and step.who == step.press
        op = arb.open
        if op is not None:  # the hub, from the hall state's flags, says the very same
            assert of_flags(arb.open_flags()).step() == step
        if step.stage is Stage.MAY_POINT_OUT:
            assert op is not None and not op.challenged
            assert step.press == op.judgement.player.opponent.value
            assert arb.to_move.value == step.press  # that press is theirs to make
        else:
            assert arb.phase == CORRECTING and arb.to_move.value == step.press
        # the press the step asks for moves the flow on (on a copy of the arbiter)
        ahead = copy.deepcopy(arb)
        ahead.feed(Observation(self.t + 0.5, press=Color(step.press)))
        after = ahead.flow().step()
        assert (after.stage, after.text) != (step.stage, step.text)


TestLiveFlow = LiveFlow.TestCase
TestLiveFlow.settings = settings(max_examples=60, stateful_step_count=30, deadline=None,
                                 suppress_health_check=[HealthCheck.too_slow])


def test_moves_and_passes_carry_their_kifu_number_in_what_people_read() -> None:
    """One numbering: a step's moves and passes are numbered from the record's length,
    so the page's events say the same number as the move table and the flags."""
    from controller.arbiter import arbitrate
    from controller.events import numbered

    arb = Arbiter(ArbiterConfig(clock=True, settled=True))
    start = Position.start()
    t = 0.0
    shown: list[dict] = []
    pos = start
    obs = [Observation(0.5, board=start.board_string()), Observation(1.0, press=Color.WHITE)]
    for square in ("f5", "d6", "c3"):
        pos = pos.play(square)
        t += 2.0
        obs += [Observation(t, board=pos.board_string()),
                Observation(t + 1.0, press=pos.to_move.opponent)]
    for o in obs:
        shown += numbered(arb.feed(o), len(arb.moves))
    moves = [d for d in shown if d["event"] == "move"]
    assert [(d["n"], d["square"]) for d in moves] == [(1, "f5"), (2, "d6"), (3, "c3")]
    assert [d for d in shown if "n" in d] == moves
    # the journal's events stay as the arbiter said them
    assert all("n" not in e.to_dict() for e in arbitrate(obs, ArbiterConfig(clock=True,
                                                                             settled=True)))
