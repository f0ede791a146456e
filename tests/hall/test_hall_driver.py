"""The host driver against a protocol-level fake board on a pseudo-terminal."""

from __future__ import annotations

import time

import pytest
from hall_fake_device import START, FakeDevice

from controller.hall import messages as m
from controller.hall.driver import HallBoard
from controller.hall.errors import HallError, LinkLost, ProtocolMismatch
from controller.hall.leds import decode_led_payload
from controller.hall.link import LinkState, LinkStatus
from controller.observation import Observation
from controller.position import Position

#: How long to wait for something that should happen. Generous: on a loaded host the
#: kernel can hold pseudo-terminal traffic back for seconds; a passing test never waits
#: this long.
WAIT = 20.0


def next_item(board: HallBoard, want: type, timeout: float = WAIT) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        item = board.get(timeout=0.05)
        if isinstance(item, want):
            return item
    raise AssertionError(f"no {want.__name__} within {timeout} s")


def collect(board: HallBoard, frames: int) -> list[object]:
    """Everything reported while ``frames`` more good frames arrived: a window counted in
    the board's frames, which a slow host cannot cut short."""
    out = []
    target = board.stats.frames + frames
    deadline = time.monotonic() + WAIT
    while board.stats.frames < target:
        if time.monotonic() > deadline:
            raise AssertionError(f"{board.stats.frames} of {target} frames within {WAIT} s")
        item = board.get(timeout=0.02)
        if item is not None:
            out.append(item)
    # what those frames made is queued before they are counted
    while (item := board.get(timeout=0)) is not None:
        out.append(item)
    return out


@pytest.fixture
def device():
    with FakeDevice() as dev:
        yield dev


def test_handshake_reports_identity_and_the_board(device):
    with HallBoard(device.port) as board:
        assert board.identity is not None and board.identity.board_id == 0xCAFE
        status = next_item(board, LinkStatus)
        assert status.state is LinkState.CONNECTED and "1.2.3" in status.message
        obs = next_item(board, Observation)
        assert obs.board == START
        device.board = START[:19] + "X" + START[20:]
        obs2 = next_item(board, Observation)
        assert obs2.board[19] == "X" and obs2.t >= obs.t
    # the handshake sent IDENTIFY then SET_MODE(board, default rate)
    types = [t for t, _ in device.executed]
    assert types[:2] == [m.MsgType.IDENTIFY, m.MsgType.SET_MODE]


def test_repeated_boards_are_reported_once(device):
    with HallBoard(device.port) as board:
        items = collect(board, 40)
    assert [i.board for i in items if isinstance(i, Observation)] == [START]


def test_port_is_opened_exclusively(device):
    with HallBoard(device.port):
        with pytest.raises(LinkLost, match="ttyKAESHI"):
            HallBoard(device.port).open()


def test_missing_port_is_a_clear_error(tmp_path):
    with pytest.raises(LinkLost, match="no sensor board at .*nothing: that port does not exist"):
        HallBoard(str(tmp_path / "nothing")).open()


def test_wrong_protocol_version_names_both_versions():
    with FakeDevice(protocol_version=2) as dev:
        with pytest.raises(ProtocolMismatch, match=r"protocol v2.*host speaks protocol v1"):
            HallBoard(dev.port).open(timeout=WAIT)


def test_silent_port_is_not_mistaken_for_a_board(device):
    device.ignore_acks = 10**6
    with pytest.raises(HallError, match="no answer from a Kaeshi sensor board"):
        HallBoard(device.port).open(timeout=0.5)


def test_set_leds_is_sent_and_acknowledged(device):
    with HallBoard(device.port) as board:
        board.set_leds(
            {"d3": ((255, 0, 0), "slow_blink"), "e6": ((0, 255, 0), "steady")}, wait=True
        )
    payloads = [p for t, p in device.executed if t == m.MsgType.SET_LEDS]
    assert len(payloads) == 1
    lit = decode_led_payload(payloads[0])
    assert lit == {19: ((64, 0, 0), m.LedPattern.SLOW_BLINK), 44: ((0, 64, 0), m.LedPattern.STEADY)}


def test_commands_are_retried_with_the_same_seq(device):
    with HallBoard(device.port) as board:
        device.ignore_acks = 2
        board.set_mode(m.Mode.BOARD, 50)
        ours = [s for s, t, p in device.commands
                if t == m.MsgType.SET_MODE and p == bytes((0, 50))]
    # two tries swallowed, the third answered: all on one SEQ
    assert len(ours) >= 3 and len(set(ours)) == 1
    executed = [p for t, p in device.executed if t == m.MsgType.SET_MODE]
    assert executed[-1] == bytes((0, 50)) and len(executed) == 2
    assert board.stats.retries >= 2


def test_unanswered_command_fails_after_six_tries(device):
    with HallBoard(device.port) as board:
        device.ignore_acks = 6
        with pytest.raises(HallError, match="SET_MODE .* no ACK after 6 tries"):
            board.set_mode(m.Mode.BOARD, 50)


def test_handshake_mode_is_asked_again_until_the_board_answers(device):
    device.ignore_type[m.MsgType.SET_MODE] = 7  # more than all the tries of one command
    with HallBoard(device.port) as board:  # open() returns once the mode is acknowledged
        assert board.connected
    seqs = [s for s, t, _ in device.commands if t == m.MsgType.SET_MODE]
    assert len(seqs) >= 8 and len(set(seqs)) >= 2  # a new SEQ once the first gave up
    assert m.MsgType.SET_MODE in [t for t, _ in device.executed]


def test_garbage_and_dropped_bytes_never_make_a_false_board(device):
    device.garbage_every = 3
    device.drop_byte_every = 5
    with HallBoard(device.port) as board:
        items = collect(board, 60)
        assert board.stats.crc_errors + board.stats.skipped_bytes > 0
    boards = [i.board for i in items if isinstance(i, Observation)]
    assert boards == [START]


def test_unplug_and_replug_reconnects_and_says_so(device):
    with HallBoard(device.port) as board:
        next_item(board, Observation)
        device.unplug()
        lost = next_item(board, LinkStatus)
        while lost.state is LinkState.CONNECTED:
            lost = next_item(board, LinkStatus)
        assert lost.state is LinkState.DISCONNECTED
        time.sleep(0.3)  # the driver keeps trying to reopen the port meanwhile
        device.replug()
        back = next_item(board, LinkStatus)
        assert back.state is LinkState.RECONNECTED and "unchanged" in back.message


def test_moves_made_while_unplugged_are_inferred(device):
    pos = Position.start()
    with HallBoard(device.port) as board:
        next_item(board, Observation)
        device.unplug()
        next_item(board, LinkStatus)
        after1 = pos.play("f5")
        after2 = after1.play("f6")
        device.board = after2.board_string()
        time.sleep(0.2)
        device.replug()
        status = next_item(board, LinkStatus)
        while status.state is not LinkState.MOVES_INFERRED:
            status = next_item(board, LinkStatus)
        assert status.moves == (("black", "f5"), ("white", "f6"))
        first = next_item(board, Observation)
        second = next_item(board, Observation)
    assert (first.board, second.board) == (after1.board_string(), after2.board_string())


def test_unexplainable_change_while_unplugged_is_flagged(device):
    with HallBoard(device.port) as board:
        next_item(board, Observation)
        device.unplug()
        next_item(board, LinkStatus)
        device.board = "X" + START[1:]  # a1 is no legal move
        device.replug()
        status = next_item(board, LinkStatus)
        while status.state is LinkState.DISCONNECTED:
            status = next_item(board, LinkStatus)
        assert status.state is LinkState.POSITION_UNCERTAIN
        assert status.before == START and status.after == "X" + START[1:]
        assert next_item(board, Observation).board == "X" + START[1:]


def test_board_restart_is_noticed_and_configuration_resent(device):
    with HallBoard(device.port) as board:
        board.set_leds({"a1": ((10, 20, 30), "steady")}, wait=True)
        board.set_mode(m.Mode.BOARD, 50)
        next_item(board, Observation)
        time.sleep(0.1)
        device.restart(watchdog=True)
        status = next_item(board, LinkStatus)
        assert status.state is LinkState.BOARD_RESTARTED and "watchdog" in status.message
        status = next_item(board, LinkStatus)
        assert status.state is LinkState.RECONNECTED
        reconfigured = [m.MsgType.IDENTIFY, m.MsgType.SET_MODE, m.MsgType.SET_LEDS]
        deadline = time.monotonic() + WAIT
        while [t for t, _ in device.executed[-3:]] != reconfigured:
            assert time.monotonic() < deadline, f"not reconfigured: {device.executed[-3:]}"
            time.sleep(0.02)
    assert device.executed[-2][1] == bytes((0, 50))


def test_raw_mode_delivers_readings(device):
    device.readings = list(range(100, 164))
    with HallBoard(device.port) as board:
        board.set_mode(m.Mode.RAW)
        board.clear_raw()
        raws = board.read_raw(5, timeout=WAIT)
    assert all(r.readings == tuple(range(100, 164)) for r in raws)


def test_a_silent_board_is_declared_lost_and_found_again(device):
    with HallBoard(device.port, silence_timeout=0.3) as board:
        next_item(board, Observation)
        device.silent = True
        lost = next_item(board, LinkStatus)
        while lost.state is LinkState.CONNECTED:
            lost = next_item(board, LinkStatus)
        assert lost.state is LinkState.DISCONNECTED and "no data for 0.3 s" in lost.message
        device.silent = False
        back = next_item(board, LinkStatus)
        assert back.state is LinkState.RECONNECTED


def test_firmware_swapped_while_unplugged_stops_the_driver(device):
    with HallBoard(device.port) as board:
        next_item(board, Observation)
        device.unplug()
        device.protocol_version = 3
        device.replug()
        items = list(board)  # iteration ends on the fatal status
    final = items[-1]
    assert isinstance(final, LinkStatus) and final.state is LinkState.PROTOCOL_MISMATCH
    assert "protocol v3" in final.message and "protocol v1" in final.message
    with pytest.raises(ProtocolMismatch):
        board.set_mode(m.Mode.BOARD)


def test_command_while_unplugged_fails_and_is_never_sent_late(device):
    with HallBoard(device.port) as board:
        next_item(board, Observation)
        device.unplug()
        next_item(board, LinkStatus)
        with pytest.raises(HallError, match="no answer in 0.3 s"):
            board.command(m.MsgType.SET_MODE, bytes((0, 77)), timeout=0.3)
        device.replug()
        next_item(board, LinkStatus)
        # commands go out one at a time in order: once a later one is answered, the
        # abandoned one had its chance to be sent late
        board.set_mode(m.Mode.BOARD, 0)
    assert bytes((0, 77)) not in [p for t, p in device.executed if t == m.MsgType.SET_MODE]


def test_iteration_ends_when_closed_and_status_serialises(device):
    board = HallBoard(device.port)
    board.open()
    first = board.get(timeout=1)
    board.close()
    rest = list(board)
    assert isinstance(first, LinkStatus)
    assert first.to_dict()["link"] == "connected" and first.up and str(first) == first.message
    assert isinstance(rest[-1], LinkStatus) and rest[-1].state is LinkState.CLOSED
