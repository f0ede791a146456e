"""The pure frame parser: round trips, resynchronisation, and fuzzing."""

from __future__ import annotations

import random
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.hall import messages as m
from controller.hall.frames import (
    AckMsg,
    BoardMsg,
    FrameParser,
    HeartbeatMsg,
    IdentityMsg,
    PayloadError,
    RawMsg,
    crc16,
    decode,
    decode_board,
    encode_board,
    encode_frame,
)

BOARD = "-" * 19 + "X" + "-" * 7 + "XX" + "-" * 6 + "XO" + "-" * 10 + "xo?" + "-" * 14


def board_frame(seq: int, board: str = BOARD, t_ms: int = 1000, flags: int = 1) -> bytes:
    return encode_frame(seq, m.MsgType.BOARD, struct.pack("<IB", t_ms, flags) + encode_board(board))


def test_crc_is_ccitt_false():
    assert crc16(b"123456789") == m.CRC_CHECK == 0x29B1


def test_frame_layout_matches_the_protocol():
    f = encode_frame(7, m.MsgType.ACK, bytes((3, 0x82, 0)))
    assert f[0] == 0xA5 and f[1] == 3 and f[2] == 7 and f[3] == 0x04
    assert int.from_bytes(f[-2:], "little") == crc16(f[1:-2])


def test_every_device_message_round_trips():
    frames = [
        board_frame(1),
        encode_frame(2, m.MsgType.IDENTITY, struct.pack(m.IDENTITY_FORMAT, 1, 1, 0, 3, 77, 99, 5)),
        encode_frame(3, m.MsgType.HEARTBEAT, struct.pack("<IB", 123456, 2)),
        encode_frame(4, m.MsgType.ACK, bytes((9, 0x83, 2))),
        encode_frame(5, m.MsgType.RAW, struct.pack("<I64H", 55, *range(0, 1024, 16))),
    ]
    msgs = [decode(f) for f in FrameParser().feed(b"".join(frames))]
    assert msgs == [
        BoardMsg(1, 1000, 1, BOARD),
        IdentityMsg(2, 1, 1, 0, 3, 77, 99, 5),
        HeartbeatMsg(3, 123456, 2),
        AckMsg(4, 9, 0x83, 2),
        RawMsg(5, 55, tuple(range(0, 1024, 16))),
    ]
    assert msgs[1].firmware == "1.0.3"


def test_board_nibbles_low_first():
    payload = bytes(5) + encode_board("X-" + "O" * 62)
    assert payload[5] == 0x01 and payload[6] == 0x22
    assert decode_board(payload) == "X-" + "O" * 62


def test_frames_split_anywhere_are_reassembled():
    stream = board_frame(1) + board_frame(2, "-" * 64)
    for cut in range(len(stream) + 1):
        p = FrameParser()
        frames = p.feed(stream[:cut]) + p.feed(stream[cut:])
        assert [f.seq for f in frames] == [1, 2]


def test_garbage_before_between_and_after_is_skipped():
    p = FrameParser()
    stream = b"\x00\xa5\xa5\xff" + board_frame(1) + b"\xa5\x10garbage" + board_frame(2) + b"\xa5"
    assert [f.seq for f in p.feed(stream)] == [1, 2]
    assert p.skipped_bytes >= 4


def test_a_dropped_byte_costs_only_that_frame():
    f1, f2, f3 = board_frame(1), board_frame(2), board_frame(3)
    broken = f2[:10] + f2[11:]
    frames = FrameParser().feed(f1 + broken + f3)
    assert [f.seq for f in frames] == [1, 3]


def test_a_flipped_bit_is_caught_by_the_crc():
    f = bytearray(board_frame(1))
    f[20] ^= 0x04
    p = FrameParser()
    assert p.feed(bytes(f) + board_frame(2))[0].seq == 2
    assert p.crc_errors == 1


def test_oversized_length_and_unknown_type_resync():
    bad_len = bytes((0xA5, 241, 0, 1)) + bytes(10)
    unknown = encode_frame(0, 0x7F, b"abc")
    wrong_len = encode_frame(0, m.MsgType.ACK, b"ab")
    host_cmd = encode_frame(0, m.MsgType.SET_MODE, b"\x00\x00")  # not for the host
    frames = FrameParser().feed(bad_len + unknown + wrong_len + host_cmd + board_frame(9))
    assert [f.seq for f in frames] == [9]


def test_device_side_parser_accepts_commands_of_variable_length():
    cal = encode_frame(4, m.MsgType.WRITE_CAL, bytes((0, 2)) + bytes(18))
    bad = encode_frame(5, m.MsgType.WRITE_CAL, bytes((0, 2)) + bytes(17))
    assert [f.seq for f in FrameParser(host_side=False).feed(cal + bad)] == [4]


def test_bad_square_state_is_a_payload_error_not_a_board():
    payload = struct.pack("<IB", 0, 0) + bytes((0x06,)) + bytes(31)
    f = FrameParser().feed(encode_frame(1, m.MsgType.BOARD, payload))[0]
    with pytest.raises(PayloadError, match="unknown square state"):
        decode(f)


def test_payload_too_long_is_refused():
    with pytest.raises(ValueError, match="exceeds 240"):
        encode_frame(0, m.MsgType.RAW, bytes(241))


# ------------------------------------------------------------------ fuzzing

boards = st.text(alphabet="-XOxo?", min_size=64, max_size=64)


def parse_all(stream: bytes, chunks: list[int]) -> list:
    p = FrameParser()
    out = []
    pos = 0
    for size in chunks:
        out += p.feed(stream[pos : pos + size])
        pos += size
    out += p.feed(stream[pos:])
    return out


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000), st.lists(st.integers(1, 64), max_size=40))
def test_random_bytes_never_raise_and_never_make_a_board(data, chunks):
    for frame in parse_all(data, chunks):
        try:
            decode(frame)
        except PayloadError:
            pass
        # only byte-exact frames of the input, CRC included, are ever delivered
        assert encode_frame(frame.seq, frame.type, frame.payload) in data


# A frame whose bytes were dropped, inserted or duplicated is checked against a CRC
# read from the wrong place: CRC-16 lets one such frame in 65,536 through (a board for
# one reading, which the arbiter's settling ignores). Hypothesis would find one by
# chance in about one run in a hundred, so the examples are fixed (derandomize): the
# same 300 streams, every mutation kind among them, on every machine.
@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    st.lists(boards, min_size=1, max_size=12),
    st.lists(
        st.tuples(
            st.sampled_from(["flip", "drop", "insert", "dup"]), st.integers(0, 10**6),
            st.integers(0, 255)
        ),
        max_size=12,
    ),
    st.lists(st.integers(1, 50), max_size=30),
)
def test_mutated_streams_only_yield_boards_that_were_sent(sent, mutations, chunks):
    frames = [board_frame(i & 0xFF, b, t_ms=i) for i, b in enumerate(sent)]
    stream = bytearray(b"".join(frames))
    for kind, where, value in mutations:
        if not stream:
            break
        at = where % len(stream)
        if kind == "flip":
            stream[at] ^= 1 << (value % 8)
        elif kind == "drop":
            del stream[at]
        elif kind == "insert":
            stream.insert(at, value)
        else:
            stream[at:at] = stream[at : at + value % 8]
    got = []
    for frame in parse_all(bytes(stream), chunks):
        msg = decode(frame)
        assert isinstance(msg, BoardMsg)
        got.append((msg.t_ms, msg.board))
    assert set(got) <= set(enumerate(sent))
    if not mutations:
        assert got == [(i, b) for i, b in enumerate(sent)]


def test_long_random_mix_of_frames_and_noise():
    rng = random.Random(7)
    sent, stream = [], bytearray()
    for i in range(500):
        board = "".join(rng.choice("-XOxo?") for _ in range(64))
        f = bytearray(board_frame(i & 0xFF, board, t_ms=i))
        if rng.random() < 0.2:
            f[rng.randrange(len(f))] ^= 1 << rng.randrange(8)
        else:
            sent.append((i, board))
        stream += f
        if rng.random() < 0.3:
            stream += bytes(rng.randrange(256) for _ in range(rng.randrange(30)))
    p = FrameParser()
    got = []
    for k in range(0, len(stream), 97):
        got += [(d.t_ms, d.board) for d in map(decode, p.feed(bytes(stream[k : k + 97])))]
    assert set(got) <= set(sent)
    assert len(got) >= len(sent) * 0.95  # noise costs few clean frames
