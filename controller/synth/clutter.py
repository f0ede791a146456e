"""Things lying beside the board in real photos: disc trays, a pen, a cup.

They stand on the table (below the board's top face) outside the frame, never over
the playing area, and only tall objects are kept off the side nearest the camera,
where their tops would lean over the board in the picture. They are the same size
beside every board (the squares are the unit), laid out round the board's own edges:
``mid`` is the board's centre, half its side in squares.
"""

from __future__ import annotations

import math

import numpy as np

from controller.boardsize import STANDARD
from controller.synth.camera import Camera
from controller.synth.textures import FRAME_WIDTH, tray_texture
from controller.vision.cv import cv2

_SIDES = {  # outward normal, along-edge direction
    "left": (np.array([-1.0, 0.0]), np.array([0.0, 1.0])),
    "right": (np.array([1.0, 0.0]), np.array([0.0, 1.0])),
    "top": (np.array([0.0, -1.0]), np.array([1.0, 0.0])),
    "bottom": (np.array([0.0, 1.0]), np.array([1.0, 0.0])),
}


def _in_view(cam: Camera, pts: np.ndarray, mid: float) -> bool:
    """Whether an object is well in front of the camera (else it is left out)."""
    near = 0.25 * float(cam.depth(np.array([[mid, mid, 0.0]]))[0])
    return bool(cam.depth(pts).min() > near)


def _fill(canvas: np.ndarray, cam: Camera, mid: float, pts: np.ndarray,
          colour: np.ndarray) -> None:
    """Fill the picture of the convex hull of 3-D points."""
    if not _in_view(cam, pts, mid):
        return
    hull = cv2.convexHull(np.round(cam.project(pts) * 16).astype(np.int32))
    cv2.fillConvexPoly(canvas, hull, np.asarray(colour, dtype=float).tolist(), cv2.LINE_AA, 4)


def _far_sides(cam: Camera, mid: float) -> list[str]:
    """Sides of the board not between it and the camera."""
    toward = cam.C[:2] - mid
    norm = float(np.linalg.norm(toward))
    if norm < 1e-6:
        return list(_SIDES)
    toward = toward / norm
    return [s for s, (n, _) in _SIDES.items() if float(n @ toward) < 0.4]


def _place(rng: np.random.Generator, side: str, margin: float, gap: float,
           depth: float, length: float, mid: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Origin and axes (along, outward) of a rectangle lying beside ``side``, within
    half a square past the board's corners."""
    n, a = _SIDES[side]
    edge_mid = np.array([mid, mid]) + n * (mid + margin + gap)
    start = rng.uniform(-mid - 0.5, mid + 0.5 - length)
    return edge_mid + a * start, a * length, n * depth


class _Layout:
    """Footprints (board-plane boxes) already taken, so objects do not overlap."""

    def __init__(self) -> None:
        self.boxes: list[tuple[np.ndarray, np.ndarray]] = []

    def take(self, pts: np.ndarray, gap: float = 0.25) -> bool:
        lo, hi = pts.min(axis=0) - gap, pts.max(axis=0) + gap
        if any(np.all(lo < h) and np.all(l < hi) for l, h in self.boxes):
            return False
        self.boxes.append((lo, hi))
        return True


def draw_clutter(canvas: np.ndarray, cam: Camera, rng: np.random.Generator,
                 light_dir: np.ndarray, px: float, board_thickness: float,
                 frame_style: str, n: int = STANDARD) -> list[tuple[np.ndarray, np.ndarray]]:
    """Draw one or two disc trays, maybe a pen, piles of discs and a cup, onto a
    float32 canvas beside an ``n`` x ``n`` board; each object gets a few tries at a
    free spot, else is left out. Returns the footprints taken, as board-plane boxes
    (lowest and highest corner, with the gap kept round each)."""
    mid = n / 2
    margin = FRAME_WIDTH[frame_style]
    z0 = -board_thickness
    layout = _Layout()
    sides = list(_SIDES)
    rng.shuffle(sides)
    for side in sides[: int(rng.integers(1, 3))]:
        length, channels = rng.uniform(3.5, 7.0), int(rng.integers(1, 3))
        for _ in range(6):
            o, a, out = _place(rng, side, margin, rng.uniform(0.5, 1.5), channels + 0.3,
                               length, mid)
            rect = np.array([o, o + a, o + a + out, o + out])
            if layout.take(rect):
                _tray(canvas, cam, mid, rng, rect, z0, px, channels)
                break
    if rng.random() < 0.6:  # a pen
        side = sides[-1]
        for _ in range(6):
            o, a, out = _place(rng, side, margin, rng.uniform(0.6, 2.5), 0.16,
                               rng.uniform(2.5, 4), mid)
            ang = rng.uniform(-0.5, 0.5)
            rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])
            a, out = rot @ a, rot @ out
            body = np.array([o, o + a * 0.85, o + a * 0.85 + out, o + out])
            tip = np.array([o + a * 0.85, o + a + out * 0.5, o + a * 0.85 + out])
            if layout.take(np.vstack([body, tip])):
                colour = rng.choice(np.array([[160, 60, 20], [30, 30, 180], [20, 20, 20],
                                              [220, 220, 220]]))
                _fill(canvas, cam, mid, np.column_stack([body, np.full(4, z0 + 0.08)]), colour)
                _fill(canvas, cam, mid, np.column_stack([tip, np.full(3, z0 + 0.08)]),
                      np.array([150, 160, 170]))
                break
    far = _far_sides(cam, mid)
    if not far:
        return layout.boxes
    for _ in range(int(rng.integers(0, 3))):  # loose piles of discs
        for _ in range(6):
            out, a = _SIDES[str(rng.choice(far))]
            c = (np.array([mid, mid]) + out * (mid + margin + rng.uniform(0.8, 2.5))
                 + a * rng.uniform(-mid, mid))
            if layout.take(np.array([c - 0.45, c + 0.45])):
                _disc_stack(canvas, cam, mid, c, z0, int(rng.integers(3, 13)), rng)
                break
    if rng.random() < 0.6:  # a cup, only where it cannot lean over the board
        radius, height = rng.uniform(0.8, 1.1), rng.uniform(1.5, 2.4)
        for _ in range(6):
            out, a = _SIDES[str(rng.choice(far))]
            c = (np.array([mid, mid]) + out * (mid + margin + 0.6 + radius)
                 + a * rng.uniform(-mid, mid))
            if layout.take(np.array([c - radius, c + radius])):
                _cup(canvas, cam, mid, rng, c, radius, height, z0)
                break
    return layout.boxes


def _tray(canvas: np.ndarray, cam: Camera, mid: float, rng: np.random.Generator,
          rect: np.ndarray, z0: float, px: float, channels: int) -> None:
    wall = 0.2
    lo = np.column_stack([rect, np.full(4, z0)])
    hi = np.column_stack([rect, np.full(4, z0 + wall)])
    if not _in_view(cam, lo, mid):
        return
    _fill(canvas, cam, mid, np.vstack([lo, hi]), np.array([20, 20, 22]))
    o, a, n = rect[0], rect[1] - rect[0], rect[3] - rect[0]
    tpx = int(np.clip(px * 1.2, 12, 96))
    tex = tray_texture(rng, tpx, float(np.linalg.norm(a)), channels).astype(np.float32)
    th, tw = tex.shape[:2]
    # texture pixel (u, v) -> table point o + a * u/tw + n * v/th
    t = np.array([[a[0] / tw, n[0] / th, o[0]], [a[1] / tw, n[1] / th, o[1]], [0, 0, 1]])
    m = cam.plane_homography(z0 + wall) @ t
    h, w = canvas.shape[:2]
    cv2.warpPerspective(tex, m, (w, h), dst=canvas, flags=cv2.INTER_LINEAR,
                        borderMode=cv2.BORDER_TRANSPARENT)


def _cup(canvas: np.ndarray, cam: Camera, mid: float, rng: np.random.Generator,
         c: np.ndarray, radius: float, height: float, z0: float) -> None:
    t = np.linspace(0, 2 * np.pi, 40, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)])
    cup = rng.choice(np.array([[235, 235, 235], [60, 60, 170], [150, 110, 40]]))
    base = np.column_stack([c + ring * radius, np.full(40, z0)])
    top = np.column_stack([c + ring * radius, np.full(40, z0 + height)])
    inner = np.column_stack([c + ring * radius * 0.86, np.full(40, z0 + height)])
    if _in_view(cam, np.vstack([base, top]), mid):
        _fill(canvas, cam, mid, np.vstack([base, top]), cup * 0.7)
        _fill(canvas, cam, mid, top, cup)
        _fill(canvas, cam, mid, inner, np.array([20, 40, 70]))


def _disc_stack(canvas: np.ndarray, cam: Camera, mid: float, centre: np.ndarray, z0: float,
                count: int, rng: np.random.Generator) -> None:
    """Discs lying in a pile: seen from the side, a stripe per half disc."""
    radius, thick = 0.41, 0.12
    t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
    ring = np.column_stack([np.cos(t), np.sin(t)]) * radius
    black, white = np.array([30, 30, 33]), np.array([226, 229, 231])
    z = z0
    top_colour = white
    for _ in range(count):
        c = centre + rng.normal(0, 0.03, 2)  # piles are never quite straight
        under, top_colour = (black, white) if rng.random() < 0.5 else (white, black)
        for colour, h in ((under, thick / 2), (top_colour, thick / 2)):
            lo = np.column_stack([c + ring, np.full(32, z)])
            hi = np.column_stack([c + ring, np.full(32, z + h)])
            _fill(canvas, cam, mid, np.vstack([lo, hi]), colour * 0.75)
            z += h
    face = np.column_stack([c + ring, np.full(32, z)])
    _fill(canvas, cam, mid, face, top_colour)
