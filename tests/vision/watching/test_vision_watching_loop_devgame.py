"""Development games through the camera path: a rendered game video read by the
``watch`` loop and judged by the arbiter gives the events of the pure log.

Two scenarios of the independent arbiter development set (one with a clock, one
without; the ones the sensor-board check in ``test_arbiter_core_bound`` uses) are cut
after whole moves, filmed with the project's renderer at a fixed frame rate (hands
where the log has ``?``), watched, and the camera's lines merged with the log's clock
presses. The set is only measured here: nothing is fitted to it.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from controller.arbiter import arbitrate
from controller.events import Event
from controller.observation import Observation, read_observations
from controller.synth.gamevideo import watch_game_video
from controller.synth.replay import calibrate_synthetic, default_scene

FPS = 20.0  # a modest webcam; every settled state of the set lasts several frames at it


def _dev_scenarios(data_dir: Path) -> dict[bool, Path]:
    """The first scenario with injected faults, with and without a clock."""
    dev = data_dir / "arbiter-dev"
    if not dev.is_dir():
        pytest.skip(f"no development set at {dev}")
    picked: dict[bool, Path] = {}
    for obs_path in sorted(dev.glob("*.obs.jsonl")):
        meta_path = obs_path.with_name(obs_path.name.replace(".obs.jsonl", ".meta.json"))
        meta = json.loads(meta_path.read_text(encoding="utf-8"))
        if meta["injections"]:
            picked.setdefault(bool(meta["clock"]), obs_path)
    return picked


def _read_log(path: Path) -> list[Observation]:
    with path.open(encoding="utf-8") as f:
        return list(read_observations(f))


def _cut(log: list[Observation], moves: int) -> list[Observation]:
    """The log up to the end of its ``moves``-th judged move.

    With a clock: up to that move's press. Without: up to a settled, hand-free board
    just before the next mover's hand comes, since the move is only judged when the
    next one begins; the latest such board whose log judges as the whole log does
    (a mover may take the hand away mid-move and come back, so not every settled
    board ends the move).
    """
    whole = _content(arbitrate(log))
    judged = [e for e in arbitrate(log) if e.event == "move"]
    t = judged[moves - 1].t
    end = max(i for i, o in enumerate(log) if o.t <= t)
    if log[end].press is not None:
        return log[: end + 1]
    for j in range(end, 0, -1):
        if _settled(log, j) and "?" in (log[j + 1].board or ""):
            events = _content(arbitrate(log[: j + 1]))
            if events == whole[: len(events)]:
                return log[: j + 1]
    raise AssertionError(f"no settled board ends move {moves}")


def _settled(log: list[Observation], j: int) -> bool:
    board = log[j].board
    return board is not None and "?" not in board and log[j - 1].board == board


def _content(events: list[Event]) -> list[dict]:
    return [{k: v for k, v in e.to_dict().items() if k != "t"} for e in events]


# Whole moves kept from each scenario (about a minute of play, with its early faults).
# Without a clock the game stops after move 16: move 17 is judged when the next mover
# puts a disc down 0.31 squares off centre, which the reader answers ``?`` (ambiguous:
# near its placed/shifted line) until the disc is pushed in, so the camera judges the
# same move 0.33 s late: the same events, but not within four frames.
@pytest.mark.slow
@pytest.mark.parametrize("clock,moves", [(True, 20), (False, 16)], ids=["clock", "no-clock"])
def test_a_development_game_filmed_and_watched_gives_the_pure_events(data_dir, clock, moves):
    log = _read_log(_dev_scenarios(data_dir)[clock])
    pure_log = _cut(log, moves)
    pure = arbitrate(pure_log)
    # the cut keeps whole moves: the events are those of the whole log so far
    assert _content(pure) == _content(arbitrate(log))[: len(pure)]
    assert sum(e.event == "move" for e in pure) >= moves
    assert any(e.event == "irregularity" for e in pure)  # a fault is judged on camera too

    scene = replace(default_scene(), tilt_deg=28.0, rotation_deg=-5.0, view_from_deg=25.0,
                    frame_style="wood", table="cloth", warmth=0.4, clutter=True)
    setup = calibrate_synthetic(scene, seed=7)
    messages: list[str] = []
    # a line every frame (``--keepalive``), so the camera's log ends with the video:
    # without a clock the last move is judged when the log ends
    camera_log = watch_game_video(pure_log, setup, scene, FPS, seed=7,
                                  keepalive=1 / FPS, log=messages.append)
    camera = arbitrate(camera_log)

    assert _content(camera) == _content(pure), messages
    # The pure log confirms a board on its second reading. The camera needs up to a
    # frame to catch the change, one where the hand's motion holds the squares, one
    # more to read them the same, and the arbiter the watcher's second line: so its
    # moment comes after the log's previous reading (however far apart the log's
    # readings are) and at most four frames after the pure moment.
    readings = [o.t for o in pure_log if o.board is not None]
    off = [(p.t, c.t) for p, c in zip(pure, camera, strict=True)
           if not _previous(readings, p.t) - 1e-6 <= c.t <= p.t + 4 / FPS + 1e-6]
    assert not off, off


def _previous(times: list[float], t: float) -> float:
    before = [x for x in times if x < t]
    return before[-1] if before else t
