"""Hall calibration: thresholds from readings, and the guided run on the simulator."""

from __future__ import annotations

import json
import struct
import time
import zlib

import numpy as np
import pytest

from calibration.hall.model import (
    CalibrationError,
    classify,
    derive,
    load,
    save,
)
from calibration.hall.picture import png_bytes
from calibration.hall.procedure import STEPS, calibrate
from controller.cli import main
from controller.hall import messages as m
from controller.hall.driver import HallBoard
from controller.hall.errors import CommandFailed
from controller.hall.simboard import SimBoard
from controller.observation import Observation
from controller.position import Position

START = Position.start().board_string()


def readings(
    seed: int = 1, offset_sd: float = 25.0, noise: float = 1.5, swing: float = 300.0, n: int = 60
) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    base = 512 + rng.normal(0, offset_sd, 64)
    swings = swing + rng.normal(0, 30, 64)

    def scans(level: np.ndarray) -> np.ndarray:
        return np.clip(np.round(level + rng.normal(0, noise, (n, 64))), 0, 1023)

    return scans(base), scans(base - swings), scans(base + swings)


def test_thresholds_separate_centred_shifted_and_empty():
    empty, black, white = readings()
    cal = derive(empty, black, white)
    for i, sq in enumerate(cal.squares):
        assert sq.black_th < sq.empty_lo <= sq.empty_hi < sq.white_th
        swing_b = sq.baseline - sq.black
        swing_w = sq.white - sq.baseline
        assert classify(sq, round(sq.baseline)) == "-"
        assert classify(sq, round(sq.black)) == "X"
        assert classify(sq, round(sq.white)) == "O"
        # a disc half off its square moves the reading about half as much
        assert classify(sq, round(sq.baseline - swing_b / 2)) == "x"
        assert classify(sq, round(sq.baseline + swing_w / 2)) == "o"
        # every measured sample falls in its own class
        assert all(classify(sq, int(v)) == "-" for v in empty[:, i])
        assert all(classify(sq, int(v)) == "X" for v in black[:, i])
        assert all(classify(sq, int(v)) == "O" for v in white[:, i])
        assert 2 <= sq.hysteresis <= 20


def test_noisier_sensors_get_wider_margins():
    quiet = derive(*readings(noise=1.0)).squares[0]
    noisy = derive(*readings(noise=6.0)).squares[0]
    assert noisy.empty_hi - noisy.empty_lo > quiet.empty_hi - quiet.empty_lo
    assert noisy.hysteresis > quiet.hysteresis


def test_overlapping_bands_are_refused_naming_the_squares():
    empty, black, white = readings()
    black[:, 27] = empty[:, 27] - 5  # d4: magnet too weak
    white[:, 60] = empty[:, 60] + 3  # e8: no magnet seen
    with pytest.raises(CalibrationError) as err:
        derive(empty, black, white)
    assert "black-up band overlaps the empty band at d4" in str(err.value)
    assert "white-up band overlaps the empty band at e8" in str(err.value)
    assert err.value.squares == ("d4", "e8")


def test_magnet_upside_down_is_named():
    empty, black, white = readings()
    black[:, 0], white[:, 0] = white[:, 0].copy(), black[:, 0].copy()
    with pytest.raises(CalibrationError, match="black-up does not read below empty at a1"):
        derive(empty, black, white)


def test_dead_sensor_is_named():
    empty, black, white = readings()
    empty[:, 9] = 0
    with pytest.raises(CalibrationError, match=r"open or shorted\) at b2"):
        derive(empty, black, white)


def test_file_round_trip_and_tamper_check(tmp_path):
    cal = derive(*readings())
    path = tmp_path / "cal.json"
    save(cal, path, board_id=7)
    data = json.loads(path.read_text())
    assert data["board_id"] == 7 and set(data["squares"]) >= {"a1", "h8"}
    assert load(path) == cal
    data["squares"]["c3"]["black_th"] += 1
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="do not match the stored CRC"):
        load(path)
    del data["squares"]["c3"]
    path.write_text(json.dumps(data))
    with pytest.raises(CalibrationError, match="square c3 is missing"):
        load(path)


def test_records_match_the_protocol_layout():
    cal = derive(*readings())
    rec = cal.squares[5].record()
    assert len(rec) == m.CAL_RECORD_LEN
    assert struct.unpack(m.CAL_RECORD_FORMAT, rec) == (
        cal.squares[5].empty_lo,
        cal.squares[5].empty_hi,
        cal.squares[5].black_th,
        cal.squares[5].white_th,
        cal.squares[5].hysteresis,
    )


def read_png(data: bytes) -> tuple[int, int, bytes]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, size = 8, b"", (0, 0)
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos : pos + 4])
        kind = data[pos + 4 : pos + 8]
        body = data[pos + 8 : pos + 8 + length]
        assert (
            zlib.crc32(kind + body)
            == struct.unpack(">I", data[pos + 8 + length : pos + 12 + length])[0]
        )
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    return size[0], size[1], zlib.decompress(idat)


def test_png_writer_is_a_valid_png():
    img = np.zeros((3, 4, 3), np.uint8)
    img[1, 2] = (255, 10, 20)
    w, h, raw = read_png(png_bytes(img))
    assert (w, h) == (4, 3)
    row = raw[1 * (1 + 12) : 2 * (1 + 12)]
    assert row[0] == 0 and row[1 + 2 * 3 : 1 + 3 * 3] == bytes((255, 10, 20))


# ------------------------------------------------------------ on the simulator


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


def test_cli_refuses_a_board_that_never_changed(tmp_path, capsys):
    out = tmp_path / "cal.json"
    with SimBoard(seed=4, eeprom_write_us=0, step_us=100) as sim:
        sim.spread(seed=2, offset_sd=20.0, noise=1.5)
        sim.set_board("-" * 63 + "X")
        code = main(
            ["calibrate", "hall", "--port", sim.port, "--yes", "--samples", "10", "--out", str(out)]
        )
        _, flags = sim.state()
    captured = capsys.readouterr()
    assert code == 1
    assert "calibration refused" in captured.err
    assert "were the discs placed as asked?" in captured.err
    assert " a1" in captured.err and " h8" in captured.err
    assert not out.exists()
    assert (tmp_path / "cal.png").exists()  # the picture shows what went wrong
    assert "Step 1/3" in captured.out
    assert not flags & m.Flag.CAL_VALID


def test_cli_restores_a_saved_calibration(tmp_path, capsys):
    cal = derive(*readings())
    path = tmp_path / "saved.json"
    save(cal, path)
    with SimBoard(seed=4, eeprom_write_us=0, step_us=100) as sim:
        code = main(["calibrate", "hall", "--port", sim.port, "--restore", str(path)])
        _, flags = sim.state()
    assert code == 0 and f"{cal.crc:#06x}" in capsys.readouterr().out
    assert flags & m.Flag.CAL_VALID


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
