"""The one reader (and the encoders) of every WebSocket message a phone or tablet sends.

A device talks to the table over one socket per page: ``/ws/camera`` (frames, and the
page's health) or ``/ws/clock`` (presses and the arbiter's pause). Both answer the
service's clock-synchronisation pings. Text messages are JSON objects with a ``type``;
a frame is a binary message: an 8-byte little-endian float (the device's capture time
in milliseconds), a 4-byte little-endian sequence number, then one JPEG picture.

:class:`DeviceReader` reads a socket's messages in order and refuses, with a reason,
anything that is not exactly a message of its role: unknown types or keys, wrong
types (a bool is no number), NaN or infinite numbers, lone surrogates and control
characters, absurd sizes, device times out of range or running backwards, sequence
numbers that do not increase, pongs for pings never sent. Nothing past it checks
again. Every ``encode_*`` refuses what the reader would refuse.
"""

from __future__ import annotations

import json
import math
import struct
from dataclasses import dataclass
from typing import Any, Literal

from controller.squares import Color

Role = Literal["camera", "clock"]

#: Device times are milliseconds of the device's own clock (``performance.timeOrigin +
#: performance.now()``: the Unix epoch, give or take the device's error). Anything
#: outside these bounds is no clock reading.
MIN_DEVICE_MS = 0.0
MAX_DEVICE_MS = 1e13  # the year 2286
#: The largest JPEG a frame may carry, and the largest text message.
MAX_FRAME_BYTES = 1 << 20
MAX_TEXT_BYTES = 2048
MAX_SEQ = 2**32 - 1
#: A ping id is a counter the service keeps; anything above this is no ping of ours.
MAX_PING_ID = 2**31
_HEAD = struct.Struct("<dI")


class WireError(ValueError):
    """A message that is not one the page sends; the text says what and why."""


@dataclass(frozen=True, slots=True)
class Pong:
    """The device's answer to ping ``id``: its clock (ms) when the ping came."""

    id: int
    t: float


@dataclass(frozen=True, slots=True)
class Press:
    """A clock half tapped: the player whose clock stops, at the device's time."""

    color: Color
    t: float
    seq: int


@dataclass(frozen=True, slots=True)
class PauseTap:
    """The arbiter's pause on the clock page (stop, or start again)."""

    t: float
    seq: int


@dataclass(frozen=True, slots=True)
class Health:
    """What the page knows of its device: screen shown, battery, camera light."""

    visible: bool
    battery: float | None  # 0..1; None: the browser does not say
    charging: bool | None


@dataclass(frozen=True, slots=True)
class FrameMsg:
    """One camera picture: its capture time on the device, its number, its JPEG."""

    t: float
    seq: int
    jpeg: bytes


Message = Pong | Press | PauseTap | Health | FrameMsg

_FIELDS: dict[str, dict[str, str]] = {
    "pong": {"id": "int", "t": "time"},
    "press": {"color": "color", "t": "time", "seq": "seq"},
    "pause": {"t": "time", "seq": "seq"},
    "health": {"visible": "bool", "battery": "fraction?", "charging": "bool?"},
}
_ROLES: dict[Role, frozenset[str]] = {
    "camera": frozenset({"pong", "health"}),
    "clock": frozenset({"pong", "health", "press", "pause"}),
}


def _refuse_constant(name: str) -> Any:
    raise WireError(f"{name} is not a number a page sends")


def _check_text(s: str, where: str) -> None:
    for ch in s:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            raise WireError(f"{where}: a lone surrogate (U+{code:04X}) is no text")
        if code < 0x20 or 0x7F <= code < 0xA0:
            raise WireError(f"{where}: control character U+{code:04X}")


def _time(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise WireError(f"{where} must be a number of milliseconds, not {type(v).__name__}")
    v = float(v)
    if not math.isfinite(v) or not MIN_DEVICE_MS < v < MAX_DEVICE_MS:
        raise WireError(f"{where} = {v!r} is no device time")
    return v


def _int(v: Any, where: str, high: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise WireError(f"{where} must be a whole number, not {type(v).__name__}")
    if not 0 <= v <= high:
        raise WireError(f"{where} = {v} is out of range (0 to {high})")
    return v


def _field(kind: str, v: Any, where: str) -> Any:
    if kind.endswith("?"):
        if v is None:
            return None
        kind = kind[:-1]
    if kind == "time":
        return _time(v, where)
    if kind == "int":
        return _int(v, where, MAX_PING_ID)
    if kind == "seq":
        return _int(v, where, MAX_SEQ)
    if kind == "bool":
        if not isinstance(v, bool):
            raise WireError(f"{where} must be true or false")
        return v
    if kind == "fraction":
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) \
                or not 0.0 <= v <= 1.0:
            raise WireError(f"{where} must be a number from 0 to 1")
        return float(v)
    if kind == "color":
        if not isinstance(v, str):
            raise WireError(f"{where} must be \"black\" or \"white\"")
        _check_text(v, where)
        if v not in ("black", "white"):
            raise WireError(f"{where} must be \"black\" or \"white\", not {v[:20]!r}")
        return Color(v)
    raise AssertionError(kind)  # pragma: no cover - the table above is fixed


def parse_text(text: str, role: Role) -> Pong | Press | PauseTap | Health:
    """One text message of a ``role`` page, stateless (see :class:`DeviceReader`)."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_TEXT_BYTES:
        raise WireError(f"a text message longer than {MAX_TEXT_BYTES} bytes")
    _check_text(text.replace("\n", "").replace("\r", "").replace("\t", ""), "message")
    try:
        obj = json.loads(text, parse_constant=_refuse_constant)
    except json.JSONDecodeError as exc:
        raise WireError(f"not JSON: {exc.msg} at character {exc.pos}") from None
    if not isinstance(obj, dict):
        raise WireError("a message must be a JSON object")
    kind = obj.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise WireError(f"unknown message type {str(kind)[:20]!r}")
    if kind not in _ROLES[role]:
        raise WireError(f"a {role} page sends no {kind!r} message")
    for key in obj:
        _check_text(key, "key")
    fields = _FIELDS[kind]
    extra = sorted(set(obj) - set(fields) - {"type"})
    if extra:
        raise WireError(f"{kind}: unknown key {extra[0][:20]!r}")
    missing = sorted(set(fields) - set(obj))
    if missing:
        raise WireError(f"{kind}: {missing[0]!r} is missing")
    values = {k: _field(f, obj[k], f"{kind}.{k}") for k, f in fields.items()}
    if kind == "pong":
        return Pong(values["id"], values["t"])
    if kind == "press":
        return Press(values["color"], values["t"], values["seq"])
    if kind == "pause":
        return PauseTap(values["t"], values["seq"])
    return Health(values["visible"], values["battery"], values["charging"])


def parse_frame(data: bytes) -> FrameMsg:
    """One binary message of the camera page, stateless (see :class:`DeviceReader`)."""
    if len(data) < _HEAD.size + 4:
        raise WireError(f"a frame of {len(data)} bytes is too short")
    if len(data) > _HEAD.size + MAX_FRAME_BYTES:
        raise WireError(f"a frame larger than {MAX_FRAME_BYTES} bytes")
    t, seq = _HEAD.unpack_from(data)
    t = _time(t, "frame time")
    jpeg = bytes(data[_HEAD.size:])
    if jpeg[:2] != b"\xff\xd8" or jpeg[-2:] != b"\xff\xd9":
        raise WireError("the frame is not a JPEG picture")
    return FrameMsg(t, seq, jpeg)


class DeviceReader:
    """Every message of one page's socket, in order: :func:`parse_text` and
    :func:`parse_frame`, plus what only the sequence shows (times running backwards,
    numbers that do not increase, pongs for pings never sent)."""

    def __init__(self, role: Role) -> None:
        self.role = role
        self._last_t = -math.inf
        self._last_seq = -1
        self.pings: dict[int, float] = {}  # id -> service time sent, for answers to come

    def text(self, text: str) -> Pong | Press | PauseTap | Health:
        msg = parse_text(text, self.role)
        if isinstance(msg, Pong):
            if msg.id not in self.pings:
                raise WireError(f"pong {msg.id} answers no ping")
        elif isinstance(msg, Press | PauseTap):
            self._in_order(msg.t, msg.seq)
        return msg

    def frame(self, data: bytes) -> FrameMsg:
        if self.role != "camera":
            raise WireError(f"a {self.role} page sends no frames")
        msg = parse_frame(data)
        self._in_order(msg.t, msg.seq)
        return msg

    def _in_order(self, t: float, seq: int) -> None:
        if seq <= self._last_seq:
            raise WireError(f"number {seq} does not follow {self._last_seq}")
        if t < self._last_t:
            raise WireError(f"device time {t:.1f} ms runs backwards (last {self._last_t:.1f})")
        self._last_seq, self._last_t = seq, t


# ------------------------------------------------------------------- encoders
def _dumps(obj: dict[str, Any], role: Role) -> str:
    text = json.dumps(obj, separators=(",", ":"), allow_nan=False)
    parse_text(text, role)  # refuse to write what the reader would refuse
    return text


def encode_pong(id: int, t: float) -> str:
    return _dumps({"type": "pong", "id": id, "t": t}, "clock")


def encode_press(color: Color, t: float, seq: int) -> str:
    return _dumps({"type": "press", "color": Color(color).value, "t": t, "seq": seq}, "clock")


def encode_pause(t: float, seq: int) -> str:
    return _dumps({"type": "pause", "t": t, "seq": seq}, "clock")


def encode_health(visible: bool, battery: float | None, charging: bool | None) -> str:
    return _dumps({"type": "health", "visible": visible, "battery": battery,
                   "charging": charging}, "camera")


def encode_frame(t: float, seq: int, jpeg: bytes) -> bytes:
    try:
        data = _HEAD.pack(t, seq) + jpeg
    except struct.error as exc:
        raise WireError(f"frame number {seq}: {exc}") from None
    parse_frame(data)
    return data
