"""The benchmark's calibration-alone figures: every refusal counts end to end, and
the split by what the picture shows is printed only beside that figure."""

from __future__ import annotations

import numpy as np

from calibration.evaluation import (
    CalibrationTally,
    WrongStartTally,
    evaluate_calibration,
    evaluate_wrong_starts,
    quarter_off,
    wrong_start,
)
from controller.position import START_BOARD
from controller.vision.calibrating.fit import turn
from controller.vision.calibrating.start_reading import start_of
from controller.vision.geometry import homography_from_corners

START_DISCS = start_of().discs


def test_the_end_to_end_refusals_come_first_and_the_split_adds_up() -> None:
    tally = CalibrationTally()
    tally.add("1/0", refused=True, found=False, misplaced=False, dark=True, glare=False)
    tally.add("1/1", refused=True, found=True, misplaced=False, dark=False, glare=True)
    tally.add("1/2", refused=True, found=True, misplaced=False, dark=True, glare=True)
    tally.add("1/3", refused=True, found=True, misplaced=False, dark=False, glare=False)
    tally.add("1/4", refused=False, found=True, misplaced=True, dark=False, glare=False)
    tally.add("1/5", refused=False, found=True, misplaced=False, dark=False, glare=False,
              small=True, turned=True)
    first, split, sizes, names = tally.lines("own")
    assert "refused in 4 of 6 scenes (66.7%; 1 of them no board found)" in first
    assert "more than 0.5 square off: 1" in first
    assert "a quarter turn off unsaid: 1" in first
    # the dark-and-glare scene is taken out once: 3 scenes remain, 1 of them refused
    assert "darker than 30 of 255 2 of 2" in split
    assert "reflection drawn 2 of 2" in split
    assert "neither 1 of 3 (33.3%)" in split
    assert "width 0 of 1 (0.0%); larger 4 of 5 (80.0%)" in sizes
    assert names.endswith("1/0, 1/1, 1/2, 1/3")


def test_a_misplaced_grid_that_was_refused_counts_once_as_refused() -> None:
    tally = CalibrationTally()
    tally.add("2/0", refused=True, found=True, misplaced=True, dark=False, glare=False,
              turned=True)
    assert (tally.refused, tally.misplaced, tally.turned) == (1, 0, 0)


def test_a_grid_a_quarter_turn_off_is_told_from_one_half_a_turn_off() -> None:
    corners = np.array([[100.0, 80.0], [300.0, 90.0], [310.0, 290.0], [90.0, 280.0]])
    h = homography_from_corners(corners)
    assert [quarter_off(turn(h, k), corners) for k in range(4)] == [False, True, False, True]


def test_own_start_scenes_calibrate_on_the_board() -> None:
    """The first three scenes of own hard set 81 (one at an average brightness of 36
    of 255, one with a white start disc clipped by the light), calibrated without
    ``--a1``: each within half a square and the right way round, and the tally says so."""
    tally = evaluate_calibration(3, [81])
    assert tally.scenes == 3
    assert tally.refused == tally.misplaced == tally.turned == 0, tally.lines("81")


def test_each_start_disc_is_set_up_wrong_in_turn_both_ways() -> None:
    boards = [wrong_start(i) for i in range(8)]
    # every scene differs from the start position on one start disc only
    for board, kind in boards:
        changed = [k for k in range(64) if board[k] != START_BOARD[k]]
        assert len(changed) == 1 and changed[0] in START_DISCS
        assert (board[changed[0]] == "-") == (kind == "missing")
    assert [kind for _, kind in boards] == ["the other colour"] * 4 + ["missing"] * 4
    first_four = {next(k for k in range(64) if b[k] != START_BOARD[k]) for b, _ in boards[:4]}
    assert first_four == set(START_DISCS)


def test_wrong_set_ups_count_refusals_per_kind_and_name_those_taken() -> None:
    tally = WrongStartTally()
    tally.add("5/0 (the other colour)", "the other colour", refused=True)
    tally.add("5/1 (the other colour)", "the other colour", refused=False)
    tally.add("5/4 (missing)", "missing", refused=True)
    first, accepted = tally.lines("own")
    assert "refused 2 of 3 (66.7%)" in first
    assert "the other colour: 1 of 2" in first and "missing: 1 of 1" in first
    assert accepted.endswith("accepted: 5/1 (the other colour)")


def test_a_white_disc_on_a_black_start_square_is_refused_in_plain_light() -> None:
    """Own clean set 5, scenes 2 and 3: e4 and d5 white. A white disc there measures
    as bright as a black one lit by a lamp, which calibration excuses; with no lamp
    over it, the set-up is refused."""
    tally = evaluate_wrong_starts(4, 5, hard=False)
    assert tally.refused == {"the other colour": 4, "missing": 0}, tally.lines("5")
