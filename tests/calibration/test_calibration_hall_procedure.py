"""The guided Hall calibration, run on the firmware simulator."""

from __future__ import annotations

import time

import pytest
from hall_readings import read_png

from calibration.hall.model import load
from calibration.hall.procedure import STEPS, calibrate
from controller.hall import messages as m
from controller.hall.driver import HallBoard
from controller.hall.errors import CommandFailed
from controller.hall.simboard import SimBoard
from controller.observation import Observation
from controller.position import Position


def prompt_placing(sim: SimBoard, asked: list[str]):
    boards = {"empty": "-" * 64, "black": "X" * 64, "white": "O" * 64}
    keys = [key for key, _ in STEPS]

    def prompt(text: str) -> None:
        asked.append(text)
        sim.set_board(boards[keys[len(asked) - 1]])
        time.sleep(0.05)

    return prompt


def test_guided_calibration_on_the_simulator(tmp_path):
    out, picture = tmp_path / "cal.json", tmp_path / "cal.png"
    asked: list[str] = []
    said: list[str] = []
    with SimBoard(seed=3, eeprom_write_us=0, step_us=100) as sim:
        sim.spread(seed=5, offset_sd=30.0, noise=2.0, swing_sd=40.0)
        sim.set_sensor("c6", offset=-60.0, noise=5.0)  # a poor but usable sensor
        with HallBoard(sim.port) as board:
            cal = calibrate(
                board, prompt_placing(sim, asked), out, picture, samples=30, say=said.append
            )
            ident = board.identify()
            assert ident.calibration_crc == cal.crc and ident.flags & m.Flag.CAL_VALID
            # the board now judges with the new thresholds
            position = Position.start().play("f5").board_string()
            sim.set_board(position)
            deadline = time.monotonic() + 20  # generous: a loaded host delays the link
            seen = None
            while seen != position and time.monotonic() < deadline:
                item = board.get(timeout=0.05)
                if isinstance(item, Observation):
                    seen = item.board
            assert seen == position
        offset, noise, _ = sim.sensor("c6")
    assert [a.split(":")[0] for a in asked] == ["Step 1/3", "Step 2/3", "Step 3/3"]
    assert any("noisiest sensor c6" in line for line in said)
    c6 = cal.squares[42]
    assert abs(c6.baseline - (512 + offset)) < 3 and c6.noise > 3
    assert load(out) == cal
    w, h, _ = read_png(picture.read_bytes())
    assert w > 800 and h > 500


def test_eeprom_failure_keeps_the_old_file(tmp_path):
    out, picture = tmp_path / "cal.json", tmp_path / "cal.png"
    out.write_text("previous calibration\n")
    with SimBoard(seed=3, eeprom_write_us=0, step_us=100) as sim:
        sim.spread(seed=5, offset_sd=20.0, noise=1.5)
        sim.eeprom_fail(True)
        with HallBoard(sim.port) as board:
            with pytest.raises(CommandFailed, match="refused COMMIT_CAL: eeprom failure"):
                calibrate(board, prompt_placing(sim, []), out, picture, samples=10,
                          say=lambda s: None)
    assert out.read_text() == "previous calibration\n"
