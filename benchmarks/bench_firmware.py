"""Sensor-board firmware figures: ATmega2560 timings (under simavr), image size, and the
simulators' change-to-frame latency.

The AVR timings come from firmware/avr/bench_main.c: the real firmware functions built for
the ATmega2560 at 16 MHz, run cycle by cycle in simavr (which also models the ADC's
conversion time), timed by the firmware's own Timer0. The main-loop scan period and the
mux settle time come from the full image running in the simavr runner with a board laid
out and frames streaming: the runner counts the ADC conversions the image starts and
times each against the last change of the mux select lines. That scan period, divided by
16 mux channels, is the step time the host simulator is paced with (simboard.STEP_US).
"""

from __future__ import annotations

import os
import random
import re
import select
import shutil
import statistics
import struct
import subprocess
import time
import tty
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIRMWARE = ROOT / "firmware"
FLASH_BYTES = 256 * 1024
RAM_BYTES = 8 * 1024


def _make(target: str) -> bool:
    from controller.hall.simboard import make_firmware

    result = make_firmware(target)
    if result.returncode != 0:
        print(f"   make {target} failed:\n{result.stderr[-1500:]}")
    return result.returncode == 0


def avr_size() -> None:
    if not _make("avr"):
        return
    out = subprocess.run(
        ["avr-size", "-A", str(FIRMWARE / "build" / "avr" / "kaeshi.elf")],
        capture_output=True,
        text=True,
    ).stdout
    section = {name: int(size) for name, size in re.findall(r"^(\.\w+)\s+(\d+)", out, re.M)}
    flash = section[".text"] + section.get(".data", 0)
    ram = section.get(".data", 0) + section.get(".bss", 0) + section.get(".noinit", 0)
    print(f"   flash {flash:7d} B  ({100 * flash / FLASH_BYTES:4.1f} % of 256 KiB)")
    print(f"   RAM   {ram:7d} B  ({100 * ram / RAM_BYTES:4.1f} % of 8 KiB, static; rest is stack)")


def avr_timings() -> None:
    if shutil.which("simavr") is None:
        print("   simavr not installed (apt-get install simavr): no ATmega2560 timings")
        return
    if not _make("avr-bench"):
        return
    elf = FIRMWARE / "build" / "avr" / "kaeshi-bench.elf"
    result = subprocess.run(
        ["simavr", "-m", "atmega2560", "-f", "16000000", str(elf)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
    got = {k: int(v) for k, v in re.findall(r"(\w+_us)=(\d+)", text)}
    if "scan_us" not in got:
        print(f"   simavr run gave no figures:\n{text[-1000:]}")
        return
    scan = got["scan_us"]
    print("   ATmega2560 @ 16 MHz, simulated by simavr:")
    print(
        f"   64-sensor scan alone     {scan / 1000:6.2f} ms  ({1e6 / scan:5.0f} scans/s; "
        "ADC at 500 kHz, settle overlapped)"
    )
    print(f"   classify + debounce 64   {got['classify_debounce_us'] / 1000:6.2f} ms")
    print(f"   CRC of a RAW frame       {got['crc_raw_frame_us'] / 1000:6.2f} ms")
    print(f"   LED pattern render       {got['led_render_us'] / 1000:6.2f} ms  (every 20 ms)")
    print(f"   LED strip write, 64 LEDs {got['led_show_us'] / 1000:6.2f} ms  (only on change)")


def avr_loop_timing() -> None:
    """Scan period of the whole image's main loop, and the settle time it gives the muxes."""
    from controller.hall.simboard import STEP_US, SimBoard, SimBoardError

    def adc(sim: SimBoard) -> dict[str, int]:
        return {k: int(v) for k, v in (kv.split("=") for kv in sim.command("get adc").split())}

    try:
        sim = SimBoard(avr=True).start()
    except SimBoardError as exc:
        print(f"   main-loop timing in simavr: not run ({exc})")
        return
    with sim:
        sim.set_board("-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27)
        time.sleep(0.5)
        a = adc(sim)
        time.sleep(2.0)
        b = adc(sim)
    conversions = b["conversions"] - a["conversions"]
    if conversions <= 0:
        print("   main-loop timing in simavr: no conversions counted")
        return
    us_per_conversion = (b["cycle"] - a["cycle"]) / conversions / 16
    scan_ms = 64 * us_per_conversion / 1000
    print(
        f"   main-loop scan period    {scan_ms:6.2f} ms  ({1000 / scan_ms:5.0f} scans/s, "
        f"{4 * us_per_conversion:.0f} us per mux channel; host simulator paced at "
        f"{STEP_US} us; 3 scans = {3 * scan_ms:.1f} ms)"
    )
    print(
        f"   mux settle given         {b['settle_min_cycles'] / 16:6.1f} us minimum "
        f"(needed 10 us); select changes while sampling: {b['sample_violations']}"
    )


def _board_of(payload: bytes) -> str:
    from controller.hall import messages as m

    _, _, packed = struct.unpack(m.BOARD_FORMAT, payload)
    return "".join(m.STATE_CHARS[(packed[i // 2] >> (4 * (i % 2))) & 15] for i in range(64))


def simulator_latency(avr: bool = False) -> None:
    """Time from a disc being put down in a simulator to the first BOARD frame showing it."""
    from controller.hall.simboard import SimBoard, SimBoardError

    try:
        sim = SimBoard(avr=avr).start()
    except SimBoardError as exc:
        print(f"   {'AVR image in simavr' if avr else 'host simulator'}: not run ({exc})")
        return
    with sim:
        fd = os.open(sim.port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(fd)
        buf = bytearray()
        latencies = []
        frames = 0
        started = time.monotonic()
        try:
            for i in range(40):
                want = "X" if i % 2 == 0 else "-"
                time.sleep(0.3 if i == 0 else 0.02 + 0.02 * random.random())
                sim.set_square("c3", want)
                t0 = time.monotonic()
                while time.monotonic() - t0 < 1.0:
                    select.select([fd], [], [], 0.05)
                    try:
                        buf += os.read(fd, 65536)
                    except BlockingIOError:
                        continue
                    seen = None
                    while (start := buf.find(b"\xa5")) >= 0 and len(buf) >= start + 6:
                        n = buf[start + 1]
                        if len(buf) < start + n + 6:
                            break
                        if buf[start + 3] == 0x01:
                            frames += 1
                            seen = _board_of(bytes(buf[start + 4 : start + 4 + n]))
                        del buf[: start + n + 6]
                    if seen is not None and seen[18] == want:
                        latencies.append(time.monotonic() - t0)
                        break
        finally:
            os.close(fd)
        elapsed = time.monotonic() - started
    if len(latencies) >= 2:
        name = "AVR image in simavr" if avr else "host simulator"
        p95 = statistics.quantiles(latencies, n=20)[-1]
        print(
            f"   {name}: disc down -> BOARD frame median "
            f"{1000 * statistics.median(latencies):.1f} ms, p95 {1000 * p95:.1f} ms, "
            f"max {1000 * max(latencies):.1f} ms ({len(latencies)} changes, "
            f"{frames / elapsed:.0f} frames/s)"
        )


def main() -> None:
    if shutil.which("avr-gcc") is None:
        print("   avr-gcc not installed (apt-get install gcc-avr avr-libc binutils-avr)")
    else:
        avr_size()
        avr_timings()
        avr_loop_timing()
    simulator_latency()
    if shutil.which("avr-gcc") is not None:
        simulator_latency(avr=True)


if __name__ == "__main__":
    main()
