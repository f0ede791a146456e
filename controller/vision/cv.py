"""The one place OpenCV is imported.

Every other module of the camera path goes through this one, so a machine without
OpenCV fails in one spot with one clear message, and the rest of Kaeshi (rules,
arbiter, Hall-sensor path) never loads it.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from controller.errors import KaeshiError

try:
    import cv2
except ImportError as exc:  # pragma: no cover - depends on the installation
    raise KaeshiError(
        "the camera path needs OpenCV: pip install opencv-python-headless"
    ) from exc

cv2.setNumThreads(1)
try:  # camera probing warnings would drown the messages Kaeshi prints itself
    cv2.utils.logging.setLogLevel(cv2.utils.logging.LOG_LEVEL_ERROR)
except AttributeError:  # pragma: no cover - very old OpenCV
    pass

__all__ = ["components", "cv2", "decode_image", "encode_png", "read_image", "write_image"]


def components(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """``cv2.connectedComponentsWithStats`` of a uint8 mask, 8-connected: count,
    labels, stats, centroids. Labels are 16-bit when they fit, which OpenCV finds
    two to three times as fast (the board finder labels a felt mask five times
    per picture); a mask of more specks than that is labelled again with 32 bits."""
    try:
        return cv2.connectedComponentsWithStats(mask, connectivity=8, ltype=cv2.CV_16U)
    except cv2.error:  # more than 65535 components
        return cv2.connectedComponentsWithStats(mask, connectivity=8)


class ImageError(KaeshiError):
    """An image that cannot be read or written; the message names the file."""


def read_image(path: str | Path) -> np.ndarray:
    """Load a colour image (BGR uint8) or raise :class:`ImageError` naming the file."""
    p = Path(path)
    if not p.is_file():
        raise ImageError(f"{p}: no such image file")
    data = np.fromfile(str(p), dtype=np.uint8)
    image = decode_image(data.tobytes(), str(p))
    return image


def decode_image(data: bytes, name: str = "image") -> np.ndarray:
    """Decode encoded bytes (JPEG, PNG, ...); a corrupt or empty file gives a clear error."""
    if not data:
        raise ImageError(f"{name}: file is empty")
    buf = np.frombuffer(data, dtype=np.uint8)
    image = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError(f"{name}: not a readable image (corrupt or unsupported format)")
    return image


def encode_png(image: np.ndarray) -> bytes:
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise ImageError("could not encode PNG")
    return buf.tobytes()


def write_image(path: str | Path, image: np.ndarray) -> None:
    p = Path(path)
    suffix = p.suffix.lower() or ".png"
    ok, buf = cv2.imencode(suffix, image)
    if not ok:
        raise ImageError(f"{p}: could not encode image as {suffix}")
    try:
        p.write_bytes(buf.tobytes())
    except OSError as exc:
        raise ImageError(f"{p}: cannot write ({exc.strerror})") from None
