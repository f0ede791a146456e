"""The one reader of the pages' WebSocket messages, against hostile values."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.browser.wire import (
    MAX_DEVICE_MS,
    DeviceReader,
    FrameMsg,
    Press,
    WireError,
    encode_frame,
    encode_health,
    encode_pong,
    encode_press,
    parse_frame,
    parse_text,
)
from controller.squares import Color

JPEG = b"\xff\xd8" + b"\x00" * 20 + b"\xff\xd9"
device_ms = st.floats(min_value=1.0, max_value=MAX_DEVICE_MS / 2, allow_nan=False)
hostile = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(),
    st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=3), st.integers(),
                                                          max_size=2),
)


@given(st.text(max_size=300))
def test_any_text_is_read_or_refused_with_a_reason(text):
    for role in ("camera", "clock"):
        try:
            parse_text(text, role)
        except WireError as exc:
            assert str(exc)


@given(st.sampled_from(["pong", "press", "pause", "health"]),
       st.dictionaries(st.sampled_from(["id", "t", "seq", "color", "visible", "battery",
                                        "charging", "extra"]), hostile, max_size=5))
def test_hostile_fields_are_refused_or_read_as_exactly_valid(kind, fields):
    text = json.dumps({"type": kind, **fields})
    try:
        msg = parse_text(text, "clock")
    except WireError as exc:
        assert str(exc)
        return
    t = getattr(msg, "t", None)
    if t is not None:
        assert math.isfinite(t) and 0 < t < MAX_DEVICE_MS
    assert "extra" not in fields


@pytest.mark.parametrize("text,why", [
    ('{"type":"pong","id":1,"t":NaN}', "not a number"),
    ('{"type":"pong","id":1,"t":1e400}', "no device time"),
    ('{"type":"pong","id":true,"t":5}', "whole number"),
    ('{"type":"press","color":"\\ud800","t":5,"seq":1}', "surrogate"),
    ('{"type":"press","color":"red","t":5,"seq":1}', "black"),
    ('{"type":"press","color":"black","t":-5,"seq":1}', "no device time"),
    ('{"type":"health","visible":true,"battery":1.5,"charging":null}', "0 to 1"),
    ('{"type":"frame"}', "unknown message type"),
])
def test_named_hostile_values_are_refused_with_what_is_wrong(text, why):
    with pytest.raises(WireError, match=why):
        parse_text(text, "clock")


def test_a_camera_page_sends_no_presses():
    with pytest.raises(WireError, match="camera page sends no 'press'"):
        parse_text(encode_press(Color.BLACK, 5.0, 1), "camera")


@given(st.lists(st.tuples(device_ms, st.integers(0, 2**32 - 1)), min_size=1, max_size=8))
def test_times_that_run_backwards_and_numbers_that_repeat_are_refused(stamps):
    reader = DeviceReader("clock")
    last_t, last_seq = -math.inf, -1
    for t, seq in stamps:
        text = encode_press(Color.WHITE, t, seq)
        if t < last_t or seq <= last_seq:
            with pytest.raises(WireError):
                reader.text(text)
        else:
            assert reader.text(text) == Press(Color.WHITE, t, seq)
            last_t, last_seq = t, seq


def test_a_pong_must_answer_a_ping_sent():
    reader = DeviceReader("camera")
    with pytest.raises(WireError, match="answers no ping"):
        reader.text(encode_pong(3, 100.0))
    reader.pings[3] = 1.0
    assert reader.text(encode_pong(3, 100.0)).id == 3


@given(device_ms, st.integers(0, 2**32 - 1), st.binary(max_size=64))
def test_frames_round_trip_and_anything_else_is_refused(t, seq, body):
    jpeg = b"\xff\xd8" + body + b"\xff\xd9"
    assert parse_frame(encode_frame(t, seq, jpeg)) == FrameMsg(t, seq, jpeg)
    with pytest.raises(WireError):
        parse_frame(encode_frame(t, seq, jpeg)[:-1])


@given(st.binary(max_size=64))
def test_any_bytes_are_a_frame_or_refused(data):
    try:
        msg = parse_frame(data)
    except WireError:
        return
    assert math.isfinite(msg.t) and msg.jpeg[:2] == b"\xff\xd8"


@settings(max_examples=50)
@given(st.floats(), st.integers(-10, 2**33))
def test_every_encoder_refuses_what_the_reader_refuses(t, seq):
    for encode in (lambda: encode_press(Color.BLACK, t, seq), lambda: encode_pong(seq, t),
                   lambda: encode_frame(t, seq, JPEG)):
        try:
            out = encode()
        except (WireError, ValueError, OverflowError):
            continue
        if isinstance(out, bytes):
            parse_frame(out)
        else:
            parse_text(out, "clock")


def test_health_is_read():
    msg = parse_text(encode_health(False, 0.1, False), "camera")
    assert msg.visible is False and msg.battery == 0.1
