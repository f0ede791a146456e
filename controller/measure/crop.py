"""Measuring boards cut off by the picture's edge, on a labelled photograph.

A webcam that does not quite see the whole board is met by cropping a photo of a
whole board: on each side in turn, by a share of the board's width or height. The
labels describe the whole board, so a square cut off reads ``?`` (reason
``outside``) and counts as unknown, never as wrong; squares that are seen must read
as labelled. A photo's labels fix no orientation, so each crop is counted under the
symmetry of the board that fits its reading best (as ``recognize`` is without
``--a1``).
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path

import numpy as np

from controller.boardsize import size_of_board_string
from controller.measure.evaluation import reading_reasons
from controller.symmetry import TRANSFORMS, square_table
from controller.vision.reading.scoring import EndToEnd

SIDES = ("left", "right", "top", "bottom")


def crop_board(image: np.ndarray, corners: np.ndarray, side: str, share: float) -> np.ndarray:
    """``image`` with ``share`` of the board's extent (its corners' bounding box)
    cut off on ``side``."""
    c = np.asarray(corners, dtype=np.float64).reshape(4, 2)
    lo, hi = c.min(axis=0), c.max(axis=0)
    span = hi - lo
    if side == "left":
        out = image[:, int(lo[0] + share * span[0]):]
    elif side == "right":
        out = image[:, : int(hi[0] - share * span[0])]
    elif side == "top":
        out = image[int(lo[1] + share * span[1]):]
    elif side == "bottom":
        out = image[: int(hi[1] - share * span[1])]
    else:
        raise ValueError(f"side must be one of {', '.join(SIDES)}, not {side!r}")
    return np.ascontiguousarray(out)


def best_symmetry(board: str, truth: str) -> int:
    """The symmetry (0-7) under which ``board`` agrees best with ``truth``: fewest
    wrong squares, then fewest ``?``."""
    n = size_of_board_string(board)

    def cost(t: int) -> tuple[int, int]:
        table = square_table(t, n)
        moved = [""] * len(board)
        for i, ch in enumerate(board):
            moved[table[i]] = ch
        wrong = sum(r not in "?" and r.upper() != s for r, s in zip(moved, truth, strict=True))
        return wrong, moved.count("?")

    return min(TRANSFORMS, key=cost)


def count_crop(tally: EndToEnd, name: str, image: np.ndarray, truth: str) -> None:
    """Find the board in one cropped photo with no help, read it, and count it."""
    from controller.vision.finding.finder import BoardNotFound
    from controller.vision.pipeline import auto_setup

    try:
        setup = auto_setup(image)
    except BoardNotFound:
        tally.add_not_found(name, truth)
        return
    reading = setup.reader().read(image)
    squares = len(reading.board)
    table = square_table(best_symmetry(reading.board, truth), reading.n)
    board, reasons = [""] * squares, [""] * squares
    why = reading_reasons(reading) or [""] * squares
    for i in range(squares):
        board[table[i]] = reading.board[i]
        reasons[table[i]] = why[i]
    tally.add(name, truth, "".join(board), reasons)


def evaluate_crops(
    image: np.ndarray, truth: str, shares: tuple[float, ...] = (0.05, 0.1, 0.2, 0.3)
) -> EndToEnd:
    """End-to-end figures of the photo cropped on each side by each share.

    ``truth`` is the 64-square labelling over ``-XO`` in the photo's own row order;
    the board's extent is found on the whole photo first.
    """
    from controller.vision.finding.finder import find_board

    corners = find_board(image).corners
    tally = EndToEnd()
    for side in SIDES:
        for share in shares:
            count_crop(tally, f"{side} {share:.0%}", crop_board(image, corners, side, share),
                       truth)
    return tally


#: Where the renders of :func:`evaluate_cut_off_renders` push the board past the
#: picture's edge (``Scene.offset``) and by how much of its size (``Scene.overhang``).
CUT_OFF_VIEWS = tuple((off, share) for off in ((1, 0), (-1, 0), (0, 1), (0, -1))
                      for share in (0.1, 0.2))


def evaluate_cut_off_renders(n: int, seed: int, hard: bool = False) -> EndToEnd:
    """End-to-end figures on ``n`` scenes of the project's renderer whose board is
    cut off by the picture's edge, on each side in turn, by a tenth and a fifth."""
    from controller.measure.evaluation import evaluate_rendered

    out = EndToEnd()
    per = max(1, n // len(CUT_OFF_VIEWS))
    for k, (off, share) in enumerate(CUT_OFF_VIEWS):
        part = evaluate_rendered(per, seed * 100 + k, hard=hard, offset=off, overhang=share)
        for f in fields(EndToEnd):
            mine, theirs = getattr(out, f.name), getattr(part, f.name)
            if isinstance(mine, dict):
                for key, value in theirs.items():
                    mine[key] = mine.get(key, 0) + value
            else:
                setattr(out, f.name, mine + theirs)
    return out


def evaluate_photo_crops(folder: str | Path, name: str, long_side: int = 1200) -> EndToEnd:
    """:func:`evaluate_crops` on one labelled photo (``labels.json`` as in the shared
    photo folders: ``images`` -> name -> ``board``, rows over ``B``/``W``/``.``),
    scaled to ``long_side`` pixels as a webcam frame would be."""
    import json

    from controller.vision.cv import cv2, read_image

    root = Path(folder)
    labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    rows = labels["images"][name]["board"]
    truth = "".join(rows).replace("B", "X").replace("W", "O").replace(".", "-")
    image = read_image(root / name)
    f = long_side / max(image.shape[:2])
    if f < 1:
        image = cv2.resize(image, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)
    return evaluate_crops(image, truth)
