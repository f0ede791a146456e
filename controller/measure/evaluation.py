"""Measuring the camera path on rendered scenes and labelled folders: positions,
shifts, the truth's grid, calibration on the start position, and the scenes fed
through the reader.

Shared by the tests and the benchmark, which count what comes out with
:mod:`controller.vision.reading.scoring`, so both count the same way.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from controller.boardsize import STANDARD, size_of_board_string
from controller.position import Position
from controller.vision.calibrating.fit import StartFit
from controller.vision.calibrating.search import fit_on_start
from controller.vision.geometry import aligned_grid, corners_of
from controller.vision.pipeline import auto_setup
from controller.vision.reading.scoring import EndToEnd
from controller.vision.setup import CameraSetup

if TYPE_CHECKING:
    from controller.synth.picture import Rendered, Scene

#: Distance of the shifted discs this suite renders, in squares. The reader reports a
#: disc as shifted from 0.4 of a square (0.29-0.4 reads '?'); real players leave
#: discs up to about 0.3 off centre in normal play (see the real photo), which must
#: still read as placed.
SHIFT_RANGE = (0.38, 0.43)


def random_position(rng: np.random.Generator, shifted: float = 0.0,
                    size: int = STANDARD) -> str:
    """A position from a random legal game on a ``size`` x ``size`` board, some discs
    marked shifted (``x``/``o``)."""
    p = Position.start(size)
    for _ in range(int(rng.integers(0, size * size - 4))):
        moves = p.legal_squares()
        if not moves:
            if p.is_game_over():
                break
            p = p.pass_turn()
            continue
        p = p.play(moves[int(rng.integers(len(moves)))])
    b = list(p.board_string())
    for i, ch in enumerate(b):
        if ch in "XO" and rng.random() < shifted:
            b[i] = ch.lower()
    return "".join(b)


def shifts_with_room(board: str, rng: np.random.Generator) -> dict[int, tuple[float, float]]:
    """Offsets for the board's shifted discs, each towards the most free space."""
    out: dict[int, tuple[float, float]] = {}
    n = size_of_board_string(board)
    for i, ch in enumerate(board):
        if ch not in "xo":
            continue
        r, c = divmod(i, n)
        best, best_room = np.zeros(2), -1.0
        for k in range(16):
            a = k * 2 * np.pi / 16
            v = np.array([np.cos(a), np.sin(a)])
            room = 9.0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    off_board = not (0 <= rr < n and 0 <= cc < n)  # no pushing discs off
                    if (dr or dc) and (off_board or board[rr * n + cc] != "-"):
                        room = min(room, float(np.linalg.norm(np.array([dc, dr]) - 0.4 * v)))
            if room > best_room:
                best, best_room = v, room
        d = best * rng.uniform(*SHIFT_RANGE)
        out[i] = (float(d[0]), float(d[1]))
    return out


def align_to_truth(setup: CameraSetup, truth_corners: np.ndarray) -> CameraSetup:
    """Relabel a found board's corners to the renderer's a1 (what ``--a1`` tells)."""
    return replace(setup, homography=aligned_grid(setup.homography, truth_corners, setup.size))


def corner_error(setup: CameraSetup, truth_corners: np.ndarray) -> float:
    """Largest corner distance from the truth, in squares (after alignment)."""
    return grid_error(setup.homography, truth_corners)


def grid_error(h: np.ndarray, truth_corners: np.ndarray, n: int = STANDARD) -> float:
    """:func:`corner_error` of a bare grid: for outlines no set-up was made on."""
    t = np.asarray(truth_corners, dtype=np.float64)
    cell = float(np.linalg.norm(t[1] - t[0])) / n
    return float(np.abs(corners_of(aligned_grid(h, t, n), n) - t).max()) / cell


def calibrate_on_start(scene: Scene, seed: int) -> tuple[CameraSetup, bool]:
    """Calibrate as a user would: the start position, no hand, same camera and light.

    Returns the set-up and whether the calibration read the start position without
    a contradiction and fitted the colour levels. ``kaeshi calibrate camera`` also
    keeps a set-up whose start discs of one colour were both hidden by glare, with
    levels that ``watch`` fits from the first clear board in play; a single frame
    read with those levels misses dim black discs too often to count here (see the
    README's camera figures).
    """
    fit = start_fit(scene, seed)
    if fit is None:
        size = (int(scene.width), int(scene.height))
        return CameraSetup(size, np.eye(3)), False
    ok = not fit.mismatches and fit.setup.model.fitted
    return fit.setup, ok


def start_fit(scene: Scene, seed: int, size: int = STANDARD) -> StartFit | None:
    """The calibration on the start position of a ``size`` x ``size`` board in
    ``scene`` (None: no board found)."""
    return fit_on_picture(start_picture(scene, seed, size))


def start_picture(scene: Scene, seed: int, size: int = STANDARD) -> Rendered:
    """The start position photographed in ``scene``, as a user sets it up to
    calibrate: no hand over the board or resting at its edge."""
    from controller.synth.picture import render

    calm = replace(scene, hand=False, resting_hand=False)
    return render(Position.start(size).board_string(), calm, seed=seed)


def own_start_picture(seed: int, number: int, hard: bool = True) -> Rendered:
    """The start position set up in scene ``number`` of the project's own set
    ``seed`` (see :func:`start_picture`): the scenes tests name by seed and number."""
    own = next(itertools.islice(own_scenes(seed, hard=hard), number, None))
    return start_picture(own.scene, own.render_seed)


def fit_on_picture(start: Rendered) -> StartFit | None:
    """The calibration on a rendered start position, a1 where the renderer put it
    (None: no board found)."""
    from controller.vision.finding.finder import BoardNotFound

    try:
        n = size_of_board_string(start.board)
        return fit_on_start(start.image, lambda h: aligned_grid(h, start.corners, n), n=n)
    except BoardNotFound:
        return None


def load_labelled(folder: str | Path) -> list[tuple[Path, str, np.ndarray | None]]:
    """(image path, 64-character truth, corners or None) of a folder with a
    ``labels.json`` mapping image names to ``{"board": [8 rows of 8]}`` (and,
    optionally, ``"style": {"corners": [4 x, y]}``)."""
    import json

    root = Path(folder)
    try:
        labels = json.loads((root / "labels.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{root}: no readable labels.json ({exc})") from None
    out = []
    for name in sorted(labels):
        rows = labels[name]["board"] if isinstance(labels[name], dict) else labels[name]
        truth = "".join(rows)
        try:
            size_of_board_string(truth)
        except ValueError as exc:
            raise ValueError(f"{root / 'labels.json'}: {name}: {exc}") from None
        style = labels[name].get("style", {}) if isinstance(labels[name], dict) else {}
        corners = np.array(style["corners"], float) if "corners" in style else None
        out.append((root / name, truth, corners))
    return out


def evaluate_image(
    tally: EndToEnd, name: str, image: np.ndarray, truth: str,
    corners: np.ndarray | None = None,
) -> None:
    """Find the board with no help, read it, and count it (as ``kaeshi recognize``)."""
    from controller.vision.finding.finder import BoardNotFound

    t0 = time.process_time()
    try:
        setup = auto_setup(image)
    except BoardNotFound:
        tally.find_ms.append(1000 * (time.process_time() - t0))
        tally.add_not_found(name, truth)
        return
    tally.find_ms.append(1000 * (time.process_time() - t0))
    tally.check_corners(corners_of(setup.homography), corners)
    reading = setup.reader().read(image)
    tally.add(name, truth, reading.board, reading_reasons(reading), reading.learned)


def reading_reasons(reading: object) -> list[str] | None:
    """Per-square reasons of a reading, when the reader gives them."""
    reasons = getattr(reading, "reasons", None)
    return list(reasons) if reasons is not None else None


def evaluate_folder(folder: str | Path, limit: int | None = None) -> EndToEnd:
    """End-to-end figures on a labelled folder of photographs or renders."""
    from controller.vision.cv import read_image

    tally = EndToEnd()
    for path, truth, corners in load_labelled(folder)[:limit]:
        evaluate_image(tally, path.name, read_image(path), truth, corners)
    return tally


class OwnScene(NamedTuple):
    """One scene of an own set: the renderer's seed for it, the scene, the position
    shown and its discs' shifts."""

    render_seed: int
    scene: Scene
    board: str
    shifts: dict[int, tuple[float, float]]


def own_scenes(seed: int, hard: bool, hand: bool = False, size: int = STANDARD,
               **scene: object) -> Iterator[OwnScene]:
    """The scenes of the project's own set ``seed``, in order, drawn the one way the
    benchmark and the tests that name a scene of it both rely on."""
    from controller.synth.picture import random_scene

    rng = np.random.default_rng(seed)
    for i in itertools.count():
        sc = random_scene(rng, hard=hard, hand=hand, **scene)
        board = random_position(rng, shifted=0.05, size=size)
        yield OwnScene(seed * 10_000 + i, sc, board, shifts_with_room(board, rng))


def evaluate_rendered(
    n: int, seed: int, hard: bool, hand: bool = False, calibrated: bool = False,
    size: int = STANDARD, **scene: object,
) -> EndToEnd:
    """End-to-end figures on ``n`` scenes of the project's own renderer.

    Uncalibrated, each scene is read as ``kaeshi recognize`` reads a photo (its a1
    relabelled to the renderer's, as ``--a1`` would). Calibrated, the start position
    is first photographed in the same scene and calibrated on; a refused calibration
    is counted, and the scene is then read with the set-up it gave all the same.
    """
    from controller.synth.picture import render
    from controller.vision.finding.finder import BoardNotFound

    tally = EndToEnd()
    for i, own in zip(range(n), own_scenes(seed, hard, hand, size, **scene), strict=False):
        sc = own.scene
        r = render(own.board, sc, seed=own.render_seed, shifts=own.shifts)
        name = f"{seed}/{i}"
        t0 = time.process_time()
        try:
            if calibrated:
                tally.calibrated += 1
                fit = start_fit(sc, own.render_seed, size)
                if fit is None:
                    tally.refused += 1
                    raise BoardNotFound("calibration found no board")
                tally.refused += bool(fit.mismatches)
                tally.unfitted += not fit.mismatches and not fit.setup.model.fitted
                setup = fit.setup
            else:
                setup = align_to_truth(auto_setup(r.image, n=size), r.corners)
        except BoardNotFound:
            if not calibrated:  # a calibration's time would count the rendering too
                tally.find_ms.append(1000 * (time.process_time() - t0))
            tally.add_not_found(name, r.board)
            continue
        if not calibrated:
            tally.find_ms.append(1000 * (time.process_time() - t0))
        tally.check_corners(corners_of(setup.homography, size), r.corners, size)
        reading = setup.reader().read(r.image)
        tally.add(name, r.board, reading.board, reading_reasons(reading), reading.learned)
    return tally
