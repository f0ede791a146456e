"""The board in the synthetic renderer: its shadow on the table, its sides and its
textured face, plus the table top itself (textures come from :mod:`controller.synth.textures`)."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from controller.boardsize import STANDARD
from controller.synth.camera import Camera
from controller.synth.textures import board_texture, darken, table_texture
from controller.vision.cv import cv2

#: How far the board's top stands above the table, in square widths.
BOARD_THICKNESS = 0.3


#: Textures are drawn in a few variants per style, then flipped and recoloured per
#: seed: drawing a fresh one for every picture would be most of the rendering time.
TEXTURE_VARIANTS = 4
FINE_PX = 64  # texture pixels per square for a board seen small (twice that when near)


@lru_cache(maxsize=80)
def _board_face_variant(variant: int, style: str, frame: str, px: int,
                        look: tuple[float, float, float, float] = (1.0, 0.0, 1.0, 0.0),
                        n: int = STANDARD) -> tuple[np.ndarray, float]:
    tex, margin = board_texture(np.random.default_rng([variant, 12]), style, frame, px, look,
                                n)
    tex.setflags(write=False)
    return tex, margin


def board_face(seed: int, style: str, frame: str, px_img: float,
               look: tuple[float, float, float, float] = (1.0, 0.0, 1.0, 0.0),
               n: int = STANDARD) -> tuple[np.ndarray, np.ndarray, float, int]:
    """The board's face (uint8), a colour gain for it, its frame width and its pixels
    per square."""
    px = FINE_PX if px_img <= FINE_PX else 2 * FINE_PX
    look = tuple(round(float(v), 1) for v in look)  # type: ignore[assignment]
    tex, margin = _board_face_variant(seed % TEXTURE_VARIANTS, style, frame, px, look, n)
    rng = np.random.default_rng([seed, 13])
    turn = int(rng.integers(4))
    if turn:
        tex = cv2.rotate(tex, (cv2.ROTATE_90_CLOCKWISE, cv2.ROTATE_180,
                               cv2.ROTATE_90_COUNTERCLOCKWISE)[turn - 1])
    gain = rng.uniform(0.88, 1.12, 3).astype(np.float32)
    return tex, gain, margin, px


@lru_cache(maxsize=32)
def _table_top_variant(variant: int, height: int, width: int, style: str) -> np.ndarray:
    out = table_texture(np.random.default_rng([variant, 10]), height, width, style)
    out.setflags(write=False)
    return out


def table_top(seed: int, height: int, width: int, style: str) -> np.ndarray:
    rng = np.random.default_rng([seed, 11])
    tex = _table_top_variant(seed % (2 * TEXTURE_VARIANTS), height, width, style)
    flip = int(rng.integers(-1, 3))
    if flip < 2:
        tex = cv2.flip(tex, flip)
    return tex.astype(np.float32) * rng.uniform(0.8, 1.2, 3).astype(np.float32)


def draw_board(canvas: np.ndarray, cam: Camera, style: str, frame: str, seed: int,
               light_dir: np.ndarray, px_img: float,
               look: tuple[float, float, float, float] = (1.0, 0.0, 1.0, 0.0),
               n: int = STANDARD) -> None:
    """Cast shadow on the table, the board's sides, then its textured top face."""
    tex, gain, margin, px = board_face(seed, style, frame, px_img, look, n)
    lo, hi = -margin, n + margin
    top = np.array([[lo, lo], [hi, lo], [hi, hi], [lo, hi]])
    h, w = canvas.shape[:2]

    # Soft shadow of the whole board on the table.
    sh = np.zeros((h, w), dtype=np.uint8)
    base = np.column_stack([top + light_dir * 0.35, np.full(4, -BOARD_THICKNESS)])
    cv2.fillConvexPoly(sh, np.round(cam.project(base) * 16).astype(np.int32), 255,
                       cv2.LINE_AA, 4)
    darken(canvas, sh, 0.5, max(1.0, 0.4 * px_img))

    # Sides: the hull of top and bottom outlines, darker than the frame.
    rim = px // 8  # pixels into the frame where its colour is taken
    side_col = tex[rim, rim].astype(np.float32) * gain * 0.55 + 4
    bottom = np.column_stack([top, np.full(4, -BOARD_THICKNESS)])
    upper = np.column_stack([top, np.zeros(4)])
    hull = cv2.convexHull(
        np.round(cam.project(np.vstack([bottom, upper])) * 16).astype(np.int32))
    cv2.fillConvexPoly(canvas, hull, side_col.tolist(), cv2.LINE_AA, 4)

    t = np.array([[1 / px, 0, lo], [0, 1 / px, lo], [0, 0, 1]])
    m = cam.plane_homography(0.0) @ t
    # Only the face's bounding box is warped and blended.
    quad = cam.project(upper)
    x0, y0 = np.maximum(np.floor(quad.min(axis=0)).astype(int) - 1, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(axis=0)).astype(int) + 2, (w, h))
    if x1 <= x0 or y1 <= y0:
        return
    shift = np.array([[1.0, 0, -x0], [0, 1.0, -y0], [0, 0, 1]])
    face = cv2.warpPerspective(tex, shift @ m, (int(x1 - x0), int(y1 - y0)),
                               flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    # The face's outline, anti-aliased, decides where it covers the picture.
    outline = np.zeros(face.shape[:2], dtype=np.uint8)
    cv2.fillConvexPoly(outline, np.round((quad - (x0, y0)) * 16).astype(np.int32), 255,
                       cv2.LINE_AA, 4)
    a = outline.astype(np.float32)[..., None] * np.float32(1 / 255)
    view = canvas[y0:y1, x0:x1]
    view *= 1.0 - a
    view += face.astype(np.float32) * (gain * a)
