"""A camera set-up: everything needed to read frames from one fixed camera.

It is what ``kaeshi calibrate camera`` saves and what ``watch`` loads: the image
size, the board homography in the user's a1 orientation, the disc height (for the
offset of disc tops in oblique views) and the colour model.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from controller.boardsize import STANDARD, BoardSizeError, check_size
from controller.squares import BoardStringError, parse_square, square_name
from controller.vision.colour import ColourModel
from controller.vision.reading.reader import SquareReader


@dataclass
class CameraSetup:
    image_size: tuple[int, int]  # (width, height) of the frames
    homography: np.ndarray  # board squares (a1 corner at 0,0) -> image pixels
    disc_height: float = 0.2  # in squares
    model: ColourModel = field(default_factory=ColourModel)
    grid_score: float = 0.0
    disc_bias: tuple[float, float] = (0.0, 0.0)  # systematic offset of discs (squares)
    #: calibration could not tell which way round the board is up to a quarter turn:
    #: the game's first boards settle it (see :mod:`controller.vision.watching.turn_in_play`)
    turn_unsettled: bool = False
    #: empty squares whose felt the rules took for a disc at calibration (a shadow's
    #: edge, a lamp's pool) where the learned model saw felt: in play the model has
    #: the last word on them (see ``SquareReader.doubtful``)
    doubtful: tuple[int, ...] = ()
    #: the board's columns and rows: the homography's square units run 0..size
    size: int = STANDARD

    def reader(self) -> SquareReader:
        return SquareReader(
            self.homography, self.image_size, self.model, self.disc_height,
            disc_bias=self.disc_bias, doubtful=self.doubtful, n=self.size,
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "image_size": list(self.image_size),
            "homography": [[float(v) for v in row] for row in self.homography],
            "disc_height": float(self.disc_height),
            "colour_model": self.model.to_dict(),
            "grid_score": float(self.grid_score),
            "disc_bias": [float(v) for v in self.disc_bias],
            "turn_unsettled": self.turn_unsettled,
            "doubtful_squares": [square_name(i, self.size) for i in self.doubtful],
            "board_size": self.size,
        }

    @classmethod
    def from_dict(cls, d: dict) -> CameraSetup:
        try:
            size = d["image_size"]
            w, h = int(size[0]), int(size[1])
            hom = np.array(d["homography"], dtype=np.float64)
            if hom.shape != (3, 3) or not np.isfinite(hom).all():
                raise ValueError("homography must be a 3x3 matrix of numbers")
            height = float(d.get("disc_height", 0.2))
            model = ColourModel.from_dict(d.get("colour_model", {}))
            bias = d.get("disc_bias", [0.0, 0.0])
            disc_bias = (float(bias[0]), float(bias[1]))
            n = check_size(d.get("board_size", STANDARD))
            doubtful = tuple(parse_square(str(sq), n) for sq in d.get("doubtful_squares", []))
            unsettled = d.get("turn_unsettled", False)
            if not isinstance(unsettled, bool):
                raise ValueError("camera set-up: turn_unsettled must be true or false, "
                                 f"not {unsettled!r}")
        except (KeyError, TypeError, IndexError) as exc:
            raise ValueError(f"camera set-up: missing or bad field ({exc})") from None
        except BoardSizeError as exc:
            raise ValueError(f"camera set-up: board_size: {exc}") from None
        except BoardStringError as exc:
            raise ValueError(f"camera set-up: doubtful_squares: {exc}") from None
        if w <= 0 or h <= 0:
            raise ValueError("camera set-up: image_size must be positive")
        return cls(
            (w, h), hom, height, model, float(d.get("grid_score", 0.0)), disc_bias, unsettled,
            doubtful, n,
        )
