"""The service on the camera: a synthetic video of a game, read by the vision package.

The video is rendered from a scripted game (hands over the discs being turned
included). The service reads it through its camera source exactly as it would a
camera; the clock presses come in through the clock-button callback, each right
after the frames its player's hand left, as the GPIO clock would deliver them.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import replace

import numpy as np
import pytest
from service_scripts import scripted_log

from controller.position import Position
from controller.records.model import GameRecord
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.sources import CameraSource
from controller.service.states import State
from controller.synth.picture import Scene, render_observations, write_video
from controller.vision.calibrating.fit import turn
from controller.vision.setup import CameraSetup

OPENING = ["f5", "d6", "c3"]


@pytest.mark.parametrize("quarter_off", [False, True])
def test_service_reads_a_game_from_camera_video(tmp_path, monkeypatch, quarter_off):
    """``quarter_off``: the set-up's a1 a quarter turn off, the calibration having
    been unable to tell: the game's first boards settle it, and the file keeps it."""
    game = GameRecord.from_squares(OPENING)
    log = scripted_log(game, repeats=3)
    boards = [o for o in log if o.board is not None]
    # After which video frame each press comes (frames are the board observations).
    presses: dict[int, list] = {}
    frame = 0
    for o in log:
        if o.board is not None:
            frame += 1
        else:
            presses.setdefault(frame, []).append(o.press)
    scene = Scene(width=400, height=300)
    renders = [r for _, r in render_observations(boards, scene, seed=3)]
    video = tmp_path / "game.avi"
    write_video(renders, video, fps=10)
    setup = CameraSetup((scene.width, scene.height), renders[0].homography)
    if quarter_off:
        setup = replace(setup, homography=turn(setup.homography, 3), turn_unsettled=True)
    setup_file = tmp_path / "camera.json"
    setup_file.write_text(json.dumps(setup.to_dict()))

    cfg = defaults().replace(**{
        "game.mode": "home",
        "source.kind": "camera",
        "source.camera": str(video),
        "source.camera_setup": str(setup_file),
        "source.lost_after": 30.0,
        "journal.path": str(tmp_path / "journal.sqlite"),
        "games.folder": str(tmp_path / "games"),
        "web.enabled": False,
    })
    service = Service(cfg, exit_when_done=True)
    service.open()
    real_open = CameraSource._open

    def open_with_clock(self):
        source, frames = real_open(self)
        loop = asyncio_loop[0]

        def with_presses():
            for n, f in enumerate(frames):
                for color in presses.get(n, []):
                    loop.call_soon_threadsafe(service.intake.press, color)
                yield f
            for color in presses.get(len(boards), []):
                loop.call_soon_threadsafe(service.intake.press, color)

        return source, with_presses()

    monkeypatch.setattr(CameraSource, "_open", open_with_clock)
    asyncio_loop = []

    async def main():
        asyncio_loop.append(asyncio.get_running_loop())
        return await asyncio.wait_for(service.run(), 60)

    assert asyncio.run(main()) == 0
    assert [m.square for m in service.table.core.arbiter.moves] == OPENING
    expected = Position.start()
    for sq in OPENING:
        expected = expected.play(sq)
    assert service.table.core.arbiter.position.board_string() == expected.board_string()
    assert not [e for e in service.table.events if e["event"] == "irregularity"]
    assert service.table.states.state is State.PLAYING
    kept = CameraSetup.from_dict(json.loads(setup_file.read_text()))
    assert not kept.turn_unsettled
    assert np.allclose(kept.homography, renders[0].homography)


@pytest.mark.parametrize("ok", [True, False])
def test_the_service_warns_when_its_calibration_was_refused(tmp_path, caplog, ok):
    from controller.vision.calibration_file import CameraCalibration, save_calibration

    path = tmp_path / "camera.json"
    setup = CameraSetup((400, 300), np.array([[40.0, 0, 20], [0, 30, 15], [0, 0, 1]]))
    save_calibration(path, CameraCalibration(setup, start_position_ok=ok))
    source = CameraSource("0", 10, str(path))
    with caplog.at_level("WARNING", logger="kaeshi.service"):
        watcher = source._watcher(np.zeros((300, 400, 3), np.uint8))
    assert np.allclose(watcher.reader.homography, setup.homography)
    refused = [r for r in caplog.records if "was refused when it was made" in r.message]
    assert len(refused) == (0 if ok else 1)


def test_the_service_reads_a_bare_set_up_without_a_warning_and_names_a_broken_file(
        tmp_path, caplog):
    from controller.vision.calibration_file import CalibrationError, load_calibration

    setup = CameraSetup((400, 300), np.array([[40.0, 0, 20], [0, 30, 15], [0, 0, 1]]))
    bare = tmp_path / "setup.json"
    bare.write_text(json.dumps(setup.to_dict()))
    with caplog.at_level("WARNING", logger="kaeshi.service"):
        watcher = CameraSource("0", 10, str(bare))._watcher(np.zeros((300, 400, 3), np.uint8))
    assert np.allclose(watcher.reader.homography, setup.homography)
    assert not [r for r in caplog.records if "refused" in r.message]
    # only the service takes a bare set-up; watch and recognize want a calibration
    with pytest.raises(CalibrationError, match="not a camera calibration file"):
        load_calibration(bare)
    broken = tmp_path / "broken.json"
    broken.write_text('{"homography": [[1, 0]')
    with pytest.raises(CalibrationError, match=f"{broken}: not a calibration file"):
        CameraSource("0", 10, str(broken))._watcher(np.zeros((300, 400, 3), np.uint8))
