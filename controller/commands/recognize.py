"""``kaeshi recognize IMAGE...``: read the position from photos of a board."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter

from controller.boardsize import SIZES, STANDARD


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Print each photo's board as N lines of N characters (- empty, X black, O "
        "white, ? unknown, x/o a shifted disc), then a confidence line that says "
        "why squares are unknown (occluded, glare, ambiguous, outside the image; "
        "--json names them per square). Without a calibration the board is found in"
        " the photo and printed as seen: line 1 is the row nearest the top of the "
        "image, after turning the board to the nearest upright orientation. With "
        "--calibration the board is printed from a1."
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="photo files (JPEG, PNG, ...)")
    p.add_argument("--calibration", metavar="FILE",
                   help="camera calibration from 'kaeshi calibrate camera'")
    p.add_argument("--size", type=int, choices=SIZES, metavar="N",
                   help="the board's columns and rows: 6, 8 or 10 (default: the "
                   "calibration's, else 8); a calibration of another size is refused")
    p.add_argument("--json", action="store_true", help="one JSON object per image")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from controller.boardsize import size_of_board_string
    from controller.errors import KaeshiError
    from controller.squares import square_name
    from controller.vision.calibration_file import check_board_size, load_calibration
    from controller.vision.cv import read_image
    from controller.vision.geometry import corners_of
    from controller.vision.pipeline import recognize

    setup = load_calibration(args.calibration).setup if args.calibration else None
    size = args.size or (setup.size if setup is not None else STANDARD)
    if setup is not None:
        check_board_size(args.calibration, setup.size, size)
    failures = 0
    for k, path in enumerate(args.images):
        try:
            image = read_image(path)
            result = recognize(image, setup, n=size)
        except (KaeshiError, ValueError) as exc:
            failures += 1
            msg = str(exc) if str(exc).startswith(str(path)) else f"{path}: {exc}"
            print(f"kaeshi: error: {msg}", file=sys.stderr)
            continue
        board = result.board
        n = size_of_board_string(board)
        rows = [board[r * n : (r + 1) * n] for r in range(n)]
        if args.json:
            print(json.dumps({
                "image": str(path),
                "board": board,
                "rows": rows,
                "confidence": round(result.confidence, 3),
                "square_confidence": [round(float(c), 3) for c in result.reading.confidence],
                "unknown": {square_name(i, n): why
                            for i, why in enumerate(result.reading.reasons) if why},
                "learned": [square_name(i, n) for i in result.reading.learned],
                "corners": [[round(float(v), 1) for v in p]
                            for p in corners_of(result.setup.homography, n)],
            }))
            continue
        if len(args.images) > 1:
            if k:
                print()
            print(f"{path}:")
        for row in rows:
            print(row)
        unknown = board.count("?")
        why = Counter(r for r in result.reading.reasons if r)
        detail = ", ".join(f"{count} {r}" for r, count in why.most_common())
        note = f", {unknown} unknown ({detail})" if unknown else ""
        if result.reading.learned:
            note += f", {len(result.reading.learned)} decided by the learned model"
        print(f"confidence {result.confidence:.2f}{note}")
    return 1 if failures else 0
