"""The irregularity flow (rule 5①, ``controller/irregular_flow.py``): its words, the
hall state's flags read into the same flow, and every transition, legal or not, on its
own. ``test_arbiter_views_flow.py`` drives it through the real arbiter."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from controller.events import Irregularity
from controller.irregular_flow import Fault, Flow, FlowError, Stage, of_flags

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
