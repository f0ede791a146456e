"""The real ATmega2560 image builds and fits (needs gcc-avr, avr-libc, binutils-avr)."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.hall.simboard import make_firmware

FIRMWARE = Path(__file__).resolve().parents[2] / "firmware"
FLASH_BYTES = 256 * 1024
RAM_BYTES = 8 * 1024


def _need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.fail(
            f"{tool} not found: install the AVR toolchain "
            "(apt-get install gcc-avr avr-libc binutils-avr) to build the firmware"
        )


def test_avr_image_builds_and_fits():
    _need("avr-gcc")
    _need("avr-size")
    result = make_firmware("avr")
    assert result.returncode == 0, (result.stdout + result.stderr)[-4000:]
    elf = FIRMWARE / "build" / "avr" / "kaeshi.elf"
    hex_file = FIRMWARE / "build" / "avr" / "kaeshi.hex"
    assert elf.exists() and hex_file.exists()
    assert hex_file.read_text().rstrip().endswith(":00000001FF")  # Intel HEX end record
    sizes = subprocess.run(["avr-size", "-A", str(elf)], capture_output=True, text=True)
    section = {
        name: int(size) for name, size in re.findall(r"^(\.\w+)\s+(\d+)", sizes.stdout, re.M)
    }
    flash = section[".text"] + section.get(".data", 0)
    ram = section.get(".data", 0) + section.get(".bss", 0) + section.get(".noinit", 0)
    assert 1000 < flash < FLASH_BYTES
    assert 500 < ram < RAM_BYTES - 1024  # leave a kilobyte for the stack
    # the pieces that only exist on the AVR are linked in
    symbols = subprocess.run(["avr-nm", str(elf)], capture_output=True, text=True).stdout
    for name in ("early_reset_cause", "__vector_21", "__vector_25", "__vector_26"):
        assert re.search(rf"\b{name}\b", symbols), f"{name} missing from the image"
    # the WS2812B bit loop: raise PORTB, 4 nops, test the bit, drop PORTB
    listing = subprocess.run(["avr-objdump", "-d", "-z", str(elf)], capture_output=True, text=True)
    ops = [line.split("\t")[2:4] for line in listing.stdout.splitlines() if line.count("\t") >= 2]
    text = ";".join(" ".join(op).strip() for op in ops)
    assert re.search(r"out 0x05, r\d+;(nop;){4}sbrs r\d+, 7;out 0x05, r\d+", text)
