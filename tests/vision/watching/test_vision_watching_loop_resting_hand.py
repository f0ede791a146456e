"""A hand resting at the board's edge through a game fragment: ``watch`` + the arbiter.

The waiting player's hand lies still over edge squares while the other player moves
(the scene's ``resting_hand``), the moving hand working in a new pose every frame and
presses as prompt as people's. The camera must read the hand's squares as hidden,
never as discs, and the arbiter must say exactly what it says of the original log.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from controller.arbiter import ArbiterConfig, arbitrate
from controller.arbiter.presswait import press_wait
from controller.events import Event
from controller.observation import Observation, read_observations
from controller.simulator.prompt import prompt_presses
from controller.synth.gamevideo import watch_game_video
from controller.synth.picture import render_hand_frame
from controller.synth.replay import calibrate_synthetic, default_scene
from controller.synth.resting import resting_schedule, resting_squares

FPS = 10.0
SEED = 1  # the video's seed: its resting hand lies over d8 and e8
MOVES = 6


def _content(events: list[Event]) -> list[dict]:
    return [{k: v for k, v in e.to_dict().items() if k != "t"} for e in events]


def _scene() -> object:
    return replace(default_scene(), width=320, height=240, resting_hand=True)


def _fragment(data_dir) -> tuple[list[Observation], list[dict]]:
    """Scenario 0000 with prompt presses, up to the press that ends its 6th move; and
    what the arbiter says of the original log."""
    with (data_dir / "arbiter-dev" / "0000.obs.jsonl").open(encoding="utf-8") as f:
        log = list(read_observations(f))
    truth = _content(arbitrate(log))
    log = prompt_presses(log, 0)
    judged = [e for e in arbitrate(log, ArbiterConfig(press_wait=0.4)) if e.event == "move"]
    return [o for o in log if o.t <= judged[MOVES - 1].t], truth


def test_a_resting_hand_is_read_as_hidden_and_judged_as_the_log(data_dir):
    cut, truth = _fragment(data_dir)
    scene = _scene()
    covered = np.flatnonzero(resting_squares(scene, SEED))
    assert len(covered) >= 2  # the hand lies over edge squares, not only the frame
    boards = [o for o in cut if o.board is not None]
    # the fragment never plays there, so the hand lies still through all of it
    assert all(o.board[i] == "-" for o in boards for i in covered)  # type: ignore[index]
    assert all(resting_schedule(boards, resting_squares(scene, SEED)))

    # calibrated before the game, with no hand in the way, as a user does
    setup = calibrate_synthetic(replace(scene, resting_hand=False), seed=7)
    messages: list[str] = []
    camera_log = watch_game_video(cut, setup, scene, FPS, seed=SEED, log=messages.append,
                                  tail=1.0, moving_hands=True)
    lines = [o.board for o in camera_log if o.board is not None]
    assert lines
    for board in lines:  # the hand's squares: hidden or empty, never a disc
        assert all(board[i] in "-?" for i in covered), (board, messages)
    assert sum(board[covered[0]] == "?" for board in lines) > len(lines) // 2

    camera = _content(arbitrate(camera_log, ArbiterConfig(press_wait=press_wait(FPS))))
    assert sum(e["event"] == "move" for e in camera) == MOVES
    assert camera == truth[: len(camera)], messages


def test_the_resting_hand_stays_still_and_lifts_around_a_move_where_it_lies():
    from controller.position import Position

    start = Position.start().board_string()
    scene = _scene()
    covered = np.flatnonzero(resting_squares(scene, SEED))
    played = list(start)
    played[covered[0]] = "X"
    log = [Observation(t, board=start) for t in (0.0, 1.0, 2.0, 4.5)]
    log += [Observation(6.0, board="".join(played)), Observation(9.0, board="".join(played))]
    assert resting_schedule(log, resting_squares(scene, SEED)) == [
        True, True, True, False, False, True]

    # it lies still from frame to frame, beside a hand that works
    working = start[:35] + "???" + start[38:]
    shots = [render_hand_frame(working, start, scene, SEED, k) for k in (1, 2)]
    assert all(r.hand_mask is not None for r in shots)
    rest_only = [render_hand_frame(start, start, scene, SEED, k).hand_mask for k in (1, 2)]
    assert rest_only[0] is not None and np.array_equal(rest_only[0], rest_only[1])
    assert rest_only[0].any()
    assert all((r.hand_mask >= rest_only[0]).all() for r in shots)  # type: ignore[operator]
    assert all(r.occluded[covered].all() and r.occluded[35:38].all() for r in shots)
    lifted = render_hand_frame(start, start, scene, SEED, 1, resting=False)
    assert lifted.hand_mask is None and not lifted.occluded.any()


def test_simulate_via_camera_with_habits_rests_a_hand_and_judges_as_the_log(data_dir):
    """``kaeshi simulate --via camera --habits``: the same path, one frame per reading."""
    from controller.commands.simulate import through
    from controller.records import load_games
    from controller.simulator import SimOptions, simulate_game

    game = load_games(str(data_dir / "games/ggf/ntest_TestGames.ggf"))[0]
    sim = simulate_game(game, SimOptions(seed=3, clock=False))
    pure = [o for o in sim.observations if o.board is not None][:70]
    covered = np.flatnonzero(resting_squares(default_scene(), SEED))
    assert len(covered) >= 1
    rests = resting_schedule(pure, resting_squares(default_scene(), SEED))
    assert sum(rests) > len(rests) // 2

    camera = through("camera", pure, habits=True, seed=SEED)  # as --seed 1 gives it
    plain = through("camera", pure, seed=SEED)
    assert [o.t for o in camera] == [o.t for o in pure]
    for p, c, q, resting in zip(pure, camera, plain, rests, strict=True):
        assert c.board is not None and p.board is not None and q.board is not None
        for i in range(64):
            if resting and i in covered:
                assert c.board[i] == "?"  # hidden, never read as a disc or empty
            else:
                assert c.board[i] == q.board[i] or "?" in (c.board[i], p.board[i])

    judged = _content(arbitrate(camera))
    assert judged == _content(arbitrate(pure))
    assert sum(e["event"] == "move" for e in judged) >= 5


GGF = ("(;GM[Othello]PC[test]PB[a]PW[b]TY[8]RE[?]BO[8 -------- -------- -------- ---O*--- "
       "---*O--- -------- -------- -------- *]B[d3]W[c5]B[f6]W[f5]B[e6]W[e3];)\n")


def test_kaeshi_simulate_via_camera_habits_on_the_command_line(tmp_path, capsys):
    from controller import cli

    record = tmp_path / "short.ggf"
    record.write_text(GGF, encoding="utf-8")
    logs = {}
    for name, extra in (("pure", []), ("camera", ["--via", "camera"])):
        out = tmp_path / f"{name}.jsonl"
        assert cli.main(["simulate", str(record), "--habits", "--seed", str(SEED), *extra,
                         "--out", str(out)]) == 0
        with out.open(encoding="utf-8") as f:
            logs[name] = list(read_observations(f))
    covered = np.flatnonzero(resting_squares(default_scene(), SEED))  # d8, e8
    boards = [o.board for o in logs["camera"] if o.board is not None]
    assert all(b[i] == "?" for b in boards for i in covered)  # never played there: still
    pure = [o.board for o in logs["pure"] if o.board is not None]
    assert not any(b[i] == "?" for b in pure for i in covered)  # the log hides nothing there
    judged = [_content(arbitrate(logs[k], ArbiterConfig(press_wait=press_wait(FPS))))
              for k in ("pure", "camera")]
    assert judged[0] == judged[1]
    assert sum(e["event"] == "move" for e in judged[1]) == 6
