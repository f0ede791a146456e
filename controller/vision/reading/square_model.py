"""A small learned second opinion for the squares the measured rules leave ``?``.

The reader's rules (felt fractions, brightness against the felt, glare tests) are
exact where they decide, but they give up wherever a single cue is unclear: half
felt under a lamp's reflection, a dim black disc next to washed-out felt, a square
whose corners a shadow darkens. A person still sees what stands there, from the
whole square at once. This module lets a tiny convolutional network, trained only
on the project's own renderer (``training/train_squares.py``), look at the same
top-down canvas the rules read and name the square when it is sure.

It is never asked about a square the rules decided, nor one a hand or the
picture's edge hides, and it answers only above a fixed certainty: where it is
unsure the square stays ``?`` with the rules' reason. The network runs through
OpenCV's dnn module, so it adds no run-time dependency; without its file the
reader simply works on the rules alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from controller.vision.cv import cv2
from controller.vision.sampling import CELL, Layout

#: Side of the patch the network sees, in canvas pixels (1.5 squares): the square
#: and a rim of its neighbours, so a disc leaning in from next door is told apart.
PATCH = 36
#: The network sees the patch at half that resolution (a disc is still ten pixels
#: across), which keeps it to well under a millisecond for the few squares it is asked.
INPUT = PATCH // 2
#: What the network answers: the three states it may give, and everything else
#: (a hand, a shifted disc, something it cannot place) that it must not.
CLASSES = ("-", "X", "O", "other")
#: Probability a state needs before it replaces a ``?``; chosen on held-out scenes
#: of the project's own renderer (see the training script), never on others' data.
ACCEPT = 0.97
#: Log-brightness range the inputs are clipped to (felt is 0).
CLIP = (-3.0, 2.0)

MODEL_FILE = Path(__file__).resolve().parent / "models" / "squares.onnx"


@dataclass(frozen=True)
class PatchIndex:
    """Where each square's patch is taken from, fixed for one board geometry."""

    index: np.ndarray  # (64, INPUT * INPUT) flat canvas indices of each 2 x 2 block's corner
    felt: np.ndarray  # flat indices of every square's corners: where felt shows


#: log(value + 2) of every 8-bit value: the inputs are log ratios to the felt
_LOG = np.log(np.arange(256, dtype=np.float32) + 2.0)


def patch_index(layout: Layout) -> PatchIndex:
    """Each patch is centred half-way between a disc's base and its top, where the
    visible body of a disc seen at an angle lies."""
    side = layout.side
    centre = layout.centres + 0.5 * layout.offsets * CELL
    d = np.arange(0, PATCH, 2) - PATCH // 2
    ys = np.rint(centre[:, 1])[:, None, None].astype(int) + d[None, :, None]
    xs = np.rint(centre[:, 0])[:, None, None].astype(int) + d[None, None, :]
    ys = np.clip(ys, 0, side - 2)
    xs = np.clip(xs, 0, side - 2)
    return PatchIndex((ys * side + xs).reshape(layout.squares, -1), layout.corners.ravel())


def patches(canvas: np.ndarray, index: PatchIndex, squares: np.ndarray | None = None,
            ) -> np.ndarray:
    """(n, 3, INPUT, INPUT) float32 network inputs for ``squares`` (default all 64).

    Each colour channel is the log of its brightness over the felt's, the felt being
    the median of the squares' corners: exposure, white balance and the felt's own
    shade drop out, so the network sees the contrasts a person judges by. Each input
    pixel is the mean over a 2 x 2 block of the canvas.
    """
    felt = np.median(canvas.reshape(-1, 3)[index.felt], axis=0).astype(np.float32)
    logs = cv2.boxFilter(_LOG[canvas], -1, (2, 2), anchor=(0, 0), normalize=True,
                         borderType=cv2.BORDER_REPLICATE)
    rows = index.index if squares is None else index.index[squares]
    x = logs.reshape(-1, 3)[rows] - np.log(felt + 2.0)
    x = np.clip(x, *CLIP).reshape(len(rows), INPUT, INPUT, 3)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


class SquareModel:
    """The trained network, run through OpenCV's dnn module on one thread."""

    def __init__(self, path: str | Path = MODEL_FILE) -> None:
        self.path = Path(path)
        self._net = cv2.dnn.readNetFromONNX(str(self.path))

    def probabilities(self, x: np.ndarray, flips: bool = False) -> np.ndarray:
        """(n, len(CLASSES)) class probabilities for inputs from :func:`patches`;
        with ``flips``, averaged over the patch and its three mirror images (a square
        looks the same mirrored, and one view's fluke is outvoted)."""
        if len(x) == 0:
            return np.zeros((0, len(CLASSES)), np.float32)
        if flips:
            views = np.concatenate([x, x[..., ::-1], x[..., ::-1, :], x[..., ::-1, ::-1]])
            return self.probabilities(views).reshape(4, len(x), len(CLASSES)).mean(axis=0)
        self._net.setInput(np.ascontiguousarray(x, dtype=np.float32))
        logits = self._net.forward().reshape(len(x), len(CLASSES)).astype(np.float64)
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def decide(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(states, probabilities): a state from ``-XO`` where the network is sure,
        else ``?``."""
        p = self.probabilities(x, flips=True)
        best = p.argmax(axis=1)
        sure = p[np.arange(len(p)), best] >= ACCEPT
        states = np.array([CLASSES[b] for b in best], dtype="<U5")
        states[~sure | (states == "other")] = "?"
        return states.astype("<U1"), p.max(axis=1) if len(p) else np.zeros(0)


@lru_cache(maxsize=1)
def default_model() -> SquareModel | None:
    """The network shipped with Kaeshi, or None (rules only) when its file is missing
    or unreadable."""
    if not MODEL_FILE.is_file():
        return None
    try:
        return SquareModel(MODEL_FILE)
    except cv2.error:  # pragma: no cover - a damaged file: the rules still work
        return None
