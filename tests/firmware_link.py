"""Raw access to a simulated sensor board's pty for the firmware tests: frames are built
and read from the generated protocol module alone, so the tests check the firmware against
the protocol table rather than against the host driver."""

from __future__ import annotations

import os
import select
import struct
import time
import tty

from controller.hall import messages as m

START = "---------------------------OX------XO---------------------------"
#: How long to wait for a frame that should come. Generous: on a loaded host the kernel
#: can hold pseudo-terminal traffic back for seconds; a passing test never waits this long.
WAIT = 20.0


def crc16(data: bytes) -> int:
    crc = m.CRC_INIT
    for byte in data:
        crc ^= byte << 8
        for _ in range(8):
            crc = ((crc << 1) ^ m.CRC_POLY) & 0xFFFF if crc & 0x8000 else (crc << 1) & 0xFFFF
    return crc ^ m.CRC_XOROUT


def frame(seq: int, msg_type: int, payload: bytes = b"") -> bytes:
    body = bytes([len(payload), seq, msg_type]) + payload
    return bytes([m.SOF]) + body + struct.pack("<H", crc16(body))


class Port:
    """A raw pty connection with a minimal frame reader.

    The stream can start in the middle of a frame, as the port is opened (and flushed)
    while the firmware sends: until the reader has found a whole frame it skips bytes.
    From then on every frame must be whole and checked, or the test fails; only after a
    restart (say so with :meth:`resync`) may one frame have been cut short on the wire.
    """

    def __init__(self, path: str) -> None:
        self.fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self.fd)
        self.buf = bytearray()
        self.unread: list[tuple[int, int, bytes]] = []
        self.seq = 0
        self.synced = False
        self.cut_allowed = False

    def resync(self) -> None:
        """The board restarted: the frame it was sending may have been cut short."""
        self.cut_allowed = True

    def close(self) -> None:
        os.close(self.fd)

    def write(self, data: bytes) -> None:
        os.write(self.fd, data)

    def send(self, msg_type: int, payload: bytes = b"", seq: int | None = None) -> int:
        if seq is None:
            self.seq = (self.seq + 1) & 0xFF
            seq = self.seq
        self.write(frame(seq, msg_type, payload))
        return seq

    def _fill(self, timeout: float) -> None:
        ready, _, _ = select.select([self.fd], [], [], timeout)
        if ready:
            self.buf += os.read(self.fd, 65536)

    def frames(self, duration: float) -> list[tuple[int, int, bytes]]:
        """Every frame received during `duration` seconds."""
        out, self.unread = self.unread, []
        deadline = time.monotonic() + duration
        while (left := deadline - time.monotonic()) > 0:
            self._fill(min(left, 0.05))
            out += self._parse()
        return out

    def _parse(self) -> list[tuple[int, int, bytes]]:
        out = []
        while True:
            start = self.buf.find(bytes([m.SOF]))
            if start < 0:
                self.buf.clear()
                return out
            del self.buf[:start]
            if len(self.buf) < 4:
                return out
            n = self.buf[1]
            skipping = not self.synced or self.cut_allowed
            if not m.payload_length_ok(self.buf[3], n) and skipping:
                self._skip_byte()
                continue
            if len(self.buf) < n + 6:
                return out
            body = bytes(self.buf[1 : 4 + n])
            (crc,) = struct.unpack_from("<H", self.buf, 4 + n)
            if crc != crc16(body) and skipping:
                self._skip_byte()
                continue
            assert crc == crc16(body), "firmware sent a frame with a bad CRC"
            assert m.payload_length_ok(body[2], n), f"bad length {n} for type {body[2]}"
            self.synced = True
            out.append((body[1], body[2], body[3:]))
            del self.buf[: n + 6]

    def _skip_byte(self) -> None:
        """Not a frame start but part of a cut frame: look for the next start."""
        del self.buf[:1]
        self.synced = self.cut_allowed = False

    def wait_for(self, msg_type: int, timeout: float = WAIT, **match: int) -> bytes:
        """The next frame of `msg_type` (an ACK also matching seq/type); frames before it
        are dropped, frames after it stay for the next call."""
        deadline = time.monotonic() + timeout
        while True:
            for i, (_, t, payload) in enumerate(self.unread):
                if t != msg_type:
                    continue
                if msg_type == m.MsgType.ACK:
                    seq, typ, _ = payload
                    if match.get("seq", seq) != seq or match.get("type", typ) != typ:
                        continue
                del self.unread[: i + 1]
                return payload
            self.unread.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {m.MsgType(msg_type).name} {match} within {timeout} s")
            self._fill(min(left, 0.05))
            self.unread += self._parse()

    def ack(self, seq: int, msg_type: int, timeout: float = WAIT) -> int:
        return self.wait_for(m.MsgType.ACK, timeout, seq=seq, type=msg_type)[2]

    def board(self, timeout: float = WAIT) -> tuple[int, int, str]:
        payload = self.wait_for(m.MsgType.BOARD, timeout)
        t_ms, flags, packed = struct.unpack(m.BOARD_FORMAT, payload)
        states = [(packed[i // 2] >> (4 * (i % 2))) & 0x0F for i in range(64)]
        return t_ms, flags, "".join(m.STATE_CHARS[s] for s in states)

    def wait_board(self, want: str, timeout: float = WAIT) -> str:
        deadline = time.monotonic() + timeout
        seen = ""
        while time.monotonic() < deadline:
            _, _, seen = self.board()
            if seen == want:
                return seen
        return seen
