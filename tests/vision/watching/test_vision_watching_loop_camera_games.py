"""Whole moves through the camera with prompt presses: ``watch`` + the arbiter.

Scenarios of the independent arbiter development set are given presses as prompt as
people make them (0.15-0.4 s after the board last changed), filmed with the
project's renderer in small frames (hands taking a new pose in every frame), read
by the ``watch`` loop, the presses merged in by time, and judged with the wait
:func:`press_wait` gives for the frame rate.
The events must be those the development set expects of the original log: no false
flag, and no misreading carried into the next move. Judged at each press instead,
the same camera logs carry false flags: the test would see the wait go missing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from controller.arbiter import ArbiterConfig, arbitrate
from controller.arbiter.presswait import press_wait
from controller.events import Event
from controller.observation import Observation, read_observations
from controller.simulator.prompt import prompt_presses
from controller.synth.gamevideo import watch_game_video
from controller.synth.replay import calibrate_synthetic, default_scene

TAIL = 1.0  # the camera films on after the last press, as it does at a table


def _content(events: list[Event]) -> list[dict]:
    return [{k: v for k, v in e.to_dict().items() if k != "t"} for e in events]


def _scene(hard: bool) -> object:
    scene = default_scene()
    if hard:  # leaning more, seen from the side, wood frame, cloth, warm light, clutter
        scene = replace(scene, tilt_deg=28.0, rotation_deg=-5.0, view_from_deg=25.0,
                        frame_style="wood", table="cloth", warmth=0.4, clutter=True)
    return replace(scene, width=320, height=240)  # small frames: a short test


def _prompt_cut(path: Path, moves: int, seed: int) -> list[Observation]:
    """The log with prompt presses, up to the press that ends its ``moves``-th move."""
    with path.open(encoding="utf-8") as f:
        log = prompt_presses(read_observations(f), seed)
    judged = [e for e in arbitrate(log, ArbiterConfig(press_wait=0.4)) if e.event == "move"]
    return [o for o in log if o.t <= judged[moves - 1].t]


@pytest.mark.slow
@pytest.mark.parametrize("scenario,hard,fps", [("0000", False, 10.0), ("0002", True, 15.0)],
                         ids=["clean-10fps", "hard-15fps"])
def test_prompt_presses_through_the_camera_are_judged_as_the_log(data_dir, scenario, hard,
                                                                fps):
    dev = data_dir / "arbiter-dev"
    path = dev / f"{scenario}.obs.jsonl"
    with path.open(encoding="utf-8") as f:
        truth = _content(arbitrate(read_observations(f)))  # the original log: exact
    cut = _prompt_cut(path, 16, int(scenario))
    scene = _scene(hard)
    setup = calibrate_synthetic(scene, seed=7)
    messages: list[str] = []
    camera_log = watch_game_video(cut, setup, scene, fps, seed=7, log=messages.append,
                                  tail=TAIL, moving_hands=True)

    camera = _content(arbitrate(camera_log, ArbiterConfig(press_wait=press_wait(fps))))
    assert sum(e["event"] == "move" for e in camera) >= 16
    assert camera == truth[: len(camera)], messages

    at_once = _content(arbitrate(camera_log))
    assert at_once != camera
    assert sum(e["event"] == "irregularity" for e in at_once) > sum(
        e["event"] == "irregularity" for e in camera)


def test_a_hand_moves_from_frame_to_frame_and_a_still_board_does_not():
    import numpy as np

    from controller.position import Position
    from controller.synth.gamevideo import GameVideo

    start = Position.start().board_string()
    hand = start[:35] + "???" + start[38:]
    log = [Observation(0.0, board=start), Observation(1.0, board=hand),
           Observation(2.0, board=start)]
    frames = list(GameVideo(log, _scene(False), 4.0, seed=3, moving_hands=True).frames())
    still = [f.image for f in frames if f.t < 1.0]
    working = [f.image for f in frames if 1.0 <= f.t < 2.0]
    assert len(still) == 4 and len(working) == 4
    assert all(np.array_equal(still[0], s) for s in still)
    assert not any(np.array_equal(a, b) for a, b in zip(working, working[1:], strict=False))
    fixed = [f.image for f in GameVideo(log, _scene(False), 4.0, seed=3).frames()
             if 1.0 <= f.t < 2.0]
    assert all(np.array_equal(fixed[0], s) for s in fixed)
