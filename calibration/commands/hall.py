"""``kaeshi calibrate hall``: the guided Hall-sensor calibration."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "hall",
        help="measure every Hall sensor (empty, black-up, white-up) and store thresholds",
        description="Guided calibration of the sensor board: the board is read empty, "
        "then with 64 discs black side up, then white side up. Thresholds are derived "
        "with safety margins, written to the board and to a JSON file, and a picture of "
        "every square's readings is saved next to it.",
    )
    p.add_argument("--port", required=True, help="serial port of the board, e.g. /dev/ttyACM0")
    p.add_argument("--samples", type=int, default=100,
                   help="readings per square and step (default 100, one second)")
    p.add_argument("--out", type=Path, default=Path("hall-calibration.json"),
                   help="thresholds file to write (default hall-calibration.json)")
    p.add_argument("--picture", type=Path, default=None,
                   help="PNG of the reading distributions (default: --out with .png)")
    p.add_argument("--yes", action="store_true",
                   help="do not wait for Enter between the steps")
    p.add_argument("--restore", type=Path, metavar="FILE",
                   help="write a saved thresholds file to the board instead of measuring")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from calibration.hall.model import load
    from calibration.hall.procedure import calibrate, restore
    from controller.hall.driver import HallBoard  # the serial edge, loaded on demand

    def prompt(text: str) -> None:
        print(text, flush=True)
        if not args.yes:
            input("  press Enter when ready ")

    picture = args.picture or args.out.with_suffix(".png")
    with HallBoard(args.port) as board:
        if args.restore is not None:
            cal = load(args.restore)
            restore(board, cal)
            print(f"thresholds from {args.restore} stored on the board "
                  f"(calibration CRC {cal.crc:#06x})")
            return 0
        calibrate(board, prompt, args.out, picture, args.samples,
                  say=lambda s: print(s, file=sys.stdout, flush=True))
    return 0
