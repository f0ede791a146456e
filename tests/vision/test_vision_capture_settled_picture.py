"""Live calibration's picture: the median of a few frames once the camera settles,
so a dim room's noise falls and a hand crossing a frame drops out."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from controller.vision.capture import CaptureError, Frame, settled_picture


def _scene() -> np.ndarray:
    y, x = np.mgrid[0:120, 0:160]
    grey = 40.0 + 0.2 * x
    grey[:, 80:82] = 20.0  # a thin grid line
    return np.repeat(grey[..., None], 3, axis=2)


def _frames(n: int, sigma: float, seed: int = 0,
            hand: frozenset[int] = frozenset()) -> Iterator[Frame]:
    rng = np.random.default_rng(seed)
    scene = _scene()
    for i in range(n):
        image = scene + rng.normal(0.0, sigma, scene.shape[:2])[..., None]
        if i in hand:
            image[30:90, 40:120] = 200.0  # a hand over the board
        yield Frame(i / 30.0, np.clip(image, 0, 255).astype(np.uint8))


def _scatter(image: np.ndarray) -> float:
    """How far ``image`` scatters round the true scene (grey levels, one deviation)."""
    return float((image.astype(float) - _scene()).std())


def test_the_median_of_the_settled_frames_is_less_noisy_than_one():
    one = next(iter(_frames(1, 6.0, seed=3)))
    picture = settled_picture(_frames(40, 6.0), skip=15, stack=8)
    assert _scatter(picture) < 0.5 * _scatter(one.image)
    assert abs(float((picture.astype(float) - _scene()).mean())) < 1.0


def test_a_hand_crossing_two_frames_of_the_stack_drops_out():
    picture = settled_picture(_frames(40, 2.0, hand=frozenset({16, 17})), skip=15, stack=8)
    assert np.abs(picture[30:90, 40:120].astype(float) - _scene()[30:90, 40:120]).max() < 12


def test_frames_skipped_while_the_camera_settles_are_not_used():
    def frames() -> Iterator[Frame]:
        for i in range(20):
            yield Frame(float(i), np.full((4, 4, 3), 0 if i < 15 else 100, np.uint8))

    assert (settled_picture(frames(), skip=15, stack=8) == 100).all()


def test_a_camera_that_stops_early_gives_what_it_had():
    picture = settled_picture(_frames(3, 0.0), skip=15, stack=8)
    assert np.array_equal(picture, _scene().astype(np.uint8))
    with pytest.raises(CaptureError, match="no frame"):
        settled_picture(iter([]), skip=15, stack=8)


def test_calibrate_camera_takes_the_settled_picture_and_releases_the_camera(monkeypatch):
    from calibration.commands import camera as command
    from controller.vision import capture

    class Fake(capture.FrameSource):
        closed = False

        def frames(self) -> Iterator[Frame]:
            yield from _frames(40, 6.0)

        def close(self) -> None:
            Fake.closed = True

    monkeypatch.setattr(capture, "open_source", lambda **kwargs: Fake())
    picture = command.grab_frame(0, False)
    assert Fake.closed
    assert np.array_equal(picture, settled_picture(_frames(40, 6.0)))
