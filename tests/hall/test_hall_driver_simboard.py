"""The host driver against the firmware's own simulator on a pseudo-terminal."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from controller.hall.driver import HallBoard
from controller.hall.link import LinkState, LinkStatus
from controller.hall.simboard import SimBoard
from controller.observation import Observation
from controller.position import Position

START = Position.start().board_string()
#: How long to wait for something that should happen. Generous: on a loaded host the
#: kernel can hold pseudo-terminal traffic back for seconds (both ends wait on its
#: buffer worker); a passing test never waits this long.
WAIT = 20.0


def next_of(
    board: HallBoard, want: type, timeout: float = WAIT, skip: tuple[LinkState, ...] = ()
) -> object:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        item = board.get(timeout=0.05)
        if isinstance(item, want) and not (isinstance(item, LinkStatus) and item.state in skip):
            return item
    raise AssertionError(f"no {want.__name__} within {timeout} s")


def wait_until(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {WAIT} s")
        time.sleep(0.02)


def lay_out(sim: SimBoard, board: str) -> None:
    """Put the discs down and wait until the firmware's scan and debounce took them in:
    a driver connecting earlier would rightly report the boards in between first."""
    sim.set_board(board)
    assert sim.wait_state(board, timeout=WAIT) == board


@pytest.fixture
def sim():
    with SimBoard(step_us=100) as s:
        lay_out(s, START)
        yield s


def test_first_board_is_reported_once_settled(sim):
    with HallBoard(sim.port) as board:
        status = next_of(board, LinkStatus)
        assert status.state is LinkState.CONNECTED and "protocol v1" in status.message
        assert next_of(board, Observation).board == START  # no all-unknown boot board


def test_every_board_character_comes_through(sim):
    wanted = "Xx" + "Oo" + "?" + START[5:]
    with HallBoard(sim.port) as board:
        next_of(board, Observation)
        sim.set_board(wanted)
        seen = [next_of(board, Observation).board]
        while seen[-1] != wanted and len(seen) < 10:
            seen.append(next_of(board, Observation).board)
    assert seen[-1] == wanted


def test_cable_pulled_and_put_back(sim):
    with HallBoard(sim.port) as board:
        next_of(board, Observation)
        sim.unplug()
        lost = next_of(board, LinkStatus, skip=(LinkState.CONNECTED,))
        assert lost.state is LinkState.DISCONNECTED and not lost.up
        time.sleep(0.5)  # the driver keeps trying to reopen the port meanwhile
        sim.replug()
        back = next_of(board, LinkStatus)
        assert back.state is LinkState.RECONNECTED and back.up
        assert board.stats.disconnects == 1


def test_moves_made_while_unplugged_are_replayed(sim):
    pos = Position.start()
    p1 = pos.play("f5")
    p2 = p1.play("d6")
    p3 = p2.play("c3")
    with HallBoard(sim.port) as board:
        next_of(board, Observation)
        sim.unplug()
        next_of(board, LinkStatus, skip=(LinkState.CONNECTED,))
        sim.set_board(p3.board_string())
        sim.replug()
        status = next_of(board, LinkStatus, skip=(LinkState.DISCONNECTED,))
        assert status.state is LinkState.MOVES_INFERRED
        assert status.moves == (("black", "f5"), ("white", "d6"), ("black", "c3"))
        boards = [next_of(board, Observation).board for _ in range(3)]
    assert boards == [p1.board_string(), p2.board_string(), p3.board_string()]


def test_ambiguous_change_is_flagged_not_guessed(sim):
    # c4 c3 d3 and d3 c3 c4 give the same board: the driver must not pick one.
    after = Position.start().play("c4").play("c3").play("d3").board_string()
    with HallBoard(sim.port) as board:
        next_of(board, Observation)
        sim.unplug()
        next_of(board, LinkStatus, skip=(LinkState.CONNECTED,))
        sim.set_board(after)
        sim.replug()
        status = next_of(board, LinkStatus, skip=(LinkState.DISCONNECTED,))
        assert status.state is LinkState.POSITION_UNCERTAIN
        assert "several move orders" in status.message
        assert (status.before, status.after) == (START, after)
        assert next_of(board, Observation).board == after


def test_official_position_gives_the_side_to_move(sim):
    official = Position.start().play("f5")
    lay_out(sim, official.board_string())
    with HallBoard(sim.port, official_position=lambda: official) as board:
        next_of(board, Observation)
        sim.unplug()
        next_of(board, LinkStatus, skip=(LinkState.CONNECTED,))
        nxt = official.play("f6")
        sim.set_board(nxt.board_string())
        sim.replug()
        status = next_of(board, LinkStatus, skip=(LinkState.DISCONNECTED,))
        assert status.state is LinkState.MOVES_INFERRED
        assert status.moves == (("white", "f6"),)


def test_watchdog_restart_is_reported_and_leds_restored(sim):
    with HallBoard(sim.port) as board:
        board.set_leds({"c4": ((0, 255, 0), "steady")}, wait=True)
        next_of(board, Observation)
        time.sleep(0.1)
        sim.watchdog_reset()
        status = next_of(board, LinkStatus, skip=(LinkState.CONNECTED,))
        assert status.state is LinkState.BOARD_RESTARTED and "watchdog" in status.message
        back = next_of(board, LinkStatus)
        assert back.state is LinkState.RECONNECTED and "unchanged" in back.message
        wait_until(lambda: sim.leds()[26] == (0, 64, 0), "LED c4 restored after the restart")


def test_led_overlay_reaches_the_strip(sim):
    with HallBoard(sim.port) as board:
        board.set_leds({"a1": ((255, 0, 0), "steady"), "h8": ((0, 0, 255), "steady")}, wait=True)
        wait_until(lambda: sim.leds()[0] != (0, 0, 0), "LED a1 lit")
        leds = sim.leds()
    assert leds[0] == (64, 0, 0) and leds[63] == (0, 0, 64)
    assert all(c == (0, 0, 0) for c in leds[1:63])


def test_first_connection_is_not_a_gap_even_with_an_official_position(sim):
    lay_out(sim, "-" * 64)  # the service knows the start position; the table is empty
    with HallBoard(sim.port, official_position=Position.start) as board:
        items = [board.get(timeout=WAIT)]
        while not isinstance(items[-1], Observation | None):
            items.append(board.get(timeout=WAIT))
    # a gap would be reported (moves inferred, or the position uncertain) before the
    # first board is passed on
    assert [type(i) for i in items] == [LinkStatus, Observation]
    assert items[0].state is LinkState.CONNECTED
    assert items[1].board == "-" * 64


def test_refused_command_names_the_reason(sim):
    from controller.hall import messages as m
    from controller.hall.errors import CommandFailed

    with HallBoard(sim.port) as board:
        with pytest.raises(CommandFailed, match="refused SET_MODE: bad value"):
            board.command(m.MsgType.SET_MODE, bytes((7, 0)))
        board.set_mode(m.Mode.BOARD, 0)  # the link is still fine afterwards


def test_power_cycle_is_a_restart_without_the_watchdog(sim):
    with HallBoard(sim.port) as board:
        next_of(board, Observation)
        time.sleep(0.1)
        sim.power_cycle()
        status = next_of(board, LinkStatus, skip=(LinkState.CONNECTED,))
        assert status.state is LinkState.BOARD_RESTARTED
        assert "watchdog" not in status.message and "a reset" in status.message
        assert next_of(board, LinkStatus).state is LinkState.RECONNECTED
        assert board.stats.restarts == 1
