"""A small protocol-level stand-in for the sensor board on a pseudo-terminal.

The firmware's own host build (``controller.hall.simboard``) is the faithful
simulator; this fake exists to misbehave on purpose — speak another protocol
version, inject garbage, drop a byte, go silent — which real firmware cannot be
asked to do. It speaks the real wire format, so the driver under test is unchanged.
"""

from __future__ import annotations

import asyncio
import os
import struct
import tempfile
import threading
import time
import tty
from collections.abc import Awaitable, Callable
from pathlib import Path

from controller.hall import messages as m
from controller.hall.frames import FrameParser, encode_board, encode_frame
from controller.hall.host import HallLink
from controller.hall.leds import LedAssignments

START = "-" * 27 + "OX" + "-" * 6 + "XO" + "-" * 27


class FakeDevice:
    def __init__(self, protocol_version: int = m.PROTOCOL_VERSION, rate_hz: int = 100) -> None:
        self.protocol_version = protocol_version
        self.rate_hz = rate_hz
        self.board = START
        self.readings = [512] * 64
        self.mode = m.Mode.BOARD
        self.commands: list[tuple[int, int, bytes]] = []  # (seq, type, payload) received
        self.executed: list[tuple[int, bytes]] = []  # (type, payload) acted upon
        self.ignore_acks = 0  # swallow this many commands without answering
        self.ignore_type: dict[int, int] = {}  # swallow this many commands of a type
        self.garbage_every = 0  # insert random bytes after every n-th frame
        self.drop_byte_every = 0  # drop one byte of every n-th frame
        self.restart_flag = 0
        self.silent = False  # stop sending anything (a hung board)
        self._dir = tempfile.mkdtemp(prefix="kaeshi-fake-")
        self.port = str(Path(self._dir) / "ttyKAESHI")
        self._master: int | None = None
        self._slave: int | None = None
        self._seq = 0
        self._t0 = time.monotonic()
        self._last = (-1, -1)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._frames_sent = 0
        self._rng = 12345

    # ---------------------------------------------------------------- control
    def start(self) -> FakeDevice:
        self._plug()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._thread:
            self._thread.join(2)
        self._unplug_fds()

    def __enter__(self) -> FakeDevice:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def unplug(self) -> None:
        with self._lock:
            self._unplug_fds()

    def replug(self) -> None:
        with self._lock:
            self._plug()

    def restart(self, watchdog: bool = True) -> None:
        with self._lock:
            self._t0 = time.monotonic()
            self._seq = 0
            self._last = (-1, -1)
            self.mode = m.Mode.BOARD
            self.restart_flag = m.Flag.WATCHDOG_RESET if watchdog else 0

    # ---------------------------------------------------------------- plumbing
    def _plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(slave)
        self._master, self._slave = master, slave
        tmp = self.port + ".new"
        if os.path.lexists(tmp):
            os.unlink(tmp)
        os.symlink(os.ttyname(slave), tmp)
        os.replace(tmp, self.port)
        os.set_blocking(master, False)

    def _unplug_fds(self) -> None:
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None
        if os.path.lexists(self.port):
            os.unlink(self.port)

    def _rand(self) -> int:
        self._rng = (self._rng * 1103515245 + 12345) & 0x7FFFFFFF
        return self._rng >> 16

    def _send(self, msg_type: int, payload: bytes) -> None:
        frame = bytearray(encode_frame(self._seq, msg_type, payload))
        self._seq = (self._seq + 1) & 0xFF
        self._frames_sent += 1
        if self.drop_byte_every and self._frames_sent % self.drop_byte_every == 0:
            del frame[self._rand() % len(frame)]
        if self.garbage_every and self._frames_sent % self.garbage_every == 0:
            frame += bytes(self._rand() & 0xFF for _ in range(1 + self._rand() % 20))
            frame += bytes((m.SOF,))
        if self._master is not None and not self.silent:
            try:
                os.write(self._master, bytes(frame))
            except OSError:
                pass

    def _t_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000) & 0xFFFFFFFF

    def _flags(self) -> int:
        return (
            m.Flag.CAL_VALID
            | self.restart_flag
            | (m.Flag.RAW_MODE if self.mode == m.Mode.RAW else 0)
        )

    def _run(self) -> None:
        parser = FrameParser(host_side=False)
        next_frame = next_beat = time.monotonic()
        while not self._stop.is_set():
            with self._lock:
                data = b""
                if self._master is not None:
                    try:
                        data = os.read(self._master, 4096)
                    except (BlockingIOError, InterruptedError):
                        data = b""
                    except OSError:
                        data = b""
                for frame in parser.feed(data):
                    self._command(frame.seq, frame.type, frame.payload)
                now = time.monotonic()
                if now >= next_frame:
                    next_frame = now + 1 / self.rate_hz
                    if self.mode == m.Mode.BOARD:
                        self._send(
                            m.MsgType.BOARD,
                            struct.pack("<IB", self._t_ms(), self._flags())
                            + encode_board(self.board),
                        )
                    else:
                        self._send(
                            m.MsgType.RAW, struct.pack("<I64H", self._t_ms(), *self.readings)
                        )
                if now >= next_beat:
                    next_beat = now + m.HEARTBEAT_MS / 1000
                    self._send(m.MsgType.HEARTBEAT, struct.pack("<IB", self._t_ms(), self._flags()))
            time.sleep(0.002)

    def _command(self, seq: int, msg_type: int, payload: bytes) -> None:
        self.commands.append((seq, msg_type, payload))
        if self.ignore_acks > 0:
            self.ignore_acks -= 1
            return
        if self.ignore_type.get(msg_type, 0) > 0:
            self.ignore_type[msg_type] -= 1
            return
        repeat = (seq, msg_type) == self._last
        self._last = (seq, msg_type)
        self._send(m.MsgType.ACK, bytes((seq, msg_type, m.Status.OK)))
        if repeat:
            return
        self.executed.append((msg_type, payload))
        if msg_type == m.MsgType.IDENTIFY:
            self._send(
                m.MsgType.IDENTITY,
                struct.pack(
                    m.IDENTITY_FORMAT, self.protocol_version, 1, 2, 3, 0xCAFE, 0x1234, self._flags()
                ),
            )
        elif msg_type == m.MsgType.SET_MODE:
            self.mode = m.Mode(payload[0])


async def set_leds_and_close(link: HallLink, dev: FakeDevice, leds: LedAssignments) -> None:
    """Ends a link scenario that checks an LED picture: set it (``set_leds`` returns at
    once), wait until the device has acted on it, and close the link."""
    link.set_leds(leds)
    while m.MsgType.SET_LEDS not in [t for t, _ in dev.executed]:
        await asyncio.sleep(0.02)
    await link.close()


def run_link_scenario(
        scenario: Callable[[FakeDevice], Awaitable[list[object]]],
) -> tuple[list[object], list[bytes]]:
    """Runs ``scenario`` against a fresh fake device; gives what the scenario saw of the link
    and the payloads of the LED pictures the device acted upon."""
    with FakeDevice() as dev:
        # generous: on a loaded host the kernel can hold pseudo-terminal traffic back
        seen = asyncio.run(asyncio.wait_for(scenario(dev), 30))
        leds = [p for t, p in dev.executed if t == m.MsgType.SET_LEDS]
    return seen, leds
