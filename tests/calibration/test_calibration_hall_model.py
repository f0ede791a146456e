"""Hall calibration: thresholds from readings, their file and their records."""

from __future__ import annotations

import json
import struct

import pytest
from hall_readings import readings

from calibration.hall.model import CalibrationError, classify, derive, load, save
from controller.hall import messages as m


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
