"""The sensor board's command queue on its own: one command in flight, re-sent on its SEQ
until acknowledged, and what each way of failing tells the caller.

The queue does no I/O, so the clock here is a number and the board is the test: every
frame the queue writes is read back by the project's frame parser, on the board's side.
"""

from __future__ import annotations

import pytest

from controller.hall import messages as m
from controller.hall.command_queue import CommandQueue
from controller.hall.errors import CommandFailed, LinkLost
from controller.hall.frames import AckMsg, Frame, FrameParser
from controller.hall.link import LinkStats

ACK_WAIT = m.ACK_TIMEOUT_MS / 1000
#: Payloads of the lengths the protocol table gives their commands, so the board's
#: parser takes the frames.
MODE, OTHER_MODE = b"\x01\x00", b"\x02\x00"
LEDS = bytes(m.MESSAGES[m.MsgType.SET_LEDS].min_length)
NEWER_LEDS = b"\x01" * len(LEDS)


def frame(raw: bytes | None) -> Frame:
    """The one command frame ``raw`` holds, as the board would read it."""
    assert raw is not None
    frames = FrameParser(host_side=False).feed(raw)
    assert len(frames) == 1
    return frames[0]


def ack(sent: Frame, status: int = m.Status.OK) -> AckMsg:
    return AckMsg(seq=0, cmd_seq=sent.seq, cmd_type=sent.type, status=status)


def queue() -> tuple[CommandQueue, LinkStats]:
    stats = LinkStats()
    return CommandQueue("/dev/ttyTEST", stats), stats


def test_one_command_in_flight_until_its_ack():
    q, _ = queue()
    first = q.submit(m.MsgType.SET_MODE, MODE)
    second = q.submit(m.MsgType.RESET, b"")
    sent = frame(q.next_frame(0.0, up=True))
    assert (sent.type, sent.payload) == (m.MsgType.SET_MODE, MODE)
    assert q.next_frame(0.01, up=True) is None  # the first is still waiting for its ACK
    q.on_ack(ack(sent))
    assert first.future.result(0) == ack(sent)
    after = frame(q.next_frame(0.02, up=True))
    assert after.type == m.MsgType.RESET and after.seq == (sent.seq + 1) & 0xFF
    assert not second.future.done()


def test_a_lost_frame_is_sent_again_on_the_same_seq_after_the_ack_timeout():
    q, stats = queue()
    cmd = q.submit(m.MsgType.SET_MODE, MODE)
    sent = frame(q.next_frame(0.0, up=True))
    assert q.next_frame(ACK_WAIT * 0.9, up=True) is None
    again = frame(q.next_frame(ACK_WAIT, up=True))
    assert again == sent and stats.retries == 1
    q.on_ack(ack(again))
    assert cmd.future.result(0).cmd_seq == sent.seq


def test_a_late_ack_of_another_seq_or_type_is_ignored():
    q, _ = queue()
    cmd = q.submit(m.MsgType.SET_MODE, MODE)
    sent = frame(q.next_frame(0.0, up=True))
    q.on_ack(AckMsg(0, (sent.seq - 1) & 0xFF, sent.type, m.Status.OK))
    q.on_ack(AckMsg(0, sent.seq, m.MsgType.RESET, m.Status.OK))
    assert not cmd.future.done()
    assert q.next_frame(0.01, up=True) is None  # still in flight


def test_no_ack_after_every_try_fails_the_callers_command_naming_it():
    q, stats = queue()
    cmd = q.submit(m.MsgType.RESET, b"")
    now, tries = 0.0, 0
    while (raw := q.next_frame(now, up=True)) is not None:
        frame(raw)
        tries += 1
        now += ACK_WAIT * 1.5
    assert tries == m.MAX_RETRIES + 1 and stats.retries == m.MAX_RETRIES
    with pytest.raises(CommandFailed, match=f"RESET to the sensor board on /dev/ttyTEST: "
                                            f"no ACK after {m.MAX_RETRIES + 1} tries"):
        cmd.future.result(0)


def test_a_refusal_is_the_callers_error_naming_the_status():
    q, _ = queue()
    cmd = q.submit(m.MsgType.COMMIT_CAL, b"")
    sent = frame(q.next_frame(0.0, up=True))
    q.on_ack(ack(sent, m.Status.EEPROM_FAILURE))
    with pytest.raises(CommandFailed, match="refused COMMIT_CAL: eeprom failure"):
        cmd.future.result(0)


def test_committing_a_calibration_is_given_longer_to_answer():
    q, _ = queue()
    q.submit(m.MsgType.COMMIT_CAL, b"")
    frame(q.next_frame(0.0, up=True))
    assert q.next_frame(ACK_WAIT * 2, up=True) is None
    assert q.next_frame(m.COMMIT_CAL_TIMEOUT_MS / 1000, up=True) is not None


def test_before_the_handshake_only_handshake_steps_go_out():
    q, _ = queue()
    cmd = q.submit(m.MsgType.RESET, b"")
    q.keep_leds(LEDS, send=True)
    assert q.next_frame(0.0, up=False) is None
    q.queue_internal(m.MsgType.IDENTIFY, front=True)
    assert frame(q.next_frame(0.0, up=False)).type == m.MsgType.IDENTIFY
    assert not cmd.future.done()


def test_a_handshake_step_without_ack_is_asked_again_with_a_new_seq():
    q, _ = queue()
    q.queue_internal(m.MsgType.SET_MODE, MODE)
    first = frame(q.next_frame(0.0, up=False))
    now = 0.0
    for _ in range(m.MAX_RETRIES):
        now += ACK_WAIT * 1.5
        assert frame(q.next_frame(now, up=False)) == first  # the same SEQ, re-sent
    now += ACK_WAIT * 1.5
    assert q.next_frame(now, up=False) is None  # it gives up on that SEQ ...
    again = frame(q.next_frame(now, up=False))  # ... and asks again at once
    assert (again.type, again.payload) == (m.MsgType.SET_MODE, MODE)
    assert again.seq != first.seq


def test_only_the_newest_led_picture_is_sent_when_nothing_else_waits():
    q, _ = queue()
    q.keep_leds(LEDS, send=True)
    q.keep_leds(NEWER_LEDS, send=True)
    cmd = q.submit(m.MsgType.RESET, b"")
    sent = frame(q.next_frame(0.0, up=True))
    assert sent.type == m.MsgType.RESET
    q.on_ack(ack(sent))
    leds = frame(q.next_frame(0.01, up=True))
    assert (leds.type, leds.payload) == (m.MsgType.SET_LEDS, NEWER_LEDS)
    q.on_ack(ack(leds))
    assert q.next_frame(0.02, up=True) is None
    assert cmd.future.done()


def test_a_reconnection_sends_the_led_picture_again():
    q, _ = queue()
    q.keep_leds(LEDS, send=False)
    assert q.next_frame(0.0, up=True) is None
    q.connected()
    assert frame(q.next_frame(0.0, up=True)).payload == LEDS


def test_a_lost_link_fails_the_command_in_flight_and_drops_handshake_steps():
    q, _ = queue()
    cmd = q.submit(m.MsgType.RESET, b"")
    frame(q.next_frame(0.0, up=True))
    waiting = q.submit(m.MsgType.SET_MODE, OTHER_MODE)
    q.queue_internal(m.MsgType.IDENTIFY)
    q.link_lost()
    with pytest.raises(LinkLost, match="went away during RESET"):
        cmd.future.result(0)
    nxt = frame(q.next_frame(1.0, up=True))
    assert (nxt.type, nxt.payload) == (m.MsgType.SET_MODE, OTHER_MODE)
    assert q.next_frame(1.0, up=True) is None and not waiting.future.done()


def test_a_restarted_board_is_identified_then_gets_the_callers_command_again():
    q, _ = queue()
    cmd = q.submit(m.MsgType.SET_MODE, MODE)
    sent = frame(q.next_frame(0.0, up=True))
    q.board_restarted()
    ident = frame(q.next_frame(0.01, up=True))
    assert ident.type == m.MsgType.IDENTIFY
    q.on_ack(ack(ident))
    again = frame(q.next_frame(0.02, up=True))
    assert (again.type, again.payload) == (sent.type, sent.payload)
    q.on_ack(ack(again))
    assert cmd.future.result(0).cmd_seq == again.seq


def test_a_command_withdrawn_before_it_went_out_never_goes():
    q, _ = queue()
    cmd = q.submit(m.MsgType.RESET, b"")
    q.withdraw(cmd)
    assert q.next_frame(0.0, up=True) is None


def test_failing_all_tells_every_caller():
    q, _ = queue()
    inflight = q.submit(m.MsgType.RESET, b"")
    frame(q.next_frame(0.0, up=True))
    waiting = q.submit(m.MsgType.SET_MODE, MODE)
    q.fail_all(LinkLost("closed"))
    for cmd in (inflight, waiting):
        with pytest.raises(LinkLost, match="closed"):
            cmd.future.result(0)
    assert q.next_frame(1.0, up=True) is None
