"""The protocol table, its generator, and the generated Python module agree."""

from __future__ import annotations

import copy
import importlib.util
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from controller.hall import messages as m

ROOT = Path(__file__).resolve().parents[2]
GENERATOR = ROOT / "firmware" / "protocol" / "generate.py"


def _load_generator():
    spec = importlib.util.spec_from_file_location("kaeshi_protocol_generate", GENERATOR)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen = _load_generator()


def test_committed_generated_files_equal_fresh_output():
    table = gen.load_table()
    for path, text in gen.outputs(table).items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name} is stale: run the generator"


def test_generator_check_mode_passes_on_the_repository():
    result = subprocess.run(
        [sys.executable, str(GENERATOR), "--check"], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr


def test_check_mode_reports_a_stale_file(tmp_path, monkeypatch):
    stale = tmp_path / "messages.py"
    stale.write_text("# old\n")
    monkeypatch.setattr(gen, "PY_MODULE", stale)
    monkeypatch.setattr(gen, "C_HEADER", tmp_path / "protocol_gen.h")
    monkeypatch.setattr(gen, "MARKDOWN", tmp_path / "protocol.md")
    monkeypatch.setattr(gen, "ROOT", tmp_path)
    assert gen.main(["--check"]) == 1
    assert gen.main([]) == 0
    assert gen.main(["--check"]) == 0
    assert "MESSAGES" in stale.read_text()


def test_table_contradictions_are_refused():
    table = gen.load_table()
    bad = copy.deepcopy(table)
    board = next(msg for msg in bad["message"] if msg["name"] == "BOARD")
    board["length"] = 36
    with pytest.raises(gen.TableError, match="BOARD"):
        gen.check_table(bad)
    bad = copy.deepcopy(table)
    bad["message"][1]["type"] = bad["message"][0]["type"]
    with pytest.raises(gen.TableError, match="duplicate"):
        gen.check_table(bad)
    bad = copy.deepcopy(table)
    bad["crc"]["init"] = 0
    with pytest.raises(gen.TableError, match="CRC"):
        gen.outputs(bad)


def test_protocol_constants_match_the_agreed_draft():
    assert (m.PROTOCOL_VERSION, m.SOF, m.MAX_PAYLOAD, m.BAUD) == (1, 0xA5, 240, 250000)
    assert (m.CRC_POLY, m.CRC_INIT, m.CRC_XOROUT) == (0x1021, 0xFFFF, 0)
    assert gen.crc16(b"123456789", m.CRC_POLY, m.CRC_INIT, m.CRC_XOROUT) == m.CRC_CHECK
    lengths = {
        m.MsgType.BOARD: 37,
        m.MsgType.IDENTITY: 11,
        m.MsgType.HEARTBEAT: 5,
        m.MsgType.ACK: 3,
        m.MsgType.RAW: 132,
        m.MsgType.IDENTIFY: 0,
        m.MsgType.SET_LEDS: 88,
        m.MsgType.SET_MODE: 2,
        m.MsgType.COMMIT_CAL: 0,
        m.MsgType.RESET: 0,
    }
    for msg_type, length in lengths.items():
        spec = m.MESSAGES[msg_type]
        assert spec.fixed_length == length
        assert struct.calcsize(spec.fmt) == length
    assert m.STATE_CHARS == "-XOxo?"
    assert m.Flag.WATCHDOG_RESET == 2 and m.Flag.RAW_MODE == 4
    assert struct.calcsize(m.CAL_RECORD_FORMAT) == m.CAL_RECORD_LEN == 9


def test_payload_length_rule_for_variable_and_unknown_messages():
    assert m.payload_length_ok(m.MsgType.WRITE_CAL, 2 + 9)
    assert m.payload_length_ok(m.MsgType.WRITE_CAL, 2 + 9 * 16)
    assert not m.payload_length_ok(m.MsgType.WRITE_CAL, 2)
    assert not m.payload_length_ok(m.MsgType.WRITE_CAL, 2 + 9 * 17)
    assert not m.payload_length_ok(m.MsgType.WRITE_CAL, 2 + 10)
    assert not m.payload_length_ok(m.MsgType.BOARD, 36)
    assert not m.payload_length_ok(0x7F, 0)
    assert m.MESSAGES[m.MsgType.WRITE_CAL].fixed_length is None
