"""A 6x6 game on the 8x8 sensor board: played on its middle, the outer squares kept empty."""

from __future__ import annotations

import pytest
from hall_fake_device import FakeDevice, run_link_scenario, set_leds_and_close
from hypothesis import given
from hypothesis import strategies as st

from controller.arbiter import ArbiterConfig, arbitrate
from controller.boardsize import BoardSizeError
from controller.hall import messages as m
from controller.hall.host import open_link
from controller.hall.replay import observations_via_hall
from controller.hall.window import GameWindow, OffBoard, grid_size
from controller.observation import Observation
from controller.position import Position
from controller.simulator import SimOptions, random_game, simulate_game
from controller.squares import Color


def test_the_grid_is_the_firmware_configuration():
    assert grid_size().squares == m.SQUARES


@given(st.lists(st.sampled_from("-XO"), min_size=36, max_size=36),
       st.sampled_from([Color.BLACK, Color.WHITE]))
def test_a_six_by_six_position_goes_to_the_grid_and_back(cells, to_move):
    window = GameWindow(6)
    pos = Position.from_board_string("".join(cells), to_move, 6)
    on_grid = window.grid_position(pos)
    assert on_grid.size == 8 and on_grid.to_move is to_move
    board, off = window.game_board(on_grid.board_string())
    assert board == pos.board_string() and off.squares == ()
    assert on_grid.counts() == pos.counts()


def test_the_six_by_six_start_is_the_eight_by_eight_start_on_the_grid():
    assert GameWindow(6).grid_position(Position.start(6)) == Position.start(8)


def test_squares_map_to_the_middle_and_discs_outside_are_named():
    window = GameWindow(6)
    assert window.grid_square("a1") == "b2" and window.grid_square("f6") == "g7"
    assert window.grid_square(0) == 9
    grid = list(Position.start(8).board_string())
    grid[0] = "X"  # a1 of the sensor board: outside the game
    grid[63] = "o"
    board, off = window.game_board("".join(grid))
    assert board == Position.start(6).board_string()
    assert off.squares == ("a1", "h8")
    assert "disc outside the 6x6 game on a1 h8" in off.detail


def test_a_game_bigger_than_the_sensor_board_is_refused():
    with pytest.raises(BoardSizeError, match="a 10x10 game does not fit on the 8x8 sensor board"):
        GameWindow(10)


def test_a_whole_grid_game_is_passed_through():
    window = GameWindow(8)
    assert window.whole and window.grid_square("h8") == "h8"
    start = Position.start(8).board_string()
    assert window.game_board(start) == (start, OffBoard((), 8))


def test_the_link_hands_on_six_by_six_boards_names_outside_discs_and_places_leds():
    async def scenario(dev: FakeDevice) -> list[object]:
        link = open_link(dev.port, m.BAUD, game_size=6)
        seen: list[object] = []
        async for item in link.items():
            seen.append(item)
            if isinstance(item, Observation) and len(seen) < 50:
                if dev.board[0] == "-" and not any(isinstance(i, OffBoard) for i in seen):
                    dev.board = "X" + dev.board[1:]  # a disc put down off the game
                elif isinstance(seen[-2], OffBoard) and dev.board[0] == "X":
                    dev.board = "-" + dev.board[1:]
            if sum(isinstance(i, OffBoard) for i in seen) == 2:
                # the game's c3: the board's d4
                await set_leds_and_close(link, dev, {"c3": ((255, 255, 255), 1)})
        return seen

    seen, leds = run_link_scenario(scenario)
    boards = [i.board for i in seen if isinstance(i, Observation)]
    assert boards and all(b == Position.start(6).board_string() for b in boards)
    offs = [i for i in seen if isinstance(i, OffBoard)]
    assert [o.squares for o in offs] == [("a1",), ()]
    assert len(leds) == 1 and leds[0][24 + 27] == 0x11


def test_a_six_by_six_game_through_the_firmware_gives_the_same_events():
    """A simulated 6x6 game with irregularities, laid out on the middle of the 8x8
    firmware simulator's board, read back by the driver and taken off the grid: the
    arbiter judges it as it judges the 6x6 log itself."""
    sim = simulate_game(random_game(6, 3), SimOptions(errors=0.3, seed=5, clock=True, hand=False))
    window = GameWindow(6)
    blank = "-" * 64

    def on_grid(board: str) -> str:
        cells = list(blank)
        for i, ch in enumerate(board):
            cells[window.game.to_outer(i, window.grid)] = ch
        return "".join(cells)

    grid_log = [Observation(o.t, board=on_grid(o.board)) if o.board else o
                for o in sim.observations]
    back = [Observation(o.t, board=window.game_board(o.board)[0]) if o.board else o
            for o in observations_via_hall(grid_log)]
    config = ArbiterConfig(start=Position.start(6), settled=True)
    want = [e.to_dict() for e in arbitrate(sim.observations, config)]
    assert [e.to_dict() for e in arbitrate(back, config)] == want
    assert any(e["event"] == "irregularity" for e in want)
