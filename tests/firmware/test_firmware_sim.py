"""The firmware running in the host simulator, driven over its pseudo-terminal.

Frames are encoded and decoded here from the generated protocol module alone, so these
tests check the firmware against the protocol table, not against the host driver.
"""

from __future__ import annotations

import errno
import os
import statistics
import struct
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from firmware_link import START, Port

from controller.hall import messages as m
from controller.hall.simboard import SimBoard, SimBoardError


@pytest.fixture
def sim() -> Iterator[SimBoard]:
    with SimBoard(eeprom_write_us=0) as board:
        yield board


@pytest.fixture
def port(sim: SimBoard) -> Iterator[Port]:
    p = Port(sim.port)
    yield p
    p.close()


def test_board_frames_stream_at_100_hz_with_heartbeats(sim, port):
    sim.set_board(START)
    assert port.wait_board(START) == START
    frames = port.frames(0.6)
    boards = [struct.unpack_from("<I", p)[0] for _, t, p in frames if t == m.MsgType.BOARD]
    beats = [struct.unpack_from("<I", p)[0] for _, t, p in frames if t == m.MsgType.HEARTBEAT]
    gaps = [b - a for a, b in zip(boards, boards[1:], strict=False)]
    assert len(boards) >= 20
    assert 9 <= statistics.median(gaps) <= 11
    assert len(beats) >= 2
    assert all(b - a >= 249 for a, b in zip(beats, beats[1:], strict=False))
    seqs = [s for s, _, _ in frames]
    assert all((b - a) & 0xFF == 1 for a, b in zip(seqs, seqs[1:], strict=False))


def test_physical_moves_show_in_the_frames(sim, port):
    sim.set_board(START)
    port.wait_board(START)
    sim.place("d3", "black")
    sim.flip("d4")
    want = START[:19] + "X" + START[20:27] + "X" + START[28:]
    assert port.wait_board(want) == want
    sim.shift("e5")
    sim.set_square("a1", "?")
    sim.set_square("h8", "o")
    want = "?" + want[1:36] + "o" + want[37:63] + "o"
    assert port.wait_board(want) == want
    assert sim.state()[0] == want
    sim.lift("d3")
    assert port.wait_board(want[:19] + "-" + want[20:])[19] == "-"
    with pytest.raises(SimBoardError, match="no disc"):
        sim.flip("a2")
    with pytest.raises(SimBoardError):
        sim.set_board("X" * 63)


def test_identify_answers_ack_then_identity(sim, port):
    seq = port.send(m.MsgType.IDENTIFY)
    assert port.ack(seq, m.MsgType.IDENTIFY) == m.Status.OK
    payload = port.wait_for(m.MsgType.IDENTITY)
    ident = dict(
        zip(
            m.MESSAGES[m.MsgType.IDENTITY].fields,
            struct.unpack(m.IDENTITY_FORMAT, payload),
            strict=True,
        )
    )
    assert ident["protocol_version"] == m.PROTOCOL_VERSION
    assert ident["board_id"] == 0x4B530001
    assert ident["calibration_crc"] == 0
    assert ident["flags"] & m.Flag.CAL_VALID == 0


def test_commands_survive_garbage_and_duplicates_are_reacked(sim, port):
    port.write(bytes([0xA5, 0x02, 0x00, 0x83, 0xFF]) + os.urandom(300).replace(b"\xa5", b"\x00"))
    seq = port.send(m.MsgType.SET_MODE, bytes([m.Mode.RAW, 20]))
    assert port.ack(seq, m.MsgType.SET_MODE) == m.Status.OK
    raw = port.wait_for(m.MsgType.RAW)
    assert len(raw) == m.RAW_LEN
    # the same frame again (a lost ACK): answered, not executed twice
    port.send(m.MsgType.SET_MODE, bytes([m.Mode.RAW, 20]), seq=seq)
    assert port.ack(seq, m.MsgType.SET_MODE) == m.Status.OK
    bad = port.send(m.MsgType.SET_MODE, bytes([7, 0]))
    assert port.ack(bad, m.MsgType.SET_MODE) == m.Status.BAD_VALUE
    back = port.send(m.MsgType.SET_MODE, bytes([m.Mode.BOARD, 0]))
    assert port.ack(back, m.MsgType.SET_MODE) == m.Status.OK
    _, flags, _ = port.board()
    assert not flags & m.Flag.RAW_MODE


def test_raw_readings_follow_the_sensor_model(sim, port):
    sim.set_sensor("c2", offset=40, noise=0)
    sim.set_sensor("f7", offset=-25, noise=0, swing=200)
    sim.set_square("f7", "X")
    sim.set_square("b1", "o")
    seq = port.send(m.MsgType.SET_MODE, bytes([m.Mode.RAW, 0]))
    assert port.ack(seq, m.MsgType.SET_MODE) == m.Status.OK
    port.frames(0.05)
    readings = struct.unpack(m.RAW_FORMAT, port.wait_for(m.MsgType.RAW))[1:]
    assert readings[10] == 552  # c2: 512 + 40
    assert readings[53] == 512 - 25 - 200  # f7: black-up lowers the reading
    assert abs(readings[1] - (512 + 150)) <= 8  # b1: shifted white, half the swing
    assert abs(readings[0] - 512) <= 8
    assert sim.sensor("f7") == (-25.0, 0.0, 200.0)


def _cal_payload(first: int, records: list[tuple[int, int, int, int, int]]) -> bytes:
    body = b"".join(struct.pack(m.CAL_RECORD_FORMAT, *r) for r in records)
    return bytes([first, len(records)]) + body


def _calibrate(port: Port, records: list[tuple[int, int, int, int, int]]) -> int:
    for first in range(0, 64, 16):
        seq = port.send(m.MsgType.WRITE_CAL, _cal_payload(first, records[first : first + 16]))
        assert port.ack(seq, m.MsgType.WRITE_CAL) == m.Status.OK
    seq = port.send(m.MsgType.COMMIT_CAL)
    return port.ack(seq, m.MsgType.COMMIT_CAL, timeout=m.COMMIT_CAL_TIMEOUT_MS / 1000)


def test_calibration_persists_in_eeprom_across_restarts(tmp_path: Path):
    eeprom = tmp_path / "board.eeprom"
    board = START[:8] + "X" + START[9:]
    with SimBoard(eeprom_path=eeprom, eeprom_write_us=0, board_id=77) as sim:
        sim.spread(seed=5, offset_sd=60, noise=1.0)
        sim.set_board(board)
        p = Port(sim.port)
        try:
            # with this much spread the default thresholds misread some empty squares
            assert p.wait_board(board, timeout=0.5) != board
            baselines = [512 + sim.sensor(sq)[0] for sq in range(64)]
            records = []
            for base in baselines:
                b = round(base)
                records.append((b - 60, b + 60, b - 200, b + 200, 6))
            assert _calibrate(p, records) == m.Status.OK
            assert p.wait_board(board) == board
            seq = p.send(m.MsgType.IDENTIFY)
            p.ack(seq, m.MsgType.IDENTIFY)
            ident = struct.unpack(m.IDENTITY_FORMAT, p.wait_for(m.MsgType.IDENTITY))
            crc = ident[5]
            assert crc != 0 and ident[6] & m.Flag.CAL_VALID
        finally:
            p.close()
    with SimBoard(eeprom_path=eeprom, board_id=None) as sim:
        sim.spread(seed=5, offset_sd=60, noise=1.0)
        sim.set_board(board)
        p = Port(sim.port)
        try:
            seq = p.send(m.MsgType.IDENTIFY)
            p.ack(seq, m.MsgType.IDENTIFY)
            ident = struct.unpack(m.IDENTITY_FORMAT, p.wait_for(m.MsgType.IDENTITY))
            assert ident[4] == 77 and ident[5] == crc
            assert p.wait_board(board) == board
        finally:
            p.close()


def test_incomplete_calibration_and_eeprom_failure_are_reported(sim, port):
    seq = port.send(m.MsgType.COMMIT_CAL)
    assert port.ack(seq, m.MsgType.COMMIT_CAL) == m.Status.BAD_VALUE
    sim.eeprom_fail(True)
    records = [(450, 570, 300, 720, 8)] * 64
    assert _calibrate(port, records) == m.Status.EEPROM_FAILURE
    sim.eeprom_fail(False)
    assert _calibrate(port, records) == m.Status.OK


def test_unplug_removes_the_port_and_replug_brings_a_fresh_board(sim, port):
    sim.set_board(START)
    port.wait_board(START)
    path = sim.port
    sim.unplug()
    hung_up = None
    for _ in range(100):
        try:
            if os.read(port.fd, 65536) == b"":
                hung_up = "end of file"
                break
        except BlockingIOError:
            time.sleep(0.01)
        except OSError as exc:  # EIO: the other end of the pty is gone
            hung_up = errno.errorcode[exc.errno]
            break
    assert hung_up in ("EIO", "end of file")
    assert not os.path.exists(path)
    with pytest.raises(FileNotFoundError):
        os.open(path, os.O_RDWR | os.O_NOCTTY)
    sim.replug()
    assert sim.port == path and os.path.exists(path)
    again = Port(path)
    try:
        t_ms, flags, board = again.board()
        assert t_ms < 2000  # booted afresh
        assert not flags & m.Flag.WATCHDOG_RESET
        assert again.wait_board(START) == START
    finally:
        again.close()


def _heartbeat_after(port: Port, condition) -> tuple[int, int]:
    """The first heartbeat (t_ms, flags) that satisfies `condition(t_ms)`."""
    for _ in range(40):
        t_ms, flags = struct.unpack(m.HEARTBEAT_FORMAT, port.wait_for(m.MsgType.HEARTBEAT))
        if condition(t_ms):
            return t_ms, flags
    raise AssertionError("no matching heartbeat")


def test_watchdog_reset_and_reset_command_set_the_flag(sim, port):
    # wait until the board has been up a while, so a fresh boot is told by its uptime
    _, flags = _heartbeat_after(port, lambda t: t >= 250)
    assert not flags & m.Flag.WATCHDOG_RESET
    sim.watchdog_reset()
    port.resync()
    _, flags = _heartbeat_after(port, lambda t: t < 250)
    assert flags & m.Flag.WATCHDOG_RESET
    _heartbeat_after(port, lambda t: t >= 250)
    sim.power_cycle()
    port.resync()
    _, flags = _heartbeat_after(port, lambda t: t < 250)
    assert not flags & m.Flag.WATCHDOG_RESET
    _heartbeat_after(port, lambda t: t >= 250)
    seq = port.send(m.MsgType.RESET)
    assert port.ack(seq, m.MsgType.RESET) == m.Status.OK
    _, flags = _heartbeat_after(port, lambda t: t < 250)
    assert flags & m.Flag.WATCHDOG_RESET


def test_set_leds_runs_patterns_on_the_board(sim, port):
    palette = bytes([0, 0, 0, 255, 0, 0, 0, 0, 200] + [0] * 15)
    squares = bytearray(64)
    squares[0] = 0x01  # a1 steady red
    squares[63] = (m.LedPattern.FAST_BLINK << 4) | 2  # h8 blue, 4 Hz
    seq = port.send(m.MsgType.SET_LEDS, palette + bytes(squares))
    assert port.ack(seq, m.MsgType.SET_LEDS) == m.Status.OK
    seen = set()
    deadline = time.monotonic() + 1.0
    while time.monotonic() < deadline and len(seen) < 2:
        leds = sim.leds()
        assert leds[0] == (255, 0, 0)
        assert leds[1] == (0, 0, 0)
        seen.add(leds[63])
        time.sleep(0.02)
    assert seen == {(0, 0, 200), (0, 0, 0)}
    squares[5] = 0x09  # palette index 9 does not exist
    bad = port.send(m.MsgType.SET_LEDS, palette + bytes(squares))
    assert port.ack(bad, m.MsgType.SET_LEDS) == m.Status.BAD_VALUE


def test_control_channel_rejects_bad_commands(sim):
    with pytest.raises(SimBoardError, match="unknown command"):
        sim.command("levitate a1")
    with pytest.raises(SimBoardError, match="square"):
        sim.command("flip z9")
    with pytest.raises(SimBoardError):
        sim.set_sensor("a1", 0, -1)


def test_a_simulator_that_does_not_start_is_reported(tmp_path, monkeypatch):
    fake = tmp_path / "broken-sim"
    fake.write_text("#!/bin/sh\necho 'cannot open pseudo-terminal' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("KAESHI_BOARDSIM", str(fake))
    with pytest.raises(SimBoardError, match="cannot open pseudo-terminal"):
        SimBoard().start()
