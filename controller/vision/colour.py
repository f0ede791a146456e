"""Per-pixel colour tests and the per-session colour model.

Three kinds of pixel belong on a board: felt (green), black discs (dark, little
colour) and white discs (bright, little colour). Anything else with real colour —
skin, a sleeve, a pen — is foreign. Disc brightness is judged relative to the felt
next to it, so a shadow across the board or a dim room moves both together.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from controller.vision.cv import cv2

RELATIVE_FELT = 0.6  # felt is at least this bright relative to the felt nearby
FOLLOW_RATE = 0.02  # share of the way per still frame: the levels follow over seconds
FOLLOW_MIN_DISCS = 3  # discs of each colour a board must show to move the levels
FOREIGN_CHROMA = 32  # grey levels between a pixel's strongest and weakest channel
MIN_LEVEL_GAP = 0.9  # log units that must part black and white discs for their levels to count
BAND = 0.22  # share of the black-to-white span either side of the cut left undecided
SPLIT_BAND = 0.3  # ... or of the empty gap between the two colours, when one was seen
MIN_BAND = 0.04  # log units: never narrower than this (noise of a disc's grey level)
TYPICAL_FELT = 30  # percentile of felt-coloured pixels' brightness taken as the felt's ...
BRIGHT_FELT = 2.5  # ... and how much brighter than it a pixel may be to count towards it
MAX_FELT_FLOOR = 0.75  # a shiny black disc near the felt's brightness must not unmake felt


@dataclass
class ColourModel:
    """Felt hue range and the brightness ratios of black and white discs to the felt.

    The defaults read a typical green board with no calibration; calibration fits
    the two levels on the start position (4 known discs, 60 known empty squares),
    and ``follow`` moves them with slow changes of light during a game.
    """

    hue_lo: float = 30.0
    hue_hi: float = 95.0
    sat_min: float = 55.0
    val_min: float = 14.0
    black_log: float = float(np.log(0.35))  # log(disc brightness / felt brightness)
    white_log: float = float(np.log(3.5))
    fitted: bool = False
    #: Where black ends and white begins, when one image showed both colours apart:
    #: the middle of the empty gap between them (black discs under a lamp spread
    #: far upwards, so the midpoint of the two levels would cut into them), and the
    #: gap's width. ``None``: the midpoint of the levels.
    split: float | None = None
    gap: float | None = None
    #: Gains (B, G, R) that make this camera's white discs grey: a warm lamp or a
    #: wrong white balance tints them orange or blue, which the foreign-colour test
    #: would otherwise take for skin. ``None``: the frames are taken as balanced.
    balance: tuple[float, float, float] | None = None

    @property
    def cut(self) -> float:
        if self.split is not None:
            return self.split
        return 0.5 * (self.black_log + self.white_log)

    @property
    def band(self) -> float:
        """Half-width of the undecided zone around the cut (log units)."""
        span = BAND * (self.white_log - self.black_log)
        if self.gap is not None:
            span = min(span, SPLIT_BAND * self.gap)
        return max(MIN_BAND, span)

    @property
    def felt_floor(self) -> float:
        """How bright a pixel must be, next to the felt around it, to be felt.

        A black disc mirrors the green felt, but dimly. In dim light with a noisy
        camera its reflection can reach over half the felt's brightness, so the line
        sits half-way (in log terms) between the felt and the black discs' level.
        """
        return min(MAX_FELT_FLOOR, max(RELATIVE_FELT, float(np.exp(0.5 * self.black_log))))

    def follow(
        self, black: np.ndarray, white: np.ndarray, rate: float = FOLLOW_RATE
    ) -> ColourModel:
        """The model after one settled board whose discs read ``black`` and ``white``
        (their log brightness ratios to the felt).

        Disc brightness is already taken relative to the felt, so a dimmer room
        moves both together; what drifts is the contrast (a warmer lamp, the camera's
        exposure clipping white discs), and the levels follow it a step at a time.
        Only discs read with confidence are given, so each step is small and a
        single misread cannot drag a level across the cut. A model that was never
        fitted (the start discs were under glare at calibration) is fitted here
        from the first board that shows enough discs of both colours.
        """
        b = black[np.isfinite(black)]
        w = white[np.isfinite(white)]
        if len(b) < FOLLOW_MIN_DISCS or len(w) < FOLLOW_MIN_DISCS:
            return self
        mb, mw = float(np.median(b)), float(np.median(w))
        if mw - mb < MIN_LEVEL_GAP:
            return self
        step = 1.0 if not self.fitted else rate
        split, gap = self.split, self.gap
        if split is not None and gap is not None:
            top, bottom = float(b.max()), float(w.min())
            if bottom > top:  # the gap as this board shows it
                split += step * (0.5 * (top + bottom) - split)
                gap += step * (bottom - top - gap)
        return replace(
            self,
            black_log=self.black_log + step * (mb - self.black_log),
            white_log=self.white_log + step * (mw - self.white_log),
            fitted=True,
            split=split,
            gap=gap,
        )

    def to_dict(self) -> dict[str, float | bool | list[float] | None]:
        return {
            "hue_lo": self.hue_lo,
            "hue_hi": self.hue_hi,
            "sat_min": self.sat_min,
            "val_min": self.val_min,
            "black_log": self.black_log,
            "white_log": self.white_log,
            "fitted": self.fitted,
            **({"split": self.split, "gap": self.gap} if self.split is not None else {}),
            **({"balance": list(self.balance)} if self.balance is not None else {}),
        }

    @classmethod
    def from_dict(cls, d: dict) -> ColourModel:
        keys = ("hue_lo", "hue_hi", "sat_min", "val_min", "black_log", "white_log")
        try:
            vals = {k: float(d[k]) for k in keys}
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"colour model: missing or bad field ({exc})") from None
        split = gap = None
        if d.get("split") is not None:
            try:
                split, gap = float(d["split"]), float(d["gap"])
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"colour model: bad split or gap ({exc})") from None
        balance = None
        if d.get("balance") is not None:
            try:
                balance = tuple(float(v) for v in d["balance"])
            except (TypeError, ValueError) as exc:
                raise ValueError(f"colour model: bad balance ({exc})") from None
            if len(balance) != 3 or not all(0.1 <= g <= 10 for g in balance):
                raise ValueError("colour model: balance must be three gains between 0.1 and 10")
        return cls(
            **vals, fitted=bool(d.get("fitted", True)), split=split, gap=gap,
            balance=balance,  # type: ignore[arg-type]
        )

    def felt(self, hsv: np.ndarray, robust: bool = False) -> np.ndarray:
        """Felt pixels: the felt's hue, saturated, and not much darker than the felt
        around them (see ``felt_floor``).

        ``robust``: the felt nearby is judged without the pixels far brighter than
        most of the felt-coloured ones: in a dim room with a tinted light, white discs
        can take the felt's hue and enough saturation, and would otherwise lift the
        level the felt next to them is held to.
        """
        return self.felt_and_level(hsv, robust)[0]

    def felt_held_to(self, hsv: np.ndarray, local: np.ndarray) -> np.ndarray:
        """Felt pixels of another view of the same picture (the unsmoothed warp of a
        smoothed one), held to the felt's brightness ``local`` found on that: the
        level is a coarse average, which smoothing does not change, and finding it
        costs as much again as the rest."""
        return (self._felt_coloured(hsv) > 0) & (hsv[..., 2] >= self.felt_floor * local)

    def _felt_coloured(self, hsv: np.ndarray) -> np.ndarray:
        lo = np.array([self.hue_lo, self.sat_min, self.val_min])
        hi = np.array([self.hue_hi, 255, 255])
        return cv2.inRange(hsv, lo, hi)

    def felt_and_level(self, hsv: np.ndarray,
                       robust: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`felt`, and the felt's brightness nearby that it held the pixels to
        (per pixel, float32)."""
        raw = self._felt_coloured(hsv)
        v = hsv[..., 2]
        full = raw
        sample = v[::2, ::2][raw[::2, ::2] > 0] if robust else v[:0, 0]
        if len(sample):
            k = int(len(sample) * TYPICAL_FELT / 100)
            typical = max(float(np.partition(sample, k)[k]), 1.0)
            raw = np.where(v <= BRIGHT_FELT * typical, raw, 0).astype(np.uint8)
        # the felt's own brightness nearby, from a coarse grid (cheap and smooth)
        h, w = raw.shape
        gh, gw = max(2, h // 24), max(2, w // 24)
        weight = cv2.resize(raw, (gw, gh), interpolation=cv2.INTER_AREA).astype(np.float32)
        level = cv2.resize(cv2.bitwise_and(v, raw), (gw, gh), interpolation=cv2.INTER_AREA)
        ratio = level.astype(np.float32) * 255.0 / np.maximum(weight, 1.0)
        local = cv2.resize(cv2.blur(ratio, (3, 3)), (w, h), interpolation=cv2.INTER_LINEAR)
        return (full > 0) & (v >= self.felt_floor * local), local

    def masks(self, bgr: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Flat arrays: felt mask, grey level, foreign-colour mask."""
        return self.masks_and_level(bgr)[:3]

    def masks_and_level(
        self, bgr: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`masks`, and the felt's brightness nearby (see :meth:`felt_held_to`)."""
        hsv = cv2.cvtColor(bgr, cv2.COLOR_BGR2HSV)
        felt2d, local = self.felt_and_level(hsv, robust=True)
        felt = felt2d.ravel()
        gray = cv2.cvtColor(bgr, cv2.COLOR_BGR2GRAY).ravel()
        # skin and coloured cloth: saturated, reasonably lit, not felt-coloured, judged
        # after the camera's colour cast is taken out (a white disc under a warm lamp)
        bal = hsv
        if self.balance is not None:
            gains = np.array(self.balance, dtype=np.float32)
            balanced = np.clip(bgr.astype(np.float32) * gains, 0, 255).astype(np.uint8)
            bal = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)
        coloured = cv2.inRange(bal, np.array([0, 70, 60]), np.array([180, 255, 255])).ravel() > 0
        # ... with real colour, not a dark grey disc tinted by the white balance, whose
        # saturation (relative to its brightness) is large from a few grey levels
        chroma = bal[..., 1].astype(np.uint16).ravel() * bal[..., 2].ravel()
        coloured &= chroma >= FOREIGN_CHROMA * 255
        near = cv2.inRange(
            hsv, np.array([self.hue_lo - 5, 0, 0]), np.array([self.hue_hi + 5, 255, 255])
        ).ravel() > 0
        foreign = coloured & ~near & ~felt
        return felt, gray, foreign, local


BALANCE_GAIN = (0.6, 1.6)  # gains beyond these are not a cast but something else


def balanced_on(model: ColourModel, canvas: np.ndarray, felt: np.ndarray,
                idx: np.ndarray) -> ColourModel:
    """The model with gains that make the pixels ``idx`` of ``canvas`` (white discs) grey.

    Pixels of felt carry the felt's colour, not the light's; pixels clipped in all
    channels (glare) or near black carry no cast: all are left out. Too few pixels
    left, or a cast beyond ``BALANCE_GAIN`` (the discs are not really seen): no change.
    """
    px = canvas.reshape(-1, 3)[idx].reshape(-1, 3)
    keep = ~felt[idx].ravel() & (px.min(axis=1) < 250) & (px.min(axis=1) > 20)
    if keep.sum() < 50:
        return model
    mean = px[keep].astype(np.float64).mean(axis=0)
    gains = mean.mean() / np.maximum(mean, 1.0)
    if gains.min() < BALANCE_GAIN[0] or gains.max() > BALANCE_GAIN[1]:
        return model
    return replace(model, balance=(float(gains[0]), float(gains[1]), float(gains[2])))
