"""Ground truth of the synthetic renderer agrees with the pixels it draws."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest

from controller.synth.picture import (
    DISC_HEIGHT,
    SHIFT_RANGE,
    START_BOARD,
    Rendered,
    Scene,
    main,
    random_scene,
    render,
)
from controller.synth.scene import RANGES
from controller.synth.textures import BOARD_STYLES, FRAME_STYLES, TABLE_STYLES

CLEAN_VIEWS = [
    Scene(),
    Scene(tilt_deg=30, rotation_deg=12),
    Scene(tilt_deg=45, rotation_deg=-25, view_from_deg=120, distance=10),
    Scene(
        tilt_deg=20,
        view_from_deg=200,
        board_fraction=0.55,
        offset=(0.7, -0.6),
        board_style="glossy",
        frame_style="wood",
        table="light",
    ),
    Scene(width=320, height=400, tilt_deg=35, board_style="recessed", frame_style="none"),
]


def to_px(r: Rendered, x: float, y: float) -> np.ndarray:
    p = r.homography @ np.array([x, y, 1.0])
    return p[:2] / p[2]


def patch(r: Rendered, x: float, y: float, radius: int = 1) -> np.ndarray:
    """Mean BGR colour around the image of board point (x, y)."""
    u, v = np.round(to_px(r, x, y)).astype(int)
    h, w = r.image.shape[:2]
    assert 0 <= u < w and 0 <= v < h, f"board point {(x, y)} is outside the image"
    return r.image[v - radius : v + radius + 1, u - radius : u + radius + 1].reshape(-1, 3).mean(0)


def darkest(r: Rendered, x: float, y: float) -> np.ndarray:
    """Darkest pixel within one pixel of the image of (x, y): thin lines may fall between."""
    u, v = np.round(to_px(r, x, y)).astype(int)
    p = r.image[v - 1 : v + 2, u - 1 : u + 2].reshape(-1, 3)
    return p[p.sum(axis=1).argmin()]


def is_green(c: np.ndarray) -> bool:
    b, g, r = c
    return g > r + 25 and g > b + 25


def is_dark(c: np.ndarray) -> bool:
    return c.max() < 70


def is_white(c: np.ndarray) -> bool:
    return c.min() > 150


@pytest.mark.parametrize("scene", CLEAN_VIEWS)
def test_corners_are_the_homography_of_the_playing_area(scene):
    r = render(START_BOARD, scene, seed=3)
    assert r.image.shape == (scene.height, scene.width, 3) and r.image.dtype == np.uint8
    for corner, (x, y) in zip(r.corners, [(0, 0), (8, 0), (8, 8), (0, 8)], strict=True):
        assert np.allclose(corner, to_px(r, x, y), atol=1e-3)
    assert np.allclose(r.square_centre(63), to_px(r, 7.5, 7.5))
    # a1, h1, h8, a8 go round the board in one direction, without crossing.
    c = r.corners.astype(float)

    def turn(p: np.ndarray, q: np.ndarray) -> float:
        return float(p[0] * q[1] - p[1] * q[0])

    cross = [turn(c[(i + 1) % 4] - c[i], c[(i + 2) % 4] - c[(i + 1) % 4]) for i in range(4)]
    assert all(v > 0 for v in cross) or all(v < 0 for v in cross)


@pytest.mark.parametrize("scene", CLEAN_VIEWS)
def test_start_position_pixels_match_the_truth(scene):
    r = render(START_BOARD, scene, seed=5)
    assert r.board == START_BOARD
    for i, ch in enumerate(r.board):
        row, col = divmod(i, 8)
        c = patch(r, col + 0.5, row + 0.5)
        if ch == "X":
            assert is_dark(c), (i, c)
        elif ch == "O":
            assert is_white(c), (i, c)
        else:
            assert is_green(c), (i, c)


@pytest.mark.parametrize("scene", CLEAN_VIEWS[:3])
def test_grid_lines_and_star_points_are_where_the_homography_says(scene):
    r = render("-" * 64, scene, seed=1)
    for k in range(9):
        for m in range(8):
            assert is_dark(darkest(r, k, m + 0.5)), ("column line", k, m)
            assert is_dark(darkest(r, m + 0.5, k)), ("row line", k, m)
            assert is_green(patch(r, k + 0.18 if k < 8 else k - 0.18, m + 0.5, 0))
    for gx, gy in [(2, 2), (6, 2), (2, 6), (6, 6)]:
        assert is_dark(patch(r, gx + 0.03, gy + 0.03, 0)), ("star point", gx, gy)
    for gx, gy in [(3, 3), (4, 4), (1, 5)]:  # plain crossings have no dot
        assert is_green(patch(r, gx + 0.05, gy + 0.05, 0)), ("plain crossing", gx, gy)


def test_disc_tops_lean_towards_the_far_side_in_oblique_views():
    board = ["-"] * 64
    board[8 * 5 + 3] = "X"  # d6
    scene = Scene(tilt_deg=45, distance=10)
    r = render("".join(board), scene, seed=0)
    empty = render("-" * 64, scene, seed=0)
    base = to_px(r, 3.5, 5.5)
    disc = (r.image.max(axis=2) < 55) & (empty.image.max(axis=2) > 60)
    ys, xs = np.nonzero(disc)
    assert len(ys) > 100
    # The camera leans from the row-8 side, so the far side is up: the disc's top is
    # drawn above its base, yet the truth (its base) stays inside the disc's image.
    assert ys.mean() < base[1] - 1.0
    assert ys.max() - base[1] < base[1] - ys.min()  # it reaches further up than down
    assert disc[int(round(base[1])), int(round(base[0]))]
    assert DISC_HEIGHT < 0.2


def test_shifted_discs_sit_off_centre_and_truth_records_the_offset():
    board = list(START_BOARD)
    board[19] = "x"  # d3, next to nothing
    board[44] = "o"  # e6
    r = render("".join(board), Scene(), seed=9)
    assert r.board == "".join(board)
    for i in (19, 44):
        d = float(np.hypot(*r.shift[i]))
        assert SHIFT_RANGE[0] - 1e-9 <= d <= SHIFT_RANGE[1] + 1e-9
        row, col = divmod(i, 8)
        x, y = col + 0.5 + r.shift[i][0], row + 0.5 + r.shift[i][1]
        c = patch(r, x, y)
        assert is_dark(c) if board[i] == "x" else is_white(c)
        # The far rim of the displaced disc leaves the square's opposite edge bare.
        ox, oy = col + 0.5 - 0.45 * r.shift[i][0] / d, row + 0.5 - 0.45 * r.shift[i][1] / d
        assert is_green(patch(r, ox, oy, 0))
    for i in (27, 28, 35, 36):
        assert np.allclose(r.shift[i], 0.0)


def test_explicit_shifts_and_jitter():
    r = render(START_BOARD, Scene(), seed=0, shifts={27: (0.3, -0.1)})
    assert np.allclose(r.shift[27], (0.3, -0.1))
    r = render(START_BOARD, Scene(jitter=0.08), seed=4)
    mags = np.hypot(r.shift[:, 0], r.shift[:, 1])
    assert mags.max() <= 0.08 + 1e-9 and mags.max() > 0
    assert np.all(mags[[i for i, ch in enumerate(START_BOARD) if ch == "-"]] == 0)


def test_shifted_discs_do_not_overlap_their_neighbours():
    rng = np.random.default_rng(0)
    for k in range(20):
        board = "".join(rng.choice(list("XOxo"), 64, p=[0.4, 0.4, 0.1, 0.1]))
        r = render(board, Scene(width=64, height=48), seed=k)
        pos = np.array([[i % 8 + 0.5, i // 8 + 0.5] for i in range(64)]) + r.shift
        d = np.hypot(*(pos[:, None, :] - pos[None, :, :]).transpose(2, 0, 1))
        d[np.arange(64), np.arange(64)] = 9
        assert d.min() > 0.82 - 0.06, k  # discs are 0.82 wide; a sliver of overlap at most


def test_same_seed_same_image_and_seeds_differ():
    rng = np.random.default_rng(12)
    scene = random_scene(rng, hard=True)
    a = render(START_BOARD, scene, seed=7)
    b = render(START_BOARD, scene, seed=7)
    c = render(START_BOARD, scene, seed=8)
    assert np.array_equal(a.image, b.image) and a.board == b.board
    assert not np.array_equal(a.image, c.image)


@pytest.mark.parametrize("board_style", BOARD_STYLES)
@pytest.mark.parametrize("frame_style", FRAME_STYLES)
def test_every_style_renders_a_board(board_style, frame_style):
    r = render(
        START_BOARD, Scene(board_style=board_style, frame_style=frame_style, tilt_deg=25), seed=2
    )
    assert is_green(patch(r, 0.5, 0.5)) and is_dark(patch(r, 3.5, 4.5))


@functools.cache
def plain_oblique() -> Rendered:
    return render(START_BOARD, Scene(tilt_deg=30), seed=1)


@pytest.mark.parametrize(
    "options",
    [
        dict(shadow=True),
        dict(glare=True),
        dict(noise=0.05),
        dict(blur=2.5),
        dict(jpeg_quality=20),
        dict(clutter=True),
        dict(hand=True, hand_mode="full"),
        dict(light=0.3, light_gradient=0.8),
        dict(vignette=1.0),
        dict(warmth=0.8),
    ]
    + [dict(table=t) for t in TABLE_STYLES],
)
def test_every_option_gives_a_valid_image(options):
    scene = Scene(tilt_deg=30, **options)
    r = render(START_BOARD, scene, seed=1)
    plain = plain_oblique()
    assert r.image.shape == (480, 640, 3) and r.image.dtype == np.uint8
    assert r.image.std() > 3
    assert len(r.board) == 64 and r.occluded.shape == (64,) and r.shift.shape == (64, 2)
    if options != dict(table="wood"):
        assert not np.array_equal(r.image, plain.image), "the option changed nothing"


def test_dim_light_is_darker_and_glare_saturates():
    base = render(START_BOARD, Scene(), seed=0).image.astype(float)
    dim = render(START_BOARD, Scene(light=0.3), seed=0).image.astype(float)
    assert dim.mean() < 0.45 * base.mean()
    glare = render(START_BOARD, Scene(glare=True), seed=0).image
    assert (glare.min(axis=2) > 240).sum() > (base.min(axis=2) > 240).sum() + 200


def test_clutter_stays_off_the_playing_area():
    for seed in range(6):
        scene = Scene(tilt_deg=35, view_from_deg=60 * seed, clutter=True)
        a = render(START_BOARD, scene, seed=seed)
        b = render(START_BOARD, Scene(tilt_deg=35, view_from_deg=60 * seed), seed=seed)
        inside = np.zeros(a.image.shape[:2], dtype=bool)
        from controller.vision.cv import cv2

        cv2.fillConvexPoly(inside.view(np.uint8), np.round(a.corners).astype(np.int32), 1)
        diff = np.abs(a.image.astype(int) - b.image.astype(int)).max(axis=2)
        assert diff[inside].max() <= 2, seed
        assert diff[~inside].max() > 30, seed


def test_random_scenes_are_valid_and_overridable():
    rng = np.random.default_rng(3)
    hard = [random_scene(rng, hard=True) for _ in range(60)]
    assert any(s.hand for s in hard) and any(s.glare for s in hard)
    assert max(s.tilt_deg for s in hard) > 35
    assert all(-45 < s.rotation_deg < 45 for s in hard)
    # a1 stays the corner towards the top left of the picture.
    for s in hard:
        r = render("-" * 64, replace(s, width=64, height=48), seed=0)
        d = r.corners[0] - r.corners.mean(axis=0)
        angle = np.degrees(np.arctan2(d[1], d[0]))
        assert abs((angle + 135 + 180) % 360 - 180) <= 40.01, s
    s = random_scene(rng, tilt_deg=0, hand=True)
    assert s.tilt_deg == 0 and s.hand
    with pytest.raises(ValueError, match="bogus"):
        random_scene(rng, bogus=1)


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="board_style"):
        Scene(board_style="marble")
    with pytest.raises(ValueError, match="tilt_deg"):
        Scene(tilt_deg=80)
    with pytest.raises(ValueError, match="too close"):
        Scene(tilt_deg=60, distance=3)
    with pytest.raises(ValueError):
        render("XO", Scene())
    with pytest.raises(ValueError):
        render("Z" * 64, Scene())
    with pytest.raises(ValueError, match="seed"):
        render(START_BOARD, Scene(), seed=-1)
    with pytest.raises(ValueError, match="off the board"):
        render(START_BOARD, Scene(), shifts={64: (0.3, 0.0)})


@pytest.mark.parametrize("field, value, message", [
    ("light", 0.01, "Scene.light: must be between 0.05 and 3 (got 0.01)"),
    ("distance", 250.0, "Scene.distance: must be between 3 and 200 square widths (got 250.0)"),
    ("jitter", 0.2, "Scene.jitter: must be between 0 and 0.1 (larger offsets are shifted discs)"
                    " (got 0.2)"),
    ("warmth", -1.5, "Scene.warmth: must be between -1 and 1 (got -1.5)"),
    ("bands", 0.9, "Scene.bands: must be between 0.0 and 0.7 (got 0.9)"),
    ("jpeg_quality", 0, "Scene.jpeg_quality: must be 1..100 or None (got 0)"),
    ("cast", (1.0, 2.0, 1.0), "Scene.cast: must be three gains between 0.5 and 1.5"),
])
def test_an_out_of_range_field_is_named_with_its_range_and_value(field, value, message):
    with pytest.raises(ValueError) as error:
        Scene(**{field: value})
    assert str(error.value).startswith(message)


def test_every_range_names_a_field_of_the_scene_and_admits_its_default():
    defaults = Scene()
    for name, lo, hi, _ in RANGES:
        assert lo <= getattr(defaults, name) <= hi, name


def test_command_line_writes_an_image(tmp_path, capsys):
    out = tmp_path / "board.png"
    assert (
        main(["--board", "start", "--tilt-deg", "20", "--clutter", "--out", str(out), "--truth"])
        == 0
    )
    assert out.stat().st_size > 1000
    assert START_BOARD in capsys.readouterr().out
    assert main(["--board", "XO", "--out", str(out)]) == 1
    assert "error" in capsys.readouterr().err


@pytest.mark.parametrize("seed", range(10))
def test_random_positions_and_scenes_agree_with_their_truth(seed):
    rng = np.random.default_rng(100 + seed)
    board = "".join(rng.choice(list("-XOxo"), 64, p=[0.3, 0.3, 0.3, 0.05, 0.05]))
    scene = random_scene(rng, glare=False, shadow=False, light=1.0, blur=0.5)
    r = render(board, scene, seed=seed)
    assert r.board == board
    for i, ch in enumerate(board):
        row, col = divmod(i, 8)
        x, y = col + 0.5 + r.shift[i][0], row + 0.5 + r.shift[i][1]
        c = patch(r, x, y)
        if ch in "Xx":
            assert c.max() < 90, (i, ch, c)
        elif ch in "Oo":
            assert c.min() > 120, (i, ch, c)
        else:  # green, though a glossy board's reflection may wash it out somewhat
            assert c[1] > c[0] + 10 and c[1] > c[2] + 10, (i, ch, c)
