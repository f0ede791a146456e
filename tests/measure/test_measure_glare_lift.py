"""The glare-lift tally: squares and their ``?`` counted in the band of how much a
lamp's reflection lifts them, and a real scene measured end to end."""

from __future__ import annotations

import numpy as np

from controller.measure.glare_lift import BANDS, LiftTally, glare_lift


def test_each_square_counts_once_in_the_band_of_its_lift() -> None:
    tally = LiftTally(6)
    lift = np.array([0.0, 4.9, 5.0, 60.0, 149.9, 300.0, -3.0])
    unread = np.array([False, True, False, True, True, False, False])
    tally.add(lift, unread)
    assert tally.squares.tolist() == [3, 1, 0, 1, 1, 1]  # a drop below 0 is band 0
    assert tally.unknown.tolist() == [1, 0, 0, 1, 1, 0]
    assert int(tally.squares.sum()) == len(lift) and len(tally.squares) == len(BANDS) - 1
    lines = tally.lines()
    assert lines[0].endswith("? 3 of 7 squares (42.86%)")
    assert lines[4].strip() == ("lifted 50-100 grey levels: 1 squares (14.3% of the board's), "
                                "? 1 (100.0%)")


def test_one_rendered_scene_is_read_and_its_squares_all_counted() -> None:
    tally = glare_lift(1, seed=3, size=6)
    assert (tally.scenes, tally.not_found) == (1, 0)
    assert int(tally.squares.sum()) == 36  # every square of the 6x6 board, once
    assert (tally.unknown <= tally.squares).all()
    assert tally.squares[3:].sum() > 0  # the reflection lifts some squares by 50 or more
