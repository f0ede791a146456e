"""The real ATmega2560 image, run cycle by cycle in simavr, speaks the protocol on a pty.

This is the compiled AVR firmware itself (hal_avr.c, the WS2812B assembly, the watchdog
path), not the host build: the runner feeds its ADC from the sensor model and decodes its
LED data line. Needs gcc-avr, avr-libc and libsimavr-dev (CI installs them).
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from firmware_link import START, Port

from controller.hall import messages as m
from controller.hall.simboard import SimBoard


def _need_toolchain() -> None:
    if shutil.which("avr-gcc") is None:
        pytest.fail("avr-gcc not found: apt-get install gcc-avr avr-libc binutils-avr")
    if not Path("/usr/include/simavr/sim_avr.h").exists():
        pytest.fail("simavr headers not found: apt-get install libsimavr-dev")


def test_avr_image_in_simavr_streams_answers_and_drives_leds():
    _need_toolchain()
    with SimBoard(avr=True, board_id=0x00C0FFEE) as sim:
        port = Port(sim.port)
        try:
            # bytes sent while the chip boots are lost, as on the board: wait for it
            port.wait_for(m.MsgType.HEARTBEAT, timeout=5)
            seq = port.send(m.MsgType.IDENTIFY)
            assert port.ack(seq, m.MsgType.IDENTIFY, timeout=5) == m.Status.OK
            ident = struct.unpack(m.IDENTITY_FORMAT, port.wait_for(m.MsgType.IDENTITY))
            assert ident[0] == m.PROTOCOL_VERSION and ident[4] == 0x00C0FFEE

            board = START[:20] + "x" + START[21:62] + "O" + "?"
            sim.set_board(board)
            assert port.wait_board(board, timeout=5) == board

            palette = bytes([0, 0, 0, 255, 0, 0, 0, 0, 200, 1, 2, 3] + [0] * 12)
            squares = bytearray(64)
            squares[0] = 0x01
            squares[9] = 0x03
            squares[63] = 0x02
            seq = port.send(m.MsgType.SET_LEDS, palette + bytes(squares))
            assert port.ack(seq, m.MsgType.SET_LEDS, timeout=5) == m.Status.OK
            port.frames(0.1)
            leds = sim.leds()
            assert leds[0] == (255, 0, 0)
            assert leds[9] == (1, 2, 3)
            assert leds[63] == (0, 0, 200)
            assert leds[1] == (0, 0, 0)
            # the WS2812B bit timing, measured on the instructions that ran
            timing = sim.ws2812_timing()
            assert timing["t0h"] == (6, 6)  # 375 ns at 16 MHz
            assert timing["t1h"] == (12, 12)  # 750 ns
            assert timing["period"][0] == 20  # 1.25 us
            assert timing["period"][1] <= 29  # byte boundary stays under 1.85 us

            # the mux select lines never move while the ADC samples, and every channel
            # gets at least the 10 us the CD74HC4067 and sensor need to settle
            adc = dict(kv.split("=") for kv in sim.command("get adc").split()[1:])
            assert int(adc["conversions"]) > 64
            assert int(adc["sample_violations"]) == 0
            assert int(adc["settle_min_cycles"]) >= 160  # 10 us at 16 MHz

            # raw readings: the mux select lines and ADC channels reach the right squares
            sim.set_sensor("b3", offset=77, noise=0)
            sim.set_sensor("g6", offset=-50, noise=0, swing=100)
            sim.set_square("g6", "O")
            seq = port.send(m.MsgType.SET_MODE, bytes([m.Mode.RAW, 0]))
            assert port.ack(seq, m.MsgType.SET_MODE, timeout=5) == m.Status.OK
            port.frames(0.05)
            readings = struct.unpack(m.RAW_FORMAT, port.wait_for(m.MsgType.RAW, timeout=5))[1:]
            assert abs(readings[17] - (512 + 77)) <= 1  # b3
            assert abs(readings[46] - (512 - 50 + 100)) <= 1  # g6, white-up
            assert readings[63] == 0  # the faulty h8

            seq = port.send(m.MsgType.RESET)
            assert port.ack(seq, m.MsgType.RESET, timeout=5) == m.Status.OK
            t_ms, flags = struct.unpack(
                m.HEARTBEAT_FORMAT, port.wait_for(m.MsgType.HEARTBEAT, timeout=5)
            )
            assert flags & m.Flag.WATCHDOG_RESET and t_ms < 500
        finally:
            port.close()
