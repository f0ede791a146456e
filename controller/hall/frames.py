"""Frames of the sensor-board link: building them and finding them in a byte stream.

Pure: no I/O and no clock, so the parser can be fuzzed and benchmarked on its own.
A frame is only ever delivered after its CRC checked and its (TYPE, LEN) pair is
one the protocol table knows; on anything else the parser drops one byte and looks
for the next start byte, so a garbled or half-received frame costs that frame only.
"""

from __future__ import annotations

import struct
from binascii import crc_hqx
from dataclasses import dataclass

from controller.hall import messages as m


def crc16(data: bytes | bytearray | memoryview) -> int:
    """CRC-16/CCITT-FALSE (``crc_hqx`` is the same polynomial, unreflected)."""
    return crc_hqx(data, m.CRC_INIT)


def encode_frame(seq: int, msg_type: int, payload: bytes = b"") -> bytes:
    if len(payload) > m.MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {m.MAX_PAYLOAD}")
    body = bytes((len(payload), seq & 0xFF, msg_type)) + payload
    return bytes((m.SOF,)) + body + crc16(body).to_bytes(2, "little")


@dataclass(frozen=True, slots=True)
class Frame:
    seq: int
    type: int
    payload: bytes


def _device_lengths() -> dict[int, int]:
    return {
        spec.type: spec.min_length
        for spec in m.MESSAGES.values()
        if spec.direction == "device_to_host" and spec.fixed_length is not None
    }


class FrameParser:
    """Incremental parser: :meth:`feed` bytes, get back whole, checked frames.

    ``accept(type, length)`` says which frames are well formed; by default the
    device-to-host messages of the table (what the host receives). Counters tell
    how much was skipped, for the link's health figures.
    """

    def __init__(self, host_side: bool = True) -> None:
        self._buf = bytearray()
        self._lengths = _device_lengths() if host_side else None
        self.frames = 0
        self.skipped_bytes = 0
        self.crc_errors = 0

    def _known(self, msg_type: int, length: int) -> bool:
        if self._lengths is not None:
            return self._lengths.get(msg_type) == length
        return m.payload_length_ok(msg_type, length)

    def reset(self) -> None:
        """Forget a partial frame (after the link was re-opened)."""
        self.skipped_bytes += len(self._buf)
        self._buf.clear()

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        buf = self._buf
        buf += data
        out: list[Frame] = []
        i = 0
        n = len(buf)
        sof = m.SOF
        header, trailer, max_payload = m.HEADER_LEN, m.CRC_LEN, m.MAX_PAYLOAD
        lengths = self._lengths
        known = self._known
        while True:
            j = buf.find(sof, i)
            if j < 0:
                self.skipped_bytes += n - i
                i = n
                break
            self.skipped_bytes += j - i
            i = j
            if n - i < header:
                break
            length = buf[i + 1]
            if length > max_payload or not (
                lengths.get(buf[i + 3]) == length if lengths is not None
                else known(buf[i + 3], length)
            ):
                i += 1
                self.skipped_bytes += 1
                continue
            end = i + header + length + trailer
            if end > n:
                break
            body = buf[i + 1:end - 2]
            if crc_hqx(body, m.CRC_INIT) != buf[end - 2] | buf[end - 1] << 8:
                self.crc_errors += 1
                self.skipped_bytes += 1
                i += 1
                continue
            out.append(Frame(body[1], body[2], bytes(body[3:])))
            i = end
        if i:
            del buf[:i]
        self.frames += len(out)
        return out


# ------------------------------------------------------------------ messages

_NIBBLE_PAIRS: list[str | None] = []
for _b in range(256):
    _lo, _hi = _b & 0x0F, _b >> 4
    if _lo < len(m.STATE_CHARS) and _hi < len(m.STATE_CHARS):
        _NIBBLE_PAIRS.append(m.STATE_CHARS[_lo] + m.STATE_CHARS[_hi])
    else:
        _NIBBLE_PAIRS.append(None)


class PayloadError(ValueError):
    """A frame whose CRC is right but whose content the protocol does not allow."""


@dataclass(frozen=True, slots=True)
class BoardMsg:
    seq: int
    t_ms: int
    flags: int
    board: str


@dataclass(frozen=True, slots=True)
class IdentityMsg:
    seq: int
    protocol_version: int
    fw_major: int
    fw_minor: int
    fw_patch: int
    board_id: int
    calibration_crc: int
    flags: int

    @property
    def firmware(self) -> str:
        return f"{self.fw_major}.{self.fw_minor}.{self.fw_patch}"


@dataclass(frozen=True, slots=True)
class HeartbeatMsg:
    seq: int
    t_ms: int
    flags: int


@dataclass(frozen=True, slots=True)
class AckMsg:
    seq: int
    cmd_seq: int
    cmd_type: int
    status: int


@dataclass(frozen=True, slots=True)
class RawMsg:
    seq: int
    t_ms: int
    readings: tuple[int, ...]


DeviceMsg = BoardMsg | IdentityMsg | HeartbeatMsg | AckMsg | RawMsg

_BOARD = struct.Struct("<IB")
_IDENTITY = struct.Struct(m.IDENTITY_FORMAT)
_HEARTBEAT = struct.Struct(m.HEARTBEAT_FORMAT)
_ACK = struct.Struct(m.ACK_FORMAT)
_RAW = struct.Struct(m.RAW_FORMAT)


def decode_board(payload: bytes) -> str:
    """The 64-character board string of a BOARD payload's 32 square bytes."""
    pairs = _NIBBLE_PAIRS
    try:
        return "".join([pairs[b] for b in payload[5:37]])  # type: ignore[misc]
    except TypeError:
        bad = next(b for b in payload[5:37] if pairs[b] is None)
        raise PayloadError(
            f"BOARD frame holds an unknown square state in byte {bad:#04x}"
        ) from None


def encode_board(board: str) -> bytes:
    """The 32 square bytes of a board string (the inverse of :func:`decode_board`)."""
    states = [m.CHAR_TO_STATE[c] for c in board]
    return bytes(states[2 * i] | states[2 * i + 1] << 4 for i in range(32))


def decode(frame: Frame) -> DeviceMsg:
    """The message a device frame carries; :class:`PayloadError` if its content is bad."""
    t, p = frame.type, frame.payload
    if t == m.MsgType.BOARD:
        t_ms, flags = _BOARD.unpack_from(p)
        return BoardMsg(frame.seq, t_ms, flags, decode_board(p))
    if t == m.MsgType.HEARTBEAT:
        return HeartbeatMsg(frame.seq, *_HEARTBEAT.unpack(p))
    if t == m.MsgType.ACK:
        return AckMsg(frame.seq, *_ACK.unpack(p))
    if t == m.MsgType.IDENTITY:
        return IdentityMsg(frame.seq, *_IDENTITY.unpack(p))
    if t == m.MsgType.RAW:
        values = _RAW.unpack(p)
        if max(values[1:]) > m.ADC_MAX:
            raise PayloadError("RAW frame holds a reading above the ADC range")
        return RawMsg(frame.seq, values[0], tuple(values[1:]))
    raise PayloadError(f"unexpected message type {t:#04x} from the board")
