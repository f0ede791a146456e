"""What a phone does that a Pi camera does not, mid-game: no move is lost or invented.

The socket dropped while a hand is over the board (the page keeps its frames and
sends them once back), the page reloaded (the frames of the reload are gone), the
phone's exposure jumping, the phone nudged on its stand. Each game must be judged as
its log is, and the trouble must be said. And the lens covered while a move is made
and pressed: the arbiter holds judgement until the board is back in view.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from fake_devices import Gap, jpegs, play_game
from phone_support import LiveTable, content, game_log, scene, setup_file, truth

from controller.synth.gamevideo import GameVideo
from controller.vision.capture import Frame

FPS = 10


def _hand_of_move(log, n: int) -> float:
    """When the ``n``-th hand comes over the board (seconds into the game)."""
    t0 = next(o.t for o in log if o.board is not None)
    hands = [o.t for o in log if o.board is not None and "?" in o.board]
    return hands[2 * (n - 1)] - t0


def _frames(log, change=None):
    out = []
    t0 = None
    for f in GameVideo(log, scene(), FPS, seed=7, tail=1.5, moving_hands=True).frames():
        t0 = f.t if t0 is None else t0
        image = f.image if change is None else change(f.t - t0, f.image)
        out.append(Frame(f.t, image))
    return jpegs(out)


def _brighter(after: float):
    def change(at: float, image: np.ndarray) -> np.ndarray:
        if at < after:
            return image
        return np.clip(image.astype(np.float32) * 1.45, 0, 255).astype(np.uint8)
    return change


def _nudged(after: float):
    import cv2

    def change(at: float, image: np.ndarray) -> np.ndarray:
        if at < after:
            return image
        h, w = image.shape[:2]
        m = np.float32([[1, 0, 3], [0, 1, 2]])
        return cv2.warpAffine(image, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    return change


SAID: dict[str, str | None] = {
    "dropped": "the camera page disconnected",
    "reloaded": "judgement waited for the view",
    "exposure": "the exposure changed",
    "nudged": None,  # a nudge the grid follows is nothing to say
    "covered": "the board is not in view",
}


def _covered(start: float, end: float):
    def change(at: float, image: np.ndarray) -> np.ndarray:
        return np.zeros_like(image) if start <= at < end else image
    return change


@pytest.mark.parametrize("fault", list(SAID))
def test_a_fault_mid_game_loses_and_invents_no_move(tmp_path, caplog, fault):
    log = game_log()
    hand = _hand_of_move(log, 2)
    gap = None
    change = None
    if fault == "dropped":
        gap = Gap(hand - 0.05, hand + 1.2, keep=True)
    elif fault == "reloaded":
        gap = Gap(hand - 0.05, hand + 1.2, keep=False)
    elif fault == "exposure":
        change = _brighter(hand - 0.5)
    elif fault == "nudged":
        change = _nudged(hand - 0.5)
    else:  # the lens covered while the move is made and pressed
        change = _covered(hand - 0.05, hand + 1.2)
    frames = _frames(log, change)
    table = LiveTable(tmp_path, FPS, setup_file(tmp_path, scene()))
    try:
        play_game(table.url.replace("http", "ws"), frames,
                  [o for o in log if o.press is not None], (3.0, -5.0), (0.05, 0.3), gap,
                  key=table.key)
        time.sleep(1.5)
        got = content(table.events())
    finally:
        table.close()
    assert got == truth(log)
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    if SAID[fault] is not None:
        assert any(SAID[fault] in m for m in said), said
