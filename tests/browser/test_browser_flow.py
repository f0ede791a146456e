"""The phone holder's task as a state machine: never stuck, never contradictory."""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from controller.browser.flow import TEXT, CameraFlow, CameraStep


class CameraTask(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.flow = CameraFlow()
        self.connected = False

    @rule()
    def connect(self) -> None:
        self.flow.connect()
        self.connected = True

    @rule()
    def disconnect(self) -> None:
        self.flow.disconnect()
        self.connected = False

    @rule()
    def synced(self) -> None:
        self.flow.synchronised()

    @rule(board=st.booleans(), fixes=st.booleans())
    def frame(self, board: bool, fixes: bool) -> None:
        self.flow.frame(board, fixes)

    @rule()
    def silence(self) -> None:
        self.flow.silent()

    @rule(visible=st.booleans())
    def shown(self, visible: bool) -> None:
        self.flow.shown(visible)

    @invariant()
    def one_text_per_step_and_it_says_what_is_true(self) -> None:
        step = self.flow.step
        assert self.flow.text == TEXT[step]
        assert (step is CameraStep.NOT_CONNECTED) == (not self.connected)
        if step is CameraStep.WATCHING:
            assert self.flow.board and not self.flow.fixes and not self.flow.quiet

    @invariant()
    def never_stuck(self) -> None:
        """From any step, the person's remedies lead to watching the board."""
        probe = CameraFlow(**vars(self.flow))
        if not probe.connected:
            probe.connect()
        probe.synchronised()
        probe.shown(True)
        probe.frame(True, False)
        assert probe.step is CameraStep.WATCHING


TestCameraTask = CameraTask.TestCase


def test_every_step_has_its_own_text():
    assert set(TEXT) == set(CameraStep)
    assert len(set(TEXT.values())) == len(TEXT)
