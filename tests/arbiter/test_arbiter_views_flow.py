"""The arbiter's irregularity flow (``views.flow``), driven through the real arbiter by
random presses, moves, faults and corrections: never stuck and never contradictory. The
flow's own words and transitions are in ``test_irregular_flow.py``."""

from __future__ import annotations

import copy

from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from controller.arbiter import Arbiter
from controller.arbiter.config import ArbiterConfig
from controller.arbiter.state import CORRECTING
from controller.irregular_flow import Stage, of_flags
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color, parse_square


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
