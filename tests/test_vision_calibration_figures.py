"""The benchmark's calibration-alone figures: every refusal counts end to end, and
the split by what the picture shows is printed only beside that figure."""

from __future__ import annotations

from controller.vision.evaluation_calibration import CalibrationTally, evaluate_calibration


def test_the_end_to_end_refusals_come_first_and_the_split_adds_up() -> None:
    tally = CalibrationTally()
    tally.add("1/0", refused=True, found=False, misplaced=False, dark=True, glare=False)
    tally.add("1/1", refused=True, found=True, misplaced=False, dark=False, glare=True)
    tally.add("1/2", refused=True, found=True, misplaced=False, dark=True, glare=True)
    tally.add("1/3", refused=True, found=True, misplaced=False, dark=False, glare=False)
    tally.add("1/4", refused=False, found=True, misplaced=True, dark=False, glare=False)
    tally.add("1/5", refused=False, found=True, misplaced=False, dark=False, glare=False,
              small=True)
    first, split, sizes, names = tally.lines("own")
    assert "refused in 4 of 6 scenes (66.7%; 1 of them no board found)" in first
    assert "more than 0.5 square off: 1" in first
    # the dark-and-glare scene is taken out once: 3 scenes remain, 1 of them refused
    assert "darker than 30 of 255 2 of 2" in split
    assert "reflection drawn 2 of 2" in split
    assert "neither 1 of 3 (33.3%)" in split
    assert "width 0 of 1 (0.0%); larger 4 of 5 (80.0%)" in sizes
    assert names.endswith("1/0, 1/1, 1/2, 1/3")


def test_a_misplaced_grid_that_was_refused_counts_once_as_refused() -> None:
    tally = CalibrationTally()
    tally.add("2/0", refused=True, found=True, misplaced=True, dark=False, glare=False)
    assert (tally.refused, tally.misplaced) == (1, 0)


def test_own_start_scenes_calibrate_on_the_board() -> None:
    """The first three scenes of own hard set 81 (one at an average brightness of 36
    of 255, one with a white start disc clipped by the light): each is calibrated
    within half a square, and the tally says so."""
    tally = evaluate_calibration(3, [81])
    assert tally.scenes == 3
    assert tally.refused == 0 and tally.misplaced == 0, tally.lines("81")
