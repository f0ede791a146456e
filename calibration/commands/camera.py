"""``kaeshi calibrate camera``: find the board, fit the colours, save, show."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from controller.boardsize import SIZES, STANDARD
from controller.vision.places import A1_PLACES

if TYPE_CHECKING:
    import numpy as np


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "camera",
        help="find the board in the camera's view and fit the colour model",
        description="Calibrate the camera path: set the board up at the start position, "
        "point the camera at it, and run this. The board is found (or taken from "
        "--corners), its grid refined, the colours of discs and felt measured on the "
        "four start discs and the empty squares; the result is saved as JSON and an "
        "annotated picture shows every square's reading and confidence.",
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", type=int, metavar="N", help="camera index (default 0)")
    src.add_argument("--image", type=Path, metavar="FILE", help="use a photo instead")
    p.add_argument("--picamera", action="store_true", help="use the Raspberry Pi camera")
    p.add_argument("--size", type=int, choices=SIZES, default=STANDARD,
                   help="the board's columns and rows (default 8); the calibration records it")
    p.add_argument(
        "--corners", nargs="+", metavar="X,Y",
        help="the playing area's corners a1 h1 h8 a8 in pixels, e.g. "
        "--corners 102,80 530,76 545,470 95,480 (default: found automatically)",
    )
    p.add_argument("--a1", choices=A1_PLACES, help="image corner where a1 is (default: found "
                   "from the start position, top-left or top-right)")
    p.add_argument("--out", type=Path, default=Path("camera-calibration.json"),
                   help="calibration file to write (default camera-calibration.json)")
    p.add_argument("--picture", type=Path, default=None,
                   help="annotated PNG to write (default: --out with .png)")
    p.add_argument("--keep-refused", action="store_true",
                   help="write the calibration even when it is refused (marked "
                   "start_position_ok: false; watch and the service warn when they use "
                   "it): for a picture that shows the grid right and a disc misread")
    p.set_defaults(func=run)


def parse_corners(values: list[str]) -> np.ndarray:
    """Four ``x,y`` pairs (or eight numbers) in the order a1, h1, h8, a8."""
    import numpy as np

    numbers: list[float] = []
    for v in values:
        for part in v.replace(";", ",").split(","):
            part = part.strip()
            if not part:
                continue
            try:
                numbers.append(float(part))
            except ValueError:
                raise ValueError(f"--corners: {part!r} is not a number") from None
    if len(numbers) != 4 * 2:  # x and y of each corner
        raise ValueError(
            f"--corners needs four x,y pairs (a1 h1 h8 a8), got {len(numbers)} numbers"
        )
    return np.array(numbers, dtype=np.float64).reshape(4, 2)


def grab_frame(camera: int | None, picamera: bool) -> np.ndarray:
    """A settled picture from a live camera (see
    :func:`controller.vision.capture.settled_picture`)."""
    from controller.vision.capture import open_source, settled_picture

    source = open_source(camera=camera, picamera=picamera)
    try:
        return settled_picture(source.frames())
    finally:
        source.close()


def run(args: argparse.Namespace) -> int:
    from calibration.camera import calibrate_image
    from controller.vision.annotate import (
        MARK_STRAY,
        MARK_UNMEASURED,
        MARK_WRONG,
        annotate,
    )
    from controller.vision.calibration_file import save_calibration
    from controller.vision.cv import read_image, write_image

    corners = parse_corners(args.corners) if args.corners else None
    if corners is not None and args.a1:
        raise ValueError("give either --corners (which start at a1) or --a1, not both")
    if args.image is not None:
        image = read_image(args.image)
        source = str(args.image)
    else:
        image = grab_frame(args.camera, args.picamera)
        source = "Pi camera" if args.picamera else f"camera {args.camera or 0}"
    result = calibrate_image(image, corners=corners, a1=args.a1, source=source,
                             searching=lambda note: print(f"note: {note}", file=sys.stderr),
                             size=args.size)
    fit = result.fit
    # a refused calibration must not replace a good one, nor pass for one unnoticed
    kept = not fit.mismatches or args.keep_refused
    existed = args.out.exists()
    if kept:
        save_calibration(args.out, result.calibration)
    picture = args.picture or args.out.with_suffix(".png")
    reading = fit.reading
    if fit.mismatches:
        title = f"refused: {len(fit.mismatches)} squares differ from the start position"
    elif not fit.setup.model.fitted:
        title = "start position OK; colour levels not fitted (start discs covered)"
    else:
        title = "start position OK"
    marks = {i: MARK_UNMEASURED for i in fit.unmeasured}
    marks |= {i: MARK_STRAY for i in fit.stray}
    marks |= {i: MARK_WRONG for i in fit.mismatches}
    write_image(picture, annotate(image, result.calibration.setup.homography, reading, title,
                                  marks))
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    for row in reading.rows:
        print(row)
    if kept:
        print(f"calibration written to {args.out}; picture in {picture}")
        return 0
    print(f"calibration refused: {args.out} "
          + ("left as it was" if existed else "not written")
          + f"; picture in {picture}. Do what the warnings say and calibrate again; if the "
          "outline in the picture is not the board's, give the playing area's corners with "
          "--corners (or, if only a disc misread, keep it with --keep-refused).",
          file=sys.stderr)
    return 1
