"""A calibration that could not tell a quarter turn: the game's first boards settle it."""

from __future__ import annotations

import numpy as np
import pytest

from controller.position import START_BOARD, Position
from controller.squares import parse_square
from controller.vision.calibrating.fit import turn
from controller.vision.colour import ColourModel
from controller.vision.geometry import apply_homography, homography_from_corners
from controller.vision.reading.board_reading import Reading
from controller.vision.reading.reader import SquareReader
from controller.vision.watching.turn_in_play import (
    KEEP,
    MAX_HELD,
    QUARTER,
    judge_turn,
    quarter_turn_squares,
    turned_board,
)
from controller.vision.watching.watcher import BoardWatcher

MIDDLE = [parse_square(s) for s in ("d4", "e4", "d5", "e5")]


def _after(*moves: str) -> str:
    p = Position.start()
    for m in moves:
        p = p.play(m)
    return p.board_string()


def _hidden(board: str, squares: list[int] = MIDDLE) -> str:
    """``board`` with a reflection over ``squares``."""
    return "".join("?" if i in squares else c for i, c in enumerate(board))


def test_the_relabelling_is_the_grid_turned_a_quarter():
    h = homography_from_corners(np.array([[100, 80], [520, 95], [560, 470], [70, 440]]))
    centres = np.array([(i % 8 + 0.5, i // 8 + 0.5) for i in range(64)])
    was = quarter_turn_squares()
    assert sorted(was) == list(range(64))
    assert np.allclose(apply_homography(turn(h, 1), centres), apply_homography(h, centres[was]))


@pytest.mark.parametrize("moves", [(), ("f5",), ("d3", "c5"), ("e6", "f4", "e3", "f6")])
def test_a_readable_opening_settles_the_turn_at_once(moves):
    board = _after(*moves)
    assert judge_turn(board).quarter == KEEP
    assert judge_turn(turned_board(board)).quarter == QUARTER


def test_a_hidden_middle_waits_for_moves_beside_it_and_holds_a_board_of_the_other_turn():
    assert judge_turn(_hidden(START_BOARD)) == judge_turn(turned_board(_hidden(START_BOARD)))
    assert judge_turn(_hidden(START_BOARD)).quarter is None
    first = _hidden(_after("f5"))  # one disc beside the middle: one square could be a misread
    assert judge_turn(first).quarter is None and not judge_turn(first).hold
    assert judge_turn(turned_board(first)).hold  # not reported the wrong way round
    second = _hidden(_after("f5", "f6"))
    assert judge_turn(second).quarter == KEEP
    assert judge_turn(turned_board(second)).quarter == QUARTER


@pytest.mark.parametrize("square", range(64))
def test_one_misread_square_never_settles_the_turn(square):
    for colour in "XO":
        board = _hidden(START_BOARD)
        if board[square] == "?":
            continue
        board = board[:square] + colour + board[square + 1:]
        assert judge_turn(board).quarter is None
        assert judge_turn(turned_board(board)).quarter is None


def _reflection(x: float, y: float, radius: float) -> list[int]:
    """The squares a round reflection centred at (x, y), in squares, hides."""
    return [i for i in range(64) if np.hypot(i % 8 + 0.5 - x, i // 8 + 0.5 - y) < radius]


def test_a_board_is_held_against_the_next_move_of_the_game_first():
    """Under a wide reflection, two moves in (d3, e3), the board read a quarter turn off
    fits a position three moves in; the game has only reached the second move."""
    board = turned_board(_hidden(_after("d3", "e3"), _reflection(4.85, 4.96, 2.77)))
    assert judge_turn(board, last_ply=1).hold
    assert not judge_turn(board, last_ply=4).hold  # any opening position would let it by


def test_over_random_openings_and_reflections_no_board_settles_the_wrong_way():
    rng = np.random.default_rng(7)
    for _ in range(400):
        p = Position.start()
        plies = int(rng.integers(1, 5))
        for _ in range(plies):
            moves = p.legal_squares()
            p = p.play(moves[int(rng.integers(len(moves)))])
        x, y = rng.uniform(2.5, 5.5, size=2)
        board = _hidden(p.board_string(), _reflection(x, y, rng.uniform(0.5, 3.0)))
        right, off = judge_turn(board, plies - 1), judge_turn(turned_board(board), plies - 1)
        assert right.quarter in (None, KEEP) and not right.hold
        assert off.quarter in (None, QUARTER)
        assert right.quarter == KEEP or off.quarter is None  # the same board settles both


def test_a_disc_misread_for_good_does_not_keep_the_turn_from_settling():
    """A reflection can show a disc where there is none for the whole game (a7 here):
    the start position still settles the turn round it."""
    a7 = parse_square("a7")
    board = START_BOARD[:a7] + "X" + START_BOARD[a7 + 1:]
    assert judge_turn(board).quarter == KEEP
    assert judge_turn(turned_board(board)).quarter == QUARTER
    two = _hidden(_after("f5"))
    two = two[:a7] + "O" + two[a7 + 1:]  # and the middle hidden: not yet
    assert judge_turn(two, 0).quarter is None


def test_past_the_opening_it_gives_up_rather_than_guess():
    p = Position.start()
    for _ in range(8):
        p = p.play(p.legal_squares()[-1])
    assert judge_turn(p.board_string()).given_up
    assert judge_turn(turned_board(p.board_string())).given_up
    assert not judge_turn(_after("f5", "f6", "e6")).given_up


def _reading(board: str) -> Reading:
    z = np.zeros(64)
    return Reading(board, np.ones(64), z, z, z, z, z, np.ones(64), np.zeros(64, bool))


def _watcher(unsettled: bool) -> BoardWatcher:
    h = homography_from_corners(np.array([[100, 80], [520, 80], [520, 400], [100, 400]]))
    reader = SquareReader(h, (640, 480), ColourModel(), 0.2, disc_bias=(0.1, 0.0))
    return BoardWatcher(reader, stable=1, turn_unsettled=unsettled)


def test_the_watcher_holds_then_turns_the_grid_and_reports_the_board_the_right_way_round():
    w = _watcher(unsettled=True)
    h = w.reader.homography.copy()
    played = [_hidden(START_BOARD), _hidden(_after("f5")), _hidden(_after("f5", "f6"))]
    seen = [w.update(k, _reading(turned_board(b))) for k, b in enumerate(played)]
    assert seen[0] is not None and seen[0].board == _hidden(START_BOARD)
    assert seen[1] is None  # fits only the other turn, not surely yet: held back
    assert w.turn_settled and not w.turn_unsettled
    assert np.allclose(w.reader.homography, turn(h, 1))
    # the discs' offset turns with the grid: the same shift in the picture
    mid = np.array([[4.0, 4.0]])
    shift = apply_homography(h, mid + (0.1, 0.0)) - apply_homography(h, mid)
    turned = w.reader.homography
    assert np.allclose(apply_homography(turned, mid + w.reader.disc_bias)
                       - apply_homography(turned, mid), shift)
    assert not np.allclose(w.reader.disc_bias, (0.1, 0.0))
    twice = turned_board(turned_board(played[2]))  # the game, half a turn round:
    assert seen[2] is not None and seen[2].board == twice  # the start cannot tell those
    assert judge_turn(seen[2].board).quarter == KEEP
    # the board held back comes out first, the right way round: the arbiter sees every move
    late = w.take_late()
    assert [(o.t, o.board) for o in late] == [(1, turned_board(turned_board(played[1])))]
    assert w.take_late() == []
    assert any("quarter turn" in m for m in w.stats.messages)
    later = w.update(3, _reading(turned_board(turned_board(_hidden(_after("f5", "f6", "e6"))))))
    assert later is not None and not w.turn_unsettled


def test_a_settled_calibration_is_read_as_it_is():
    w = _watcher(unsettled=False)
    h = w.reader.homography.copy()
    board = turned_board(_after("f5"))
    assert w.update(0, _reading(board)).board == board  # what it reads, judged as read
    assert np.allclose(w.reader.homography, h) and not w.turn_settled


def test_the_turn_is_kept_in_the_file_whole_or_a_clear_error_names_it(tmp_path):

    from controller.vision.calibration_file import (
        CalibrationError,
        CameraCalibration,
        load_calibration,
        save_calibration,
        save_settled_turn,
    )
    from controller.vision.setup import CameraSetup

    h = homography_from_corners(np.array([[100, 80], [520, 80], [520, 400], [100, 400]]))
    path = tmp_path / "cal.json"
    save_calibration(path, CameraCalibration(CameraSetup((640, 480), h, turn_unsettled=True),
                                             source="start.png"))
    assert load_calibration(path).setup.turn_unsettled
    settled = CameraSetup((640, 480), turn(h, 1), disc_bias=(0.0, 0.1))
    save_settled_turn(path, settled)
    kept = load_calibration(path)
    assert kept.source == "start.png" and not kept.setup.turn_unsettled
    assert np.allclose(kept.setup.homography, turn(h, 1)) and kept.setup.disc_bias == (0.0, 0.1)
    assert [p.name for p in tmp_path.iterdir()] == ["cal.json"]
    path.write_text("{ garbled")
    with pytest.raises(CalibrationError, match="cal.json: cannot read"):
        save_settled_turn(path, settled)
    with pytest.raises(ValueError, match="turn_unsettled must be true or false"):
        CameraSetup.from_dict(settled.to_dict() | {"turn_unsettled": "yes"})


def test_boards_held_for_a_misread_come_out_in_order_as_read_when_the_game_says_so():
    w = _watcher(unsettled=True)
    start, misread = _hidden(START_BOARD), turned_board(_hidden(_after("f5")))
    assert w.update(0, _reading(start)).board == start
    assert w.update(1, _reading(misread)) is None  # fits only the other turn: held
    assert w.update(2, _reading(start)) is None  # fits both: held too, to keep the order
    assert w.take_late() == []
    first = _hidden(_after("f5"))  # fits only the calibration's turn: the held one misread
    assert w.update(3, _reading(first)).board == first
    assert [(o.t, o.board) for o in w.take_late()] == [(1, misread), (2, start)]
    assert w.turn_unsettled and not w.turn_settled  # one board of each is no proof


def test_a_game_never_stalls_behind_boards_held_back():
    w = _watcher(unsettled=True)
    start, misread = _hidden(START_BOARD), turned_board(_hidden(_after("f5")))
    assert w.update(0, _reading(start)) is not None
    fed = [w.update(k, _reading(misread if k % 2 else start)) for k in range(1, 40)]
    released = next(k for k, o in enumerate(fed, 1) if o is not None)
    late = w.take_late()
    assert len(late) == MAX_HELD and [o.t for o in late] == list(range(1, released))
    assert any("not surely: written as read" in m for m in w.stats.messages)
