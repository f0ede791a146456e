"""Watching: debouncing, camera failures, calibration files, and whole games
through the camera path judged by the arbiter."""

from __future__ import annotations

import io
import json
from dataclasses import replace

import numpy as np
import pytest

from controller import cli
from controller.observation import Observation, read_observations, write_observations
from controller.position import START_BOARD
from controller.records import load_games
from controller.simulator import SimOptions, simulate_game
from controller.synth.picture import render, render_observations
from controller.synth.replay import calibrate_synthetic, default_scene, observations_via_camera
from controller.vision.capture import CaptureError, Frame, FrameSource
from controller.vision.cv import write_image
from controller.vision.reading.board_reading import Reading
from controller.vision.watching.loop import WatchOptions, watch
from controller.vision.watching.watcher import BoardWatcher


def _reading(board: str) -> Reading:
    z = np.zeros(64)
    return Reading(board, np.ones(64), z, z, z, z, z, np.ones(64), np.zeros(64, bool))


class _NoReader:
    layout = None
    n = 8


def test_watcher_reports_a_state_only_once_it_has_settled():
    w = BoardWatcher(_NoReader(), stable=2)  # type: ignore[arg-type]
    a = START_BOARD
    b = a[:19] + "X" + a[20:]
    glitch = a[:40] + "O" + a[41:]
    assert w.update(0.0, _reading(a)) is None  # first frame: nothing has settled yet
    first = w.update(0.1, _reading(a))
    assert first is not None and first.board == a
    again = w.update(0.12, _reading(a))  # the next frame read it too: written once more
    assert again is not None and again.board == a
    assert w.update(0.14, _reading(a)) is None  # a still board writes nothing more
    assert w.update(0.2, _reading(glitch)) is None  # one odd frame changes nothing
    assert w.update(0.3, _reading(a)) is None
    assert w.update(0.4, _reading(b)) is None
    moved = w.update(0.5, _reading(b))
    assert moved is not None and moved.board == b
    assert w.update(0.55, _reading(b)) is not None
    assert w.update(0.58, _reading(b)) is None
    hand = b[:8] + "?" * 8 + b[16:]
    hidden = w.update(0.6, _reading(hand))
    assert hidden is not None and hidden.board == hand  # a hand hides squares at once


def _game_observations(data_dir, limit: int) -> list[Observation]:
    game = load_games(str(data_dir / "games/ggf/ntest_TestGames.ggf"))[0]
    sim = simulate_game(game, SimOptions(seed=3, clock=False))
    boards = [o for o in sim.observations if o.board is not None]
    return boards[:limit]


def _events(log: list[Observation], capsys) -> list[dict]:
    buf = io.StringIO()
    write_observations(log, buf)
    return _arbitrate_text(buf.getvalue(), capsys)


def _arbitrate_text(text: str, capsys) -> list[dict]:
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "log.jsonl"
        p.write_text(text)
        capsys.readouterr()
        assert cli.main(["arbitrate", str(p)]) == 0
        out = capsys.readouterr().out
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def _without_time(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "t"} for e in events]


def test_replay_through_the_camera_gives_the_same_events(data_dir, capsys):
    pure = _game_observations(data_dir, 70)
    camera = observations_via_camera(pure, seed=1)
    assert [o.t for o in camera] == [o.t for o in pure]
    for p, c in zip(pure, camera, strict=True):
        assert p.board is not None and c.board is not None
        for truth, read in zip(p.board, c.board, strict=True):
            assert read == "?" or truth == "?" or read == truth
    expected = _events(pure, capsys)
    assert any(e["event"] == "move" for e in expected)
    # without a clock a move is judged when the next one shows; a hand may hide it a
    # frame longer on camera, so only the moments may differ, never the events
    assert _without_time(_events(camera, capsys)) == _without_time(expected)


def test_calibrate_then_watch_a_rendered_game_video(data_dir, tmp_path, capsys):
    scene = replace(default_scene(), tilt_deg=30.0, rotation_deg=-6.0, view_from_deg=20.0)
    start = render(START_BOARD, scene, seed=5)
    write_image(tmp_path / "start.png", start.image)
    cal = tmp_path / "cal.json"
    assert cli.main(["calibrate", "camera", "--image", str(tmp_path / "start.png"),
                     "--a1", "top-left", "--out", str(cal)]) == 0
    said = capsys.readouterr()
    assert "---OX---" in said.out and (tmp_path / "cal.png").stat().st_size > 1000
    assert "note:" not in said.err  # a plain picture: no slow search to warn of
    assert json.loads(cal.read_text())["colour_model"]["fitted"] is True

    pure = _game_observations(data_dir, 45)
    frames = tmp_path / "frames"
    frames.mkdir()
    n = 0
    for _, rendered in render_observations(pure, scene, seed=5):
        for _ in range(2):  # each state lasts two frames, as in a real video
            write_image(frames / f"{n:05d}.png", rendered.image)
            n += 1
    log = tmp_path / "watch.jsonl"
    assert cli.main(["watch", "--images", str(frames), "--calibration", str(cal),
                     "--out", str(log)]) == 0
    watched = list(read_observations(log.read_text().splitlines()))
    assert watched
    assert _without_time(_arbitrate_text(log.read_text(), capsys)) == _without_time(
        _events(pure, capsys)
    )


class _FlakyCamera(FrameSource):
    """Delivers frames, fails like an unplugged camera, then works again."""

    live = True

    def __init__(self, frames: list[np.ndarray], fail_after: int, state: dict) -> None:
        self.images, self.fail_after, self.state = frames, fail_after, state

    def frames(self):
        for image in self.images:
            if self.state["served"] == self.fail_after and not self.state["failed"]:
                self.state["failed"] = True
                raise CaptureError("camera 0 stopped delivering frames (unplugged?)")
            self.state["served"] += 1
            yield Frame(self.state["served"] * 0.1, image)


def test_an_unplugged_camera_is_retried_and_nothing_wrong_is_recorded():
    scene = default_scene()
    setup = calibrate_synthetic(scene, seed=2)
    board = START_BOARD[:19] + "X" + START_BOARD[20:27] + "XX" + START_BOARD[29:]
    before = render(START_BOARD, scene, seed=2).image
    after = render(board, scene, seed=2).image
    images = [before] * 3 + [after] * 3
    empty = np.full_like(images[0], 40)  # lens covered: no board in view
    state = {"served": 0, "failed": False}
    seq = images[:3] + [empty, empty] + images[3:]
    out, messages, sleeps = io.StringIO(), [], []
    written = watch(lambda: _FlakyCamera(seq, 4, state), setup, out,
                    WatchOptions(stable=2), messages.append, sleep=sleeps.append)
    lines = [json.loads(x) for x in out.getvalue().splitlines()]
    boards = [x["board"] for x in lines]
    assert written == len(lines)
    assert boards[-1] == board and START_BOARD in boards
    assert all(set(b) <= set("-XO?") for b in boards)
    assert any("stopped delivering" in m for m in messages) and sleeps
    assert any("not in view" in m for m in messages)


def test_a_missing_camera_gives_a_clear_message(capsys):
    rc = cli.main(["watch", "--camera", "57", "--give-up-after", "0"])
    err = capsys.readouterr().err
    assert rc == 1
    assert "camera 57 is not available" in err


def test_a_bad_calibration_file_is_named(tmp_path, capsys):
    bad = tmp_path / "cal.json"
    bad.write_text("{not json")
    assert cli.main(["recognize", "--calibration", str(bad), "x.png"]) == 1
    assert "cal.json" in capsys.readouterr().err


@pytest.mark.parametrize("corners", [["1,2", "3,4", "5,6"], ["1,2,3,4,5,6,7,x"]])
def test_bad_corners_are_refused(corners, tmp_path, capsys):
    write_image(tmp_path / "s.png", np.zeros((40, 40, 3), np.uint8))
    assert cli.main(["calibrate", "camera", "--image", str(tmp_path / "s.png"),
                     "--corners", *corners]) == 1
    assert "--corners" in capsys.readouterr().err


def test_a_bumped_camera_is_refitted_without_a_false_move():
    from controller.measure.evaluation import calibrate_on_start
    from controller.position import Position
    from controller.synth.picture import Scene

    scene = Scene(tilt_deg=20, rotation_deg=3, view_from_deg=30)
    setup, ok = calibrate_on_start(scene, 5)
    assert ok
    p = Position.start()
    for move in ("f5", "d6", "c3", "d3", "c4"):
        p = p.play(move)
    before = p.board_string()
    after = p.play(p.legal_squares()[0]).board_string()
    bumped = replace(scene, rotation_deg=6.5, offset=(0.15, -0.1))
    frames = [render(before, scene, seed=5).image] * 3
    frames += [render(before, bumped, seed=5).image] * 4
    frames += [render(after, bumped, seed=5).image] * 3
    w = BoardWatcher(setup.reader(), stable=2)
    seen = [(t, o.board) for t, f in enumerate(frames) if (o := w.feed(t * 0.1, f))]
    # while the camera settles squares may read '?', but no square ever reads a
    # state the board is not in: no false move
    for t, board in seen:
        truth = before if t < 7 else after
        assert all(c in ("?", truth[i]) for i, c in enumerate(board)), (t, board)
    assert seen[-1][1] == after
    assert any(board == before for t, board in seen if 3 <= t < 7)  # read again, re-fitted
    assert any("fitted again" in m for m in w.stats.messages), w.stats.messages


def _midgame(moves: tuple[str, ...]) -> tuple[str, str]:
    from controller.position import Position

    p = Position.start()
    for move in moves:
        p = p.play(move)
    return p.board_string(), p.play(p.legal_squares()[0]).board_string()


def _never_false(seen: list[tuple[int, str]], before: str, after: str, change: int) -> None:
    """No square ever reads a state the board is not in; for the frames in which a
    new state settles (two), a square may still show the old one."""
    for t, board in seen:
        allowed = [before] if t < change else [after] if t >= change + 2 else [before, after]
        assert all(c == "?" or any(c == a[i] for a in allowed) for i, c in enumerate(board)), (
            t, board, allowed)


def test_a_lamp_switched_on_and_a_passing_cloud_are_followed_without_a_false_move():
    from controller.measure.evaluation import calibrate_on_start
    from controller.synth.picture import Scene

    scene = Scene(tilt_deg=20, rotation_deg=4, view_from_deg=10, light=0.8)
    setup, ok = calibrate_on_start(scene, 6)
    assert ok
    before, after = _midgame(("f5", "d6", "c3", "d3", "c4", "f4"))
    # a lamp switched on at once, then a cloud dimming the room step by step
    lights = [0.8] * 3 + [1.3] * 4 + [1.1, 0.9, 0.7, 0.55, 0.45, 0.45]
    frames = [render(before, replace(scene, light=v), seed=6).image for v in lights]
    frames += [render(after, replace(scene, light=0.45), seed=6).image] * 3
    w = BoardWatcher(setup.reader(), stable=2)
    levels = [(w.reader.model.black_log, w.reader.model.white_log)]
    seen = []
    for t, f in enumerate(frames):
        if (o := w.feed(t * 0.1, f)) is not None:
            seen.append((t, o.board))
        levels.append((w.reader.model.black_log, w.reader.model.white_log))
    _never_false(seen, before, after, len(lights))
    assert seen[-1][1] == after  # the move is read in the dim room
    assert len(set(levels)) > 1  # the colour levels moved with the light
    assert not any("moved" in m for m in w.stats.messages)  # light is not a bump


def test_unreadable_frames_are_skipped_not_judged():
    from controller.measure.evaluation import calibrate_on_start
    from controller.synth.picture import Scene

    scene = Scene(tilt_deg=15, rotation_deg=-3, view_from_deg=200)
    setup, ok = calibrate_on_start(scene, 7)
    assert ok
    before, after = _midgame(("f5", "f6", "e6", "f4"))
    good = render(before, scene, seed=7).image
    rng = np.random.default_rng(7)
    black = np.zeros_like(good)  # a dropped frame
    washed = np.full_like(good, 250)  # the auto-exposure overshooting
    static = rng.integers(0, 256, good.shape, dtype=np.uint8)  # a garbled frame
    frames = [good] * 3 + [black, washed, static, static] + [good] * 2
    frames += [render(after, scene, seed=7).image] * 3
    w = BoardWatcher(setup.reader(), stable=2)
    seen = [(t, o.board) for t, f in enumerate(frames) if (o := w.feed(t * 0.1, f))]
    assert not any(3 <= t < 7 for t, _ in seen), seen  # nothing recorded from them
    _never_false(seen, before, after, 9)
    assert seen[-1][1] == after
    assert w.stats.no_board >= 4


def test_a_calibration_a_quarter_turn_off_is_settled_by_the_game_and_kept(
        data_dir, tmp_path, capsys):
    """A calibration whose start discs a reflection hid keeps a1 where it guessed,
    perhaps a quarter turn off; watching settles it from the game's first boards,
    judges the game the right way round and keeps the turn in the calibration file."""
    from controller.measure.evaluation import calibrate_on_start
    from controller.synth.picture import Scene
    from controller.vision.calibrating.fit import turn
    from controller.vision.calibration_file import (
        CameraCalibration,
        load_calibration,
        save_calibration,
    )

    scene = Scene(tilt_deg=20, rotation_deg=3, view_from_deg=30)
    setup, ok = calibrate_on_start(scene, 5)
    assert ok
    cal = tmp_path / "cal.json"
    off = replace(setup, homography=turn(setup.homography, 3), turn_unsettled=True)
    save_calibration(cal, CameraCalibration(off, start_position_ok=True))
    pure = _game_observations(data_dir, 14)
    frames = tmp_path / "frames"
    frames.mkdir()
    n = 0
    for _, rendered in render_observations(pure, scene, seed=5):
        for _ in range(2):
            write_image(frames / f"{n:05d}.png", rendered.image)
            n += 1
    log = tmp_path / "watch.jsonl"
    capsys.readouterr()
    assert cli.main(["watch", "--images", str(frames), "--calibration", str(cal),
                     "--out", str(log)]) == 0
    said = capsys.readouterr().err
    assert "quarter turn" in said and f"kept in {cal}" in said
    assert _without_time(_arbitrate_text(log.read_text(), capsys)) == _without_time(
        _events(pure, capsys))
    kept = load_calibration(cal).setup
    assert not kept.turn_unsettled
    assert np.allclose(kept.homography, setup.homography)
    # the next game reads the right way round from its first board
    again = tmp_path / "again.jsonl"
    assert cli.main(["watch", "--images", str(frames), "--calibration", str(cal),
                     "--out", str(again)]) == 0
    assert "quarter turn" not in capsys.readouterr().err
    assert again.read_text() == log.read_text()


def _shifted_by_a_square(h: np.ndarray) -> np.ndarray:
    """The grid ``h`` (board squares -> image) moved one square along the rows."""
    return h @ np.array([[1.0, 0.0, 1.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])


def _watching_a_midgame() -> tuple[BoardWatcher, np.ndarray, str]:
    """A watcher calibrated on the start, then settled on a midgame board it sees three
    times: (watcher, the picture, the board)."""
    from controller.measure.evaluation import calibrate_on_start
    from controller.synth.picture import Scene

    scene = Scene(tilt_deg=20, rotation_deg=3, view_from_deg=30)
    setup, ok = calibrate_on_start(scene, 5)
    assert ok
    before, _ = _midgame(("f5", "d6", "c3", "d3", "c4"))
    image = render(before, scene, seed=5).image
    w = BoardWatcher(setup.reader(), stable=2)
    for t in range(3):
        w.feed(t * 0.1, image)
    return w, image, before


def test_a_grid_fitted_again_a_square_off_is_refused_and_the_old_one_kept(monkeypatch):
    """A re-fit proposed while the camera stood still (a hand over a small board)
    lands a square off: it reads the position in play worse, so it is not taken."""
    import controller.vision.finding.grid as grid

    w, image, before = _watching_a_midgame()
    assert w.anchor == before
    kept = w.reader.homography.copy()
    monkeypatch.setattr(grid, "refine_on_grid", lambda img, h, n=8: (_shifted_by_a_square(h), 1.0))
    monkeypatch.setattr(grid, "grid_coverage", lambda img, h, offset=0.0, n=8: 1.0 - offset)
    assert w._refit(0.3, image) is None
    assert np.allclose(w.reader.homography, kept)
    assert any("grid was kept" in m for m in w.stats.messages), w.stats.messages
    assert not any("the grid was fitted again" in m for m in w.stats.messages)
    # the frames go on being read through the old grid, and no re-fit is tried at
    # once again: the next still frames read the board as it is
    later = [o.board for t in range(3, 6) if (o := w.feed(t * 0.1, image)) is not None]
    assert all(b == before for b in later)


def test_the_position_in_play_tells_a_right_grid_from_a_wrong_one():
    from controller.vision.watching.grid_guard import agreement, explained_boards

    before, after = _midgame(("f5", "d6", "c3"))
    boards = explained_boards(before)
    assert before in boards and after in boards  # a legal move on is explained
    assert agreement(after, boards) == 64
    shifted = before[1:] + "-"  # what a grid a square off would read, roughly
    assert agreement(shifted, boards) < agreement(after, boards) - 6
    hidden = "?" * 16 + after[16:]
    assert agreement(hidden, boards) == 48  # a hand's squares count neither way
    assert explained_boards("?" + before[1:]) == ["?" + before[1:]]


def test_a_grid_reading_nonsense_is_noticed_at_once_and_found_again():
    """A grid a whole square off (the camera crept, or a grid taken by mistake) sits on
    printed lines that would hold it; the board it reads is no position legal play
    explains, so the next still frame finds the board anew."""
    w, image, before = _watching_a_midgame()
    right = w.reader.homography.copy()
    w.reader = w.reader.on_grid(_shifted_by_a_square(right))
    seen = [(t, o.board) for t in range(3, 13) if (o := w.feed(t * 0.1, image)) is not None]
    assert any("no legal play explains" in m for m in w.stats.messages), w.stats.messages
    assert any("the grid was fitted again" in m for m in w.stats.messages), w.stats.messages
    back = [t for t, b in seen if b == before]
    assert back and back[0] <= 8, seen  # within half a second of the first nonsense
    assert seen[-1][1] == before
