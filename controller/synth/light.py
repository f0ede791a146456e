"""Light and camera faults for the synthetic renderer: brightness, uneven light,
vignetting, a cast shadow, glare and colour cast; then blur, sensor noise and JPEG."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from controller.boardsize import STANDARD
from controller.synth.camera import Camera
from controller.synth.textures import soft_blur, unit_noise
from controller.vision.cv import cv2

if TYPE_CHECKING:
    from controller.synth.scene import Scene


def apply_lighting(canvas: np.ndarray, scene: Scene, rng: np.random.Generator,
                   cam: Camera, px: float, pool_rng: np.random.Generator,
                   n: int = STANDARD) -> None:
    """Overall level, uneven light (a slope or a lamp's pool, the latter drawn from
    ``pool_rng``), vignetting, a cast shadow, colour cast and glare."""
    h, w = canvas.shape[:2]
    sh, sw = max(2, h // 8), max(2, w // 8)
    yy, xx = np.mgrid[0:sh, 0:sw].astype(np.float32)
    yy, xx = (yy + 0.5) / sh * 2 - 1, (xx + 0.5) / sw * 2 - 1
    phi = rng.uniform(0, 2 * np.pi)
    ramp = (xx * math.cos(phi) + yy * math.sin(phi)) / math.sqrt(2)
    # Half the time the unevenness is a lamp's pool of light rather than a slope.
    lamp = pool_rng.uniform(-0.8, 0.8, 2)
    spread = pool_rng.uniform(0.4, 0.9)
    pool = np.exp(-((xx - lamp[0]) ** 2 + (yy - lamp[1]) ** 2) / (2 * spread ** 2))
    if pool_rng.random() < 0.5:
        ramp = (pool - pool.mean()) / max(float(np.ptp(pool)), 1e-6) * 2
    gain = scene.light * (1.0 + scene.light_gradient * ramp)
    gain *= 1.0 - scene.vignette * 0.5 * (xx ** 2 + yy ** 2)
    if scene.shadow:
        blob = np.zeros((sh, sw), dtype=np.uint8)
        # A big, blurry shape entering from one side: a person or a lamp's arm.
        cx, cy = rng.uniform(0, sw), rng.uniform(0, sh)
        axes = (int(rng.uniform(0.3, 0.7) * sw), int(rng.uniform(0.2, 0.5) * sh))
        cv2.ellipse(blob, (int(cx), int(cy)), axes, rng.uniform(0, 180), 0, 360, 255, -1)
        soft = soft_blur(blob, max(1.0, 0.04 * sw)).astype(np.float32) / 255
        gain *= 1.0 - rng.uniform(0.3, 0.55) * soft
    gain = cv2.resize(gain.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    cast = np.array([1 - 0.18 * scene.warmth, 1.0, 1 + 0.15 * scene.warmth], dtype=np.float32)
    cast *= np.asarray(scene.cast, dtype=np.float32)
    canvas *= gain[..., None] * cast
    if scene.glare:
        bx, by = rng.uniform(1.0, n - 1.0, 2)  # over the board, a square in from its edge
        c = cam.project(np.array([[bx, by, 0.0]]))[0]
        s = rng.uniform(0.8, 2.2) * px
        sy = s * rng.uniform(0.5, 1.2)
        peak = rng.uniform(0.8, 1.0) * 1.3  # the centre always saturates
        # Only where the spot is brighter than about 1/300 of its peak.
        x0, x1 = int(max(0, c[0] - 2.4 * s)), int(min(w, c[0] + 2.4 * s + 1))
        y0, y1 = int(max(0, c[1] - 2.4 * sy)), int(min(h, c[1] + 2.4 * sy + 1))
        if x1 > x0 and y1 > y0:
            gx = np.exp(-(((np.arange(x0, x1) - c[0]) / s) ** 2)).astype(np.float32)
            gy = np.exp(-(((np.arange(y0, y1) - c[1]) / sy) ** 2)).astype(np.float32)
            g = np.clip(gy[:, None] * gx[None, :] * np.float32(peak), 0, 1)[..., None]
            view = canvas[y0:y1, x0:x1]
            view += (255.0 - view) * g


def apply_bands(canvas: np.ndarray, strength: float, rng: np.random.Generator) -> None:
    """Soft stripes of shade (blinds, a window's bars) or of light across the view:
    the light changes across one square by far more than any slope."""
    h, w = canvas.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    phi = rng.uniform(0, np.pi)
    period = rng.uniform(0.15, 0.5) * max(h, w)
    t = (xx * math.cos(phi) + yy * math.sin(phi)) / period + rng.uniform(0, 1)
    duty = rng.uniform(0.25, 0.6)
    edge = rng.uniform(0.02, 0.12)  # softness, as a share of the period
    frac = t - np.floor(t)
    stripe = np.clip(np.minimum(frac, 1 - frac) * 2, 0, 1)
    stripe = np.clip((stripe - (1 - duty)) / edge + 0.5, 0, 1)
    sign = -1.0 if rng.random() < 0.7 else 0.6  # mostly shade, sometimes a brighter band
    canvas *= (1.0 + np.float32(sign * strength) * stripe)[..., None]


def degrade(image: np.ndarray, scene: Scene, frame_seed: int) -> np.ndarray:
    """Lens distortion, blur, sensor noise and JPEG, in camera order."""
    if scene.lens > 0:
        image = _barrel(image, scene.lens)
    if scene.blur > 0:
        image = cv2.GaussianBlur(image, (0, 0), scene.blur)
    if scene.noise > 0:
        noise = unit_noise(image.shape, np.random.default_rng([frame_seed, 99]))
        image = image + noise * np.float32(scene.noise * 255.0)
    out = np.clip(image, 0, 255).astype(np.uint8)
    if scene.jpeg_quality is not None:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        if not ok:  # pragma: no cover - encoder always present in OpenCV builds
            raise RuntimeError("JPEG encoding failed")
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def _radius2(x: np.ndarray, y: np.ndarray, width: int, height: int) -> np.ndarray:
    """Squared distance from the image centre, 1 at the corners."""
    cx, cy = width / 2.0, height / 2.0
    return ((x - cx) ** 2 + (y - cy) ** 2) / (cx * cx + cy * cy)


def _barrel(image: np.ndarray, k: float) -> np.ndarray:
    """A wide lens: points are drawn in towards the centre the more, the farther out."""
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    scale = 1 + k * _radius2(xs, ys, w, h)
    mx = (w / 2.0 + (xs - w / 2.0) * scale).astype(np.float32)
    my = (h / 2.0 + (ys - h / 2.0) * scale).astype(np.float32)
    return cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)


def barrel_points(points: np.ndarray, k: float, width: int, height: int) -> np.ndarray:
    """Where points of the undistorted picture appear after :func:`_barrel`."""
    p = np.asarray(points, dtype=np.float64).reshape(-1, 2)
    c = np.array([width / 2.0, height / 2.0])
    d = p.copy()
    for _ in range(20):  # d * (1 + k r(d)^2) = p, solved by fixed point
        d = c + (p - c) / (1 + k * _radius2(d[:, 0], d[:, 1], width, height))[:, None]
    return d
