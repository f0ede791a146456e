"""Per-pixel colour tests and the per-session colour model.

Three kinds of pixel belong on a board: felt (green), black discs (dark, little
colour) and white discs (bright, little colour). Anything else with real colour —
skin, a sleeve, a pen — is foreign. Disc brightness is judged relative to the felt
next to it, so a shadow across the board or a dim room moves both together.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from controller.vision.cv import cv2

RELATIVE_FELT = 0.6  # felt is at least this bright relative to the felt nearby


@dataclass
class ColourModel:
    """Felt hue range and the brightness ratios of black and white discs to the felt.

    The defaults read a typical green board with no calibration; ``fit`` tightens
    them on the start position (4 known discs, 60 known empty squares) and
    ``update`` follows slow changes of light during a game.
    """

    hue_lo: float = 30.0
    hue_hi: float = 95.0
    sat_min: float = 55.0
    val_min: float = 14.0
    black_log: float = float(np.log(0.35))  # log(disc brightness / felt brightness)
    white_log: float = float(np.log(3.5))
    fitted: bool = False
    history: list[float] = field(default_factory=list, repr=False)

    @property
    def cut(self) -> float:
        return 0.5 * (self.black_log + self.white_log)

    @property
    def band(self) -> float:
        """Half-width of the undecided zone around the cut (log units)."""
        return 0.28 * (self.white_log - self.black_log)

    def to_dict(self) -> dict[str, float | bool]:
        return {
            "hue_lo": self.hue_lo,
            "hue_hi": self.hue_hi,
            "sat_min": self.sat_min,
            "val_min": self.val_min,
            "black_log": self.black_log,
            "white_log": self.white_log,
            "fitted": self.fitted,
        }

    @classmethod
    def from_dict(cls, d: dict) -> ColourModel:
        keys = ("hue_lo", "hue_hi", "sat_min", "val_min", "black_log", "white_log")
        try:
            vals = {k: float(d[k]) for k in keys}
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"colour model: missing or bad field ({exc})") from None
        return cls(**vals, fitted=bool(d.get("fitted", True)))

    def felt(self, hsv: np.ndarray) -> np.ndarray:
        """Felt pixels: the felt's hue, saturated, and not much darker than the felt
        around them (a black disc mirrors the green felt, but dimly)."""
        lo = np.array([self.hue_lo, self.sat_min, self.val_min])
        hi = np.array([self.hue_hi, 255, 255])
        raw = cv2.inRange(hsv, lo, hi)
        v = hsv[..., 2]
        # the felt's own brightness nearby, from a coarse grid (cheap and smooth)
        h, w = raw.shape
        gh, gw = max(2, h // 24), max(2, w // 24)
        weight = cv2.resize(raw, (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32)
        level = cv2.resize(cv2.bitwise_and(v, raw), (gw, gh), interpolation=cv2.INTER_AREA)
        local = level.astype(np.float32) * 255.0 / np.maximum(weight, 1.0)
        local = cv2.blur(local, (3, 3))
        local = cv2.resize(local, (w, h), interpolation=cv2.INTER_LINEAR)
        return (raw > 0) & (v >= RELATIVE_FELT * local)

    def masks(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Flat arrays: felt mask, grey level, foreign-colour mask."""
        hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
        felt = self.felt(hsv).ravel()
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).ravel()
        # skin and coloured cloth: saturated, reasonably lit, not felt-coloured
        coloured = cv2.inRange(hsv, np.array([0, 70, 60]), np.array([180, 255, 255])).ravel() > 0
        near = cv2.inRange(
            hsv, np.array([self.hue_lo - 5, 0, 0]), np.array([self.hue_hi + 5, 255, 255])
        ).ravel() > 0
        foreign = coloured & ~near & ~felt
        return felt, gray, foreign
