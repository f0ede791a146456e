"""The renderer's pinhole camera: the board where it was asked to be in the picture,
seen from the side it was asked for, and the plane's homography the same projection."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.boardsize import SIZES
from controller.synth.camera import board_outline, make_camera

W, H = 640, 480

cameras = st.fixed_dictionaries({
    "tilt_deg": st.floats(0, 60), "view_from_deg": st.floats(0, 360),
    "roll_deg": st.floats(-30, 30), "distance": st.floats(15, 40),
    "board_fraction": st.floats(0.3, 0.9), "n": st.sampled_from(SIZES),
})


@settings(max_examples=60, deadline=None)
@given(cameras, st.floats(-1, 1), st.floats(-1, 1), st.floats(0, 0.3), st.floats(0, 1))
def test_the_plane_homography_is_the_projection_of_that_plane(kw, ox, oy, z, where):
    cam = make_camera(W, H, offset=(ox, oy), **kw)
    n = kw["n"]
    points = np.array([[where * n, (1 - where) * n, z], [n / 2, n / 3, z], [0, n, z]])
    flat = np.column_stack([points[:, :2], np.ones(3)]) @ cam.plane_homography(z).T
    assert np.allclose(flat[:, :2] / flat[:, 2:], cam.project(points), atol=1e-6)


@settings(max_examples=60, deadline=None)
@given(cameras)
def test_the_board_fills_the_asked_share_of_the_tighter_side_centred(kw):
    cam = make_camera(W, H, **kw)
    corners = cam.project(board_outline(kw["n"]))
    span = corners.max(axis=0) - corners.min(axis=0)
    assert max(span[0] / W, span[1] / H) == pytest.approx(kw["board_fraction"])
    centre = (corners.max(axis=0) + corners.min(axis=0)) / 2
    assert np.allclose(centre, (W / 2, H / 2))


def test_from_straight_above_a1_is_top_left_as_the_board_is_drawn():
    cam = make_camera(W, H, tilt_deg=0, view_from_deg=0, roll_deg=0, distance=30,
                      board_fraction=0.8)
    a1, h1, h8, a8 = cam.project(board_outline())
    assert a1[0] < h1[0] and a1[1] == pytest.approx(h1[1])  # row 1 along the top
    assert a1[1] < a8[1] and a1[0] == pytest.approx(a8[0])  # column a down the left
    assert np.allclose(h8 - a1, h1 - a1 + a8 - a1)  # a square, not a trapezoid


def test_a_tilted_camera_sees_the_side_it_leans_towards_nearest_and_lowest():
    cam = make_camera(W, H, tilt_deg=40, view_from_deg=0, roll_deg=0, distance=30,
                      board_fraction=0.8)
    a1, h1, h8, a8 = cam.project(board_outline())
    assert np.linalg.norm(h8 - a8) > np.linalg.norm(h1 - a1)  # row 8 nearer, so longer
    assert min(a8[1], h8[1]) > max(a1[1], h1[1])  # and lower in the image


def test_an_offset_with_overhang_pushes_the_board_past_the_edge():
    cam = make_camera(W, H, tilt_deg=20, view_from_deg=0, roll_deg=0, distance=30,
                      board_fraction=0.8, offset=(1, 0), overhang=0.2)
    assert cam.project(board_outline())[:, 0].max() > W


@pytest.mark.parametrize(("kw", "message"), [
    ({"tilt_deg": 80}, r"tilt_deg must be in \[0, 80\), not 80"),
    ({"tilt_deg": -1}, r"tilt_deg must be in \[0, 80\), not -1"),
    ({"distance": 0}, "camera distance must be positive, not 0"),
    ({"board_fraction": 2}, r"board_fraction must be in \[0.05, 1.5\], not 2"),
    ({"tilt_deg": 75, "distance": 3}, "camera too close"),
])
def test_a_camera_that_cannot_frame_the_board_is_refused(kw, message):
    args = {"tilt_deg": 20, "view_from_deg": 0, "roll_deg": 0, "distance": 30,
            "board_fraction": 0.8, **kw}
    with pytest.raises(ValueError, match=message):
        make_camera(W, H, **args)
