"""Procedural textures for the synthetic renderer: table tops, board faces, disc trays.

Everything is drawn flat (top-down, ``px`` pixels per square) and later warped into
the camera image, so a texture is exact in board units and perspective comes for free.
"""

from __future__ import annotations

import numpy as np

from controller.boardsize import STANDARD
from controller.vision.cv import cv2

BOARD_STYLES = ("felt", "glossy", "recessed")
FRAME_STYLES = ("black", "wood", "none")
TABLE_STYLES = ("wood", "dark", "cloth", "light")

#: Frame width outside the playing area, in squares, per frame style.
FRAME_WIDTH = {"black": 0.45, "wood": 0.6, "none": 0.12}
STAR_INSET = 2  # squares between the board's edge and each of its four star points


def smooth_noise(rng: np.random.Generator, h: int, w: int, cell: int) -> np.ndarray:
    """Zero-mean, roughly unit-amplitude noise that varies over about ``cell`` pixels."""
    gh, gw = max(2, h // cell + 2), max(2, w // cell + 2)
    g = rng.standard_normal((gh, gw)).astype(np.float32)
    return cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)


def soft_blur(img: np.ndarray, sigma: float) -> np.ndarray:
    """Gaussian blur; wide ones run on a reduced copy, since the result is smooth anyway."""
    if sigma <= 3:
        return cv2.GaussianBlur(img, (0, 0), max(sigma, 0.3))
    h, w = img.shape[:2]
    k = sigma / 2.0
    small = cv2.resize(img, (max(2, int(w / k)), max(2, int(h / k))), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), 2.0)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


_NOISE_BANK: list[np.ndarray] = []


def unit_noise(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Unit Gaussian noise: a window, chosen by ``rng``, into one fixed bank of samples.

    Drawing a fresh million samples per picture would cost more than the rest of the
    render, and pixel noise has no structure a shared bank could give away.
    """
    if not _NOISE_BANK:
        bank = np.random.default_rng(20240601).standard_normal(1 << 21, dtype=np.float32)
        _NOISE_BANK.append(bank)
    bank = _NOISE_BANK[0]
    n = int(np.prod(shape))
    if n <= bank.size:
        start = int(rng.integers(0, bank.size - n + 1))
        return bank[start:start + n].reshape(shape)
    return np.resize(np.roll(bank, -int(rng.integers(0, bank.size))), n).reshape(shape)


def darken(canvas: np.ndarray, mask: np.ndarray, strength: float, sigma: float) -> None:
    """Darken a float canvas in place under a softened uint8 mask (255 = ``strength``),
    working only on the mask's neighbourhood."""
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return
    h, w = mask.shape
    pad = int(3 * sigma) + 2
    x0, x1 = max(0, xs.min() - pad), min(w, xs.max() + pad + 1)
    y0, y1 = max(0, ys.min() - pad), min(h, ys.max() + pad + 1)
    soft = soft_blur(mask[y0:y1, x0:x1], sigma).astype(np.float32)
    canvas[y0:y1, x0:x1] *= (1.0 - (strength / 255.0) * soft)[..., None]


def fine_noise(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    return unit_noise((h, w), rng)


def _tint(base: np.ndarray, shade: np.ndarray) -> np.ndarray:
    """base (3,) BGR times a per-pixel brightness map -> HxWx3 float32."""
    return shade[..., None] * np.asarray(base, dtype=np.float32)[None, None, :]


def wood_grain(
    rng: np.random.Generator, h: int, w: int, base: np.ndarray, scale: float
) -> np.ndarray:
    """Wood along x: fine fibres (noise stretched along the grain) over broad, slightly
    wavy growth bands; ``scale`` is roughly the band spacing in pixels."""
    fibres = cv2.resize(rng.standard_normal((h, max(2, w // 24))).astype(np.float32), (w, h),
                        interpolation=cv2.INTER_CUBIC)
    fibres = cv2.GaussianBlur(fibres, (0, 0), 0.6)
    yy = np.arange(h, dtype=np.float32)[:, None]
    warp = smooth_noise(rng, h, w, max(8, int(scale * 8))) * scale * 0.35
    bands = np.sin((yy + warp) / max(scale, 1.0) * 2 * np.pi)
    bands2 = np.sin((yy + warp * 1.7) / max(scale, 1.0) * 0.77 * 2 * np.pi + 1.3)
    blotch = smooth_noise(rng, h, w, max(8, int(scale * 4)))
    shade = 0.9 + 0.05 * fibres + 0.05 * bands + 0.03 * bands2 + 0.04 * blotch
    return _tint(base, shade.astype(np.float32))


def table_texture(rng: np.random.Generator, h: int, w: int, style: str) -> np.ndarray:
    """The surface the board stands on, in image space (uint8 BGR).

    Drawn at half size and enlarged: a table top has no detail finer than that.
    """
    full = (w, h)
    h, w = max(2, h // 2), max(2, w // 2)
    if style == "wood":
        base = np.array([35, 65, 110]) * rng.uniform(0.6, 1.3)
        img = wood_grain(rng, h, w, base, rng.uniform(10, 30))
    elif style == "dark":
        base = np.array([30, 38, 48]) * rng.uniform(0.7, 1.3)
        img = _tint(base, 1 + 0.08 * smooth_noise(rng, h, w, 40))
    elif style == "cloth":
        base = rng.choice(np.array([[120, 110, 100], [110, 70, 40], [60, 60, 120], [90, 100, 90]]))
        shade = 1 + 0.07 * smooth_noise(rng, h, w, 60) + 0.04 * fine_noise(rng, h, w)
        img = _tint(base * rng.uniform(0.7, 1.2), shade)
    elif style == "light":
        base = np.array([200, 205, 210]) * rng.uniform(0.8, 1.05)
        img = _tint(base, 1 + 0.04 * smooth_noise(rng, h, w, 80))
    else:
        raise ValueError(f"unknown table style {style!r} (expected one of {TABLE_STYLES})")
    img = np.clip(img, 0, 255).astype(np.uint8)
    return cv2.resize(img, full, interpolation=cv2.INTER_LINEAR)


def board_texture(
    rng: np.random.Generator, style: str, frame: str, px: int,
    look: tuple[float, float, float, float] = (1.0, 0.0, 1.0, 0.0),
    n: int = STANDARD,
) -> tuple[np.ndarray, float]:
    """Top face of the board, frame included, as uint8 BGR and the frame width.

    Texture pixel (u, v) shows board point (u / px - margin, v / px - margin).
    ``look`` is (grid line weight, line lightness 0..1, felt brightness, felt
    greyness 0..1): boards differ in all four, and a reader must not rely on one.
    """
    if style not in BOARD_STYLES:
        raise ValueError(f"unknown board style {style!r} (expected one of {BOARD_STYLES})")
    if frame not in FRAME_STYLES:
        raise ValueError(f"unknown frame style {frame!r} (expected one of {FRAME_STYLES})")
    margin = FRAME_WIDTH[frame]
    size = int(round((n + 2 * margin) * px))
    lo, hi = int(round(margin * px)), int(round((n + margin) * px))

    weight, line_light, felt_tone, felt_grey = look
    base = np.array([45, 108, 32], dtype=np.float32) * rng.uniform(0.75, 1.2)
    base += rng.uniform(-8, 8, 3).astype(np.float32)
    green = felt_tone * ((1 - felt_grey) * base + felt_grey * float(base.mean()))
    if style == "felt":
        shade = cv2.GaussianBlur(1 + 0.05 * smooth_noise(rng, size, size, max(4, px))
                                 + 0.06 * fine_noise(rng, size, size), (0, 0), 0.7)
    elif style == "glossy":
        green = green * np.array([0.8, 1.08, 0.7], dtype=np.float32)
        shade = 1 + 0.015 * smooth_noise(rng, size, size, 3 * px)
    else:
        shade = (1 + 0.03 * smooth_noise(rng, size, size, 2 * px)
                 + 0.02 * fine_noise(rng, size, size))
    img = _tint(green, shade.astype(np.float32))

    if frame == "black":
        fb = np.array([28, 28, 30], dtype=np.float32) * rng.uniform(0.7, 1.4)
        fimg = _tint(fb, 1 + 0.05 * smooth_noise(rng, size, size, px))
    elif frame == "wood":
        brown = np.array([40, 85, 150]) * rng.uniform(0.6, 1.1)
        fimg = wood_grain(rng, size, size, brown, px * 0.3)
    else:
        fimg = img * 0.92
    # Some boards show a strip of felt past the outer grid line before the frame
    # starts, and some print that outer line heavier; drawn from a stream of its own
    # so every other choice stays as it was.
    own = rng.spawn(1)[0]
    strip = int(round(own.uniform(0.05, 0.3) * px)) if own.random() < 0.35 else 0
    strip = min(strip, lo - max(2, px // 10)) if frame != "none" else 0
    heavy = own.uniform(1.5, 2.8) if own.random() < 0.3 else 1.0
    frame_mask = np.ones((size, size), dtype=bool)
    frame_mask[lo - strip:hi + strip, lo - strip:hi + strip] = False
    img[frame_mask] = fimg[frame_mask]
    if frame != "none":
        # A bevel on the frame's inner rim catches the light.
        rim = max(1, px // 14)
        a, b = lo - strip, hi + strip
        img[a - rim:b + rim, a - rim:a] *= 1.6
        img[a - rim:a, a - rim:b + rim] *= 1.6

    if style == "recessed":
        _recess_cells(img, lo, px, n)
    line_colour = np.array([18, 24, 18], dtype=np.float32) * rng.uniform(0.6, 1.4)
    line_colour = (1 - line_light) * line_colour + line_light * green
    lw = rng.uniform(0.03, 0.05) * (1.6 if style == "recessed" else 1.0) * weight
    _grid(img, lo, px, lw, line_colour, n)
    if heavy > 1.0:
        k = max(1, int(round(lw * heavy * px / 2)))
        for e in (lo, lo + n * px):
            img[lo - k:lo + n * px + k + 1, e - k:e + k + 1] = line_colour
            img[e - k:e + k + 1, lo - k:lo + n * px + k + 1] = line_colour
    if style == "glossy":
        _specular(rng, img, lo, hi)
    return np.clip(img, 0, 255).astype(np.uint8), margin


def _grid(img: np.ndarray, lo: int, px: int, width: float, colour: np.ndarray,
          n: int) -> None:
    # An odd number of pixels centred on the line, so lines sit exactly on k * px.
    k_half = max(1, int(round(width * px / 2 - 0.5)))
    for k in range(n + 1):
        c = lo + k * px
        a, b = c - k_half, c + k_half + 1
        img[lo - k_half: lo + n * px + k_half + 1, a:b] = colour
        img[a:b, lo - k_half: lo + n * px + k_half + 1] = colour
    radius = 0.08 * px
    near, far = STAR_INSET, n - STAR_INSET
    for gx, gy in ((near, near), (far, near), (near, far), (far, far)):
        cv2.circle(img, (int(round((lo + gx * px) * 16)), int(round((lo + gy * px) * 16))),
                   int(round(radius * 16)), colour.tolist(), -1, cv2.LINE_AA, 4)


def _recess_cells(img: np.ndarray, lo: int, px: int, n: int) -> None:
    """Each cell sits a little below the raised grid: a dark inner edge on one side,
    a lit one on the other, and a slightly darker floor."""
    bev = max(1, int(round(px * 0.07)))
    for r in range(n):
        for c in range(n):
            y0, x0 = lo + r * px, lo + c * px
            cell = img[y0:y0 + px, x0:x0 + px]
            cell *= 0.93
            cell[:bev, :] *= 0.6
            cell[:, :bev] *= 0.7
            cell[-bev:, :] *= 1.2
            cell[:, -bev:] *= 1.12


def _specular(rng: np.random.Generator, img: np.ndarray, lo: int, hi: int) -> None:
    """A reflected lamp: a soft bright patch somewhere on the glossy print."""
    size = img.shape[0]
    cx, cy = rng.uniform(lo, hi, 2)
    sx, sy = rng.uniform(0.08, 0.22, 2) * (hi - lo)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    g = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2) / 2) * rng.uniform(0.25, 0.6)
    img += (255 - img) * g[..., None]


def tray_texture(rng: np.random.Generator, px: int, length: float, channels: int) -> np.ndarray:
    """A disc tray seen from above: channels of discs standing on edge, whose rims
    show as black/white stripes (each disc is half black, half white)."""
    h, w = int(round(channels * 1.0 * px + 0.3 * px)), int(round(length * px))
    tray_col = rng.choice(np.array([[30, 30, 32], [60, 60, 60], [40, 75, 120], [150, 150, 150]]))
    img = np.empty((h, w, 3), dtype=np.float32)
    img[:] = tray_col
    wall = max(1, int(0.15 * px))
    stripe = 0.06 * px
    for ch in range(channels):
        y0 = wall + int(round(ch * px))
        y1 = y0 + int(round(0.85 * px))
        fill = rng.uniform(0.4, 1.0) * (w - 2 * wall)
        x = np.arange(w, dtype=np.float32)
        phase = ((x - wall) / stripe + rng.uniform(0, 2)).astype(np.int64)
        flip = rng.random() < 0.5
        white = ((phase % 2) == 0) ^ flip
        row = np.where(white[:, None], np.array([225, 228, 230]), np.array([25, 25, 25]))
        row = row.astype(np.float32)
        inside = (x >= wall) & (x < wall + fill)
        band = img[y0:y1]
        band[:, inside] = row[inside][None, :, :]
        # Round rims: darker towards the channel's long edges.
        prof = np.sin(np.linspace(0.15, np.pi - 0.15, y1 - y0, dtype=np.float32)) ** 0.5
        band[:, inside] *= prof[:, None, None]
        img[y0:y1] = band
    return np.clip(img, 0, 255).astype(np.uint8)
