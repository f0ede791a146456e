"""Frame sources: a USB/V4L2 camera, the Pi camera, a video file, an image folder.

Every source yields ``Frame(t, image)`` with ``t`` in seconds. Failures are
reported as :class:`CaptureError` with a message a user can act on; a camera that
stops delivering frames is retried by the caller, never turned into a reading.
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from controller.errors import KaeshiError
from controller.vision.cv import ImageError, cv2, read_image

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".webp")


class CaptureError(KaeshiError):
    """A frame source that cannot deliver: missing camera, unreadable file, unplugged."""


@dataclass(frozen=True)
class Frame:
    t: float
    image: np.ndarray


class FrameSource:
    """Base: iterate for frames; ``close`` releases the device."""

    name = "source"
    #: The kind of source, as a camera log's header names it (``LogHeader.source``).
    kind = "camera"
    live = False  # a live camera may come back after a failure; a file does not

    def frames(self) -> Iterator[Frame]:  # pragma: no cover - interface
        raise NotImplementedError

    def frame_rate(self) -> float | None:
        """Frames a second the source delivers, once its first frame has come (None:
        it does not say). Written into the log's header, it sets how long a press
        waits for the frames after it when the log is judged."""
        return None

    def close(self) -> None:
        """Release the device; sources without one need nothing."""

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class CameraSource(FrameSource):
    """An OpenCV camera (USB webcam through V4L2 on Linux)."""

    live = True

    def __init__(
        self,
        index: int,
        width: int | None = None,
        height: int | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.index = index
        self.name = f"camera {index}"
        self.width, self.height = width, height
        self.clock = clock
        self.cap: object | None = None
        self.fps: float | None = None
        self.t0 = clock()

    def open(self) -> None:
        cap = cv2.VideoCapture(self.index)
        if not cap.isOpened():
            cap.release()
            raise CaptureError(
                f"camera {self.index} is not available (not connected, or in use by "
                "another program); list cameras with: v4l2-ctl --list-devices"
            )
        if self.width and self.height:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.height)
        self.cap = cap
        fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0)
        self.fps = fps if 0 < fps <= 1000 else None  # the driver's rate, when it says one

    def frame_rate(self) -> float | None:
        return self.fps

    def frames(self) -> Iterator[Frame]:
        if self.cap is None:
            self.open()
        while True:
            ok, image = self.cap.read()  # type: ignore[union-attr]
            if not ok or image is None:
                self.close()
                raise CaptureError(f"camera {self.index} stopped delivering frames (unplugged?)")
            yield Frame(self.clock() - self.t0, image)

    def close(self) -> None:
        if self.cap is not None:
            self.cap.release()  # type: ignore[attr-defined]
            self.cap = None


class PiCameraSource(FrameSource):
    """The Raspberry Pi camera through picamera2, when it is installed."""

    kind = "picamera"
    live = True

    def __init__(
        self, width: int = 1280, height: int = 720, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.name = "Pi camera"
        self.size = (width, height)
        self.clock = clock
        self.cam: Any = None  # a picamera2.Picamera2, which has no type information
        self.t0 = clock()

    @staticmethod
    def available() -> bool:
        return importlib.util.find_spec("picamera2") is not None

    def frames(self) -> Iterator[Frame]:
        if self.cam is None:
            try:
                module = importlib.import_module("picamera2")
                cam = module.Picamera2()
                config = cam.create_video_configuration(
                    main={"size": self.size, "format": "BGR888"}
                )
                cam.configure(config)
                cam.start()
            except Exception as exc:  # picamera2 raises many kinds; all mean "no camera"
                raise CaptureError(f"Pi camera is not available: {exc}") from None
            self.cam = cam
        while True:
            try:
                image = self.cam.capture_array()
            except Exception as exc:
                self.close()
                raise CaptureError(f"Pi camera stopped delivering frames: {exc}") from None
            yield Frame(self.clock() - self.t0, np.ascontiguousarray(image[..., :3]))

    def close(self) -> None:
        if self.cam is not None:
            try:
                self.cam.stop()
            finally:
                self.cam = None


class VideoFileSource(FrameSource):
    """A recorded video; frame times come from the file (or its frame rate)."""

    kind = "video"

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.name = str(self.path)
        self.fps: float | None = None

    def frame_rate(self) -> float | None:
        return self.fps

    def frames(self) -> Iterator[Frame]:
        if not self.path.is_file():
            raise CaptureError(f"{self.path}: no such video file")
        cap = cv2.VideoCapture(str(self.path))
        try:
            if not cap.isOpened():
                raise CaptureError(f"{self.path}: not a readable video")
            fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
            self.fps = float(fps) if 0 < fps <= 1000 else None
            n = 0
            while True:
                ok, image = cap.read()
                if not ok or image is None:
                    if n == 0:
                        raise CaptureError(f"{self.path}: no frames could be decoded")
                    return
                t = n / fps if fps > 0 else cap.get(cv2.CAP_PROP_POS_MSEC) / 1000.0
                n += 1
                yield Frame(float(t), image)
        finally:
            cap.release()


class ImageFolderSource(FrameSource):
    """Still images of a folder in name order, ``1 / fps`` seconds apart.

    An unreadable image is reported through ``on_error`` and skipped, so one bad
    file does not end a replay.
    """

    kind = "images"

    def __init__(
        self,
        folder: str | Path,
        fps: float = 1.0,
        on_error: Callable[[str], None] | None = None,
    ) -> None:
        self.folder = Path(folder)
        self.name = str(self.folder)
        self.fps = fps
        self.on_error = on_error or (lambda msg: None)

    def frame_rate(self) -> float | None:
        return self.fps

    def frames(self) -> Iterator[Frame]:
        if not self.folder.is_dir():
            raise CaptureError(f"{self.folder}: no such folder")
        files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise CaptureError(f"{self.folder}: no images in it")
        for n, p in enumerate(files):
            try:
                image = read_image(p)
            except ImageError as exc:
                self.on_error(str(exc))
                continue
            yield Frame(n / self.fps, image)


def settled_picture(frames: Iterator[Frame], skip: int = 15, stack: int = 8) -> np.ndarray:
    """One picture of a still scene from a live camera's ``frames``: the first
    ``skip`` passed over while exposure and white balance settle, then the
    per-pixel median of the next ``stack``.

    A camera in a dim room turns its gain up and every frame scatters each pixel
    anew; the median of eight brings that scatter down by more than half, where one
    frame leaves the felt's edges and the squares' corners frayed. A median, not a
    mean: a hand or a shadow crossing a frame or two of the stack drops out. Fewer
    frames than asked: the median of those there are, or the last frame skipped."""
    last: np.ndarray | None = None
    kept: list[np.ndarray] = []
    for n, frame in enumerate(frames):
        if n < skip:
            last = frame.image
            continue
        kept.append(frame.image.copy())  # a driver may reuse its buffer
        if len(kept) >= stack:
            break
    if not kept:
        if last is None:
            raise CaptureError("the camera gave no frame")
        return last
    return np.median(np.stack(kept), axis=0).round().astype(kept[0].dtype)


def open_source(
    camera: int | None = None,
    video: str | None = None,
    images: str | None = None,
    picamera: bool = False,
    fps: float = 1.0,
    on_error: Callable[[str], None] | None = None,
) -> FrameSource:
    if video is not None:
        return VideoFileSource(video)
    if images is not None:
        return ImageFolderSource(images, fps=fps, on_error=on_error)
    if picamera:
        if not PiCameraSource.available():
            raise CaptureError(
                "the Pi camera needs the picamera2 package: sudo apt install python3-picamera2, "
                "in a venv made with --system-site-packages so it can see it "
                "(docs/install-pi.md; `kaeshi doctor` checks it)"
            )
        return PiCameraSource()
    return CameraSource(0 if camera is None else camera)
