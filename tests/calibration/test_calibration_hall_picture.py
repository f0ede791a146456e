"""The picture of a Hall calibration: a valid PNG, read back pixel by pixel."""

from __future__ import annotations

import numpy as np
from hall_readings import read_png

from calibration.hall.picture import png_bytes


def test_png_writer_is_a_valid_png():
    img = np.zeros((3, 4, 3), np.uint8)
    img[1, 2] = (255, 10, 20)
    w, h, raw = read_png(png_bytes(img))
    assert (w, h) == (4, 3)
    row = raw[1 * (1 + 12) : 2 * (1 + 12)]
    assert row[0] == 0 and row[1 + 2 * 3 : 1 + 3 * 3] == bytes((255, 10, 20))
