"""The firmware's C unit tests (fake clock, ADC, EEPROM, UART) build and pass on the host."""

from __future__ import annotations

import re
import shutil

import pytest

from controller.hall.simboard import make_firmware


def test_c_unit_tests_pass():
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.fail("the firmware unit tests need make and a C compiler (build-essential)")
    result = make_firmware("host-test")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-4000:]
    summary = re.search(r"kaeshi-unit: (\d+) passed, (\d+) failed \((\d+) checks\)", output)
    assert summary, output[-2000:]
    passed, failed, checks = map(int, summary.groups())
    assert failed == 0
    assert passed >= 18 and checks >= 200
    for name in (
        "classify_hysteresis",
        "debounce_needs_three_scans",
        "parser_resync",
        "calibration_round_trip",
        "led_patterns_timing",
        "identify_and_duplicate_reack",
    ):
        assert re.search(rf"^ok   {name}$", output, re.M), f"{name} did not run or failed"
