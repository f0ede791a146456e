"""A camera's log says what wrote it: ``kaeshi watch`` opens it with a header (source,
frame rate, ``stable``) and ``kaeshi arbitrate`` holds each press for the frames after
it by itself; logs without a header, and ``--fps``, work as before."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller import cli
from controller.arbiter import ArbiterConfig, arbitrate
from controller.observation import (
    CAMERA_SOURCES,
    MAX_FPS,
    MAX_NAME,
    MAX_STABLE,
    LogHeader,
    Observation,
    ObservationLogError,
    read_log,
    read_observations,
)
from controller.simulator.prompt import prompt_presses
from controller.synth.gamevideo import GameVideo
from controller.synth.replay import calibrate_synthetic, default_scene
from controller.tomlconfig import is_control
from controller.vision.calibration_file import CameraCalibration, save_calibration
from controller.vision.cv import write_image

FPS = 10.0
BOARD = "-" * 27 + "OX------XO" + "-" * 27
BOARD_LINE = json.dumps({"t": 0.5, "board": BOARD})


def _plain(text: str) -> bool:
    return not any(is_control(c) or 0xD800 <= ord(c) < 0xE000 for c in text)


names = st.text(max_size=40).filter(_plain)
rates = st.none() | st.floats(min_value=0.01, max_value=MAX_FPS)
stables = st.integers(min_value=1, max_value=MAX_STABLE)


@given(st.sampled_from(CAMERA_SOURCES), names, rates, stables)
def test_every_header_watch_can_write_reads_back_as_written(source, name, fps, stable):
    header = LogHeader(source, name, fps, stable)
    read, observations = read_log(["", header.to_json(), BOARD_LINE])
    assert read == header
    assert list(observations) == [Observation(0.5, board=BOARD)]


_bad_fields = st.one_of(
    st.fixed_dictionaries({"source": st.text(max_size=10).filter(
        lambda s: s not in CAMERA_SOURCES)}),
    st.fixed_dictionaries({"name": st.text(min_size=1).filter(lambda s: not _plain(s))}),
    st.fixed_dictionaries({"name": st.text(min_size=MAX_NAME + 1, max_size=MAX_NAME + 5)}),
    st.fixed_dictionaries({"fps": st.floats().filter(lambda f: not 0 < f <= MAX_FPS)
                           | st.booleans() | st.text(max_size=3)}),
    st.fixed_dictionaries({"stable": st.integers().filter(lambda n: not 1 <= n <= MAX_STABLE)
                           | st.floats() | st.booleans() | st.none()}),
)


@given(_bad_fields)
def test_a_bad_header_is_refused_by_the_writer_and_the_reader_alike(bad):
    fields = {"source": "video", "name": "game.mp4", "fps": 25.0, "stable": 2, **bad}
    with pytest.raises(ObservationLogError):
        LogHeader(**fields)
    line = json.dumps({"kaeshi": "watch", **fields})  # NaN as JSON's NaN: still refused
    with pytest.raises(ObservationLogError, match="^line 1: the header's"):
        read_log([line, BOARD_LINE])


@pytest.mark.parametrize("line,reason", [
    ('{"kaeshi": "record", "source": "video", "name": "", "fps": 1, "stable": 2}',
     "written by 'watch' was expected"),
    ('{"kaeshi": "watch", "source": "video", "name": "", "fps": 1, "stable": 2, "x": 1}',
     "unknown fields 'x'"),
    ('{"kaeshi": "watch", "source": "video", "name": "", "stable": 2}', "lacks 'fps'"),
])
def test_a_header_from_another_writer_or_with_other_fields_is_refused(line, reason):
    with pytest.raises(ObservationLogError, match=reason):
        read_log([line])


def test_a_header_anywhere_but_the_first_line_is_refused_by_every_reader():
    header = LogHeader("images", "frames", FPS, 2).to_json()
    with pytest.raises(ObservationLogError, match="line 3: a log's header belongs on its "
                       "first line only"):
        list(read_observations([BOARD_LINE, "", header]))


@pytest.fixture(scope="module")
def camera_log(data_dir, tmp_path_factory) -> tuple[Path, list[dict]]:
    return _camera_log(data_dir, tmp_path_factory.mktemp("camera"), moves=4)


def _camera_log(data_dir: Path, tmp_path: Path, moves: int) -> tuple[Path, list[dict]]:
    """A scenario of the independent development set cut after ``moves`` moves, with
    presses as prompt as people make them, filmed by the synthetic renderer into a
    folder of frames at ``FPS``, read by ``kaeshi watch``, the presses merged in by
    time (as a clock beside the camera adds them). Returns the log and the events the
    development set's original log gives."""
    path = data_dir / "arbiter-dev" / "0000.obs.jsonl"
    with path.open(encoding="utf-8") as f:
        log = prompt_presses(read_observations(f), 0)
    judged = [e for e in arbitrate(log, ArbiterConfig(press_wait=0.4)) if e.event == "move"]
    cut = [o for o in log if o.t <= judged[moves - 1].t]
    t0 = cut[0].t  # a folder of frames starts at 0 s
    cut = [replace(o, t=round(o.t - t0, 6)) for o in cut]
    scene = replace(default_scene(), width=320, height=240)
    setup = calibrate_synthetic(scene, seed=7)
    cal = tmp_path / "cal.json"
    save_calibration(cal, CameraCalibration(setup, start_position_ok=True))
    frames = tmp_path / "frames"
    frames.mkdir()
    video = GameVideo(cut, scene, FPS, seed=7, tail=1.0, moving_hands=True)
    for n, frame in enumerate(video.frames()):
        assert abs(frame.t - n / FPS) < 1e-9  # the folder's frame times are the video's
        write_image(frames / f"{n:05d}.png", frame.image)
    watched = tmp_path / "watched.jsonl"
    assert cli.main(["watch", "--images", str(frames), "--calibration", str(cal),
                     "--out", str(watched)]) == 0
    header, camera = read_log(watched.read_text(encoding="utf-8").splitlines())
    assert header == LogHeader("images", str(frames), FPS, 2)
    merged = sorted([*camera, *(o for o in cut if o.board is None)], key=lambda o: o.t)
    out = tmp_path / "camera.jsonl"
    out.write_text("".join(x + "\n" for x in [header.to_json(),
                                               *(o.to_json() for o in merged)]),
                   encoding="utf-8")
    with path.open(encoding="utf-8") as f:
        truth = [e.to_dict() for e in arbitrate(read_observations(f))]
    return out, truth


def _arbitrate(capsys, *args: str) -> tuple[list[dict], str]:
    capsys.readouterr()
    assert cli.main(["arbitrate", *args]) == 0
    said = capsys.readouterr()
    return [json.loads(x) for x in said.out.splitlines() if x.strip()], said.err


def _content(events: list[dict]) -> list[dict]:
    return [{k: v for k, v in e.items() if k != "t"} for e in events]


def test_watch_output_is_judged_without_fps_as_with_it(camera_log, tmp_path, capsys):
    log, truth = camera_log
    by_header, said = _arbitrate(capsys, str(log))
    assert said == ""
    with_fps, said = _arbitrate(capsys, str(log), "--fps", str(FPS))
    assert said == ""  # the header agrees: nothing to report
    assert by_header == with_fps  # the same events at the same moments
    assert sum(e["event"] == "move" for e in by_header) >= 4
    assert _content(by_header) == _content(truth)[: len(by_header)]

    # the same log without its header is an older log: judged at each press unless
    # told --fps, and then exactly as with the header
    old = tmp_path / "old.jsonl"
    old.write_text("".join(log.read_text(encoding="utf-8").splitlines(True)[1:]),
                   encoding="utf-8")
    at_once, _ = _arbitrate(capsys, str(old))
    assert sum(e["event"] == "irregularity" for e in at_once) > sum(
        e["event"] == "irregularity" for e in by_header)  # the wait is what it changes
    told, _ = _arbitrate(capsys, str(old), "--fps", str(FPS))
    assert told == by_header


def test_an_explicit_fps_or_stable_wins_over_the_header_and_says_so(tmp_path, capsys):
    log = tmp_path / "camera.jsonl"
    log.write_text(LogHeader("camera", "camera 0", 30.0, 2).to_json() + "\n" + BOARD_LINE
                   + "\n", encoding="utf-8")
    _, said = _arbitrate(capsys, str(log), "--fps", "15", "--stable", "3")
    assert "the log says it was watched at 30 fps; judging at --fps 15 as asked" in said
    assert "with --stable 2; judging with --stable 3 as asked" in said
    assert cli.main(["arbitrate", str(log), "--settled"]) == 1
    assert "written by a camera" in capsys.readouterr().err


def test_a_header_without_a_frame_rate_is_judged_at_each_press_and_says_so(tmp_path, capsys):
    log = tmp_path / "camera.jsonl"
    log.write_text(LogHeader("picamera", "Pi camera", None, 2).to_json() + "\n" + BOARD_LINE
                   + "\n", encoding="utf-8")
    _, said = _arbitrate(capsys, str(log))
    assert "(Pi camera) did not say its frame rate" in said and "--fps F" in said


def test_the_service_replays_a_watch_log_as_arbitrate_judges_it(camera_log, tmp_path,
                                                                 capsys):
    """``source.kind = "sim"`` on a camera's log: the header's press wait, as in
    ``kaeshi arbitrate``, so the same moves and faults."""
    import asyncio

    from controller.arbiter.presswait import press_wait
    from controller.service.app import Service
    from controller.service.config import defaults

    log, _ = camera_log
    judged, _ = _arbitrate(capsys, str(log))
    config = defaults().replace(**{
        "game.mode": "home", "source.kind": "sim", "source.log": str(log),
        "source.speed": 200.0, "journal.path": str(tmp_path / "journal.sqlite"),
        "games.folder": str(tmp_path / "games"), "web.enabled": False,
        "clock.resume": "continue"})
    service = Service(config)
    seen: list[dict] = []
    service.on_step = lambda events: seen.extend(e.to_dict() for e in events)
    service.open()
    core = service.table.core
    assert core is not None and core.settings.press_wait == press_wait(FPS)
    assert asyncio.run(asyncio.wait_for(service.run(), 60)) == 0
    kinds = ("move", "pass", "irregularity", "corrected")

    def board_events(events: list[dict]) -> list[dict]:
        return [e for e in _content(events) if e["event"] in kinds]

    assert board_events(seen) == board_events(judged)


class _LiveCamera:
    """A camera whose driver states ``stated`` frames a second and delivers ``real``."""

    kind, name, live = "camera", "camera 0", True

    def __init__(self, stated: float, real: float, n: int) -> None:
        self.stated, self.real, self.n = stated, real, n

    def frames(self):
        from controller.vision.capture import Frame

        for k in range(self.n):
            yield Frame(k / self.real, None)  # type: ignore[arg-type]

    def frame_rate(self) -> float:
        return self.stated


@pytest.mark.parametrize("stated,real,n,said", [
    (30.0, 10.0, 60, "delivered 10.0 frames a second, not the 30"),
    (30.0, 28.0, 60, None),  # near enough
    (30.0, 10.0, 10, None),  # too few frames to tell
])
def test_a_camera_slower_than_its_driver_says_is_reported(stated, real, n, said):
    from controller.commands.watch import FrameTimes

    times = FrameTimes()
    for _ in range(2):  # a camera reconnected: its frames are counted on
        source = times.timed(_LiveCamera(stated, real, n // 2))  # type: ignore[arg-type]
        list(source.frames())
    note = times.note(stated)
    assert (note is None) if said is None else (said in note and "--fps 10" in note)


def test_a_file_is_not_timed_by_the_clock():
    from controller.commands.watch import FrameTimes

    times = FrameTimes()
    camera = _LiveCamera(30.0, 10.0, 60)
    camera.live = False
    list(times.timed(camera).frames())  # type: ignore[arg-type]
    assert times.intervals == 0 and times.note(30.0) is None
