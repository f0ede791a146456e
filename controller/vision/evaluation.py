"""Measuring the camera path on rendered scenes: positions, shifts, scoring.

Shared by the tests and the benchmark so both count the same way: a square is
*wrong* when the camera path gives a definite state (``-XOxo``) that differs from
the truth; ``?`` is never wrong, only counted as unknown; squares the truth marks
hidden are not scored.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from controller.position import Position
from controller.vision.geometry import corners_of, homography_from_corners
from controller.vision.pipeline import START_BOARD, auto_setup, fit_start_position
from controller.vision.setup import CameraSetup

#: Distance of the shifted discs this suite renders, in squares. The reader reports a
#: disc as shifted from 0.4 of a square (0.29-0.4 reads '?'); real players leave
#: discs up to about 0.3 off centre in normal play (see the real photo), which must
#: still read as placed.
SHIFT_RANGE = (0.38, 0.43)


def random_position(rng: np.random.Generator, shifted: float = 0.0) -> str:
    """A position from a random legal game, some discs marked shifted (``x``/``o``)."""
    p = Position.start()
    for _ in range(int(rng.integers(0, 60))):
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
    for i, ch in enumerate(board):
        if ch not in "xo":
            continue
        r, c = divmod(i, 8)
        best, best_room = np.zeros(2), -1.0
        for k in range(16):
            a = k * np.pi / 8
            v = np.array([np.cos(a), np.sin(a)])
            room = 9.0
            for dr in (-1, 0, 1):
                for dc in (-1, 0, 1):
                    rr, cc = r + dr, c + dc
                    off_board = not (0 <= rr < 8 and 0 <= cc < 8)  # no pushing discs off
                    if (dr or dc) and (off_board or board[rr * 8 + cc] != "-"):
                        room = min(room, float(np.linalg.norm(np.array([dc, dr]) - 0.4 * v)))
            if room > best_room:
                best, best_room = v, room
        d = best * rng.uniform(*SHIFT_RANGE)
        out[i] = (float(d[0]), float(d[1]))
    return out


def align_to_truth(setup: CameraSetup, truth_corners: np.ndarray) -> CameraSetup:
    """Relabel a found board's corners to the renderer's a1 (what ``--a1`` tells)."""
    found = corners_of(setup.homography)
    t = np.asarray(truth_corners, dtype=np.float64)
    candidates = [np.roll(found, -k, axis=0) for k in range(4)]
    candidates += [np.roll(found[::-1], -k, axis=0) for k in range(4)]
    best = min(candidates, key=lambda c: float(np.abs(c - t).max()))
    return replace(setup, homography=homography_from_corners(best))


def corner_error(setup: CameraSetup, truth_corners: np.ndarray) -> float:
    """Largest corner distance from the truth, in squares (after alignment)."""
    aligned = align_to_truth(setup, truth_corners)
    t = np.asarray(truth_corners, dtype=np.float64)
    cell = float(np.linalg.norm(t[1] - t[0])) / 8
    return float(np.abs(corners_of(aligned.homography) - t).max()) / cell


def calibrate_on_start(scene: object, seed: int) -> tuple[CameraSetup, bool]:
    """Calibrate as a user would: the start position, no hand, same camera and light.

    Returns the set-up and whether the calibration read the start position without
    a contradiction and fitted the colour levels. ``kaeshi calibrate camera`` also
    keeps a set-up whose start discs were hidden by glare, with default levels that
    ``watch`` fits from the first clear board in play; a single frame read with
    those defaults misses dim black discs too often to count here (see the README's
    camera figures).
    """
    from controller.vision.finder import BoardNotFound
    from controller.vision.synth import render

    start = render(START_BOARD, replace(scene, hand=False), seed=seed)  # type: ignore[type-var]
    try:
        found = auto_setup(start.image)
    except BoardNotFound:
        return CameraSetup(start.image.shape[1::-1], np.eye(3)), False
    setup = align_to_truth(found, start.corners)
    fit = fit_start_position(setup, start.image, a1_fixed=True)
    ok = not fit.mismatches and fit.setup.model.fitted
    return fit.setup, ok


@dataclass
class Tally:
    squares: int = 0
    wrong: int = 0
    unknown: int = 0
    scenes: int = 0
    skipped: int = 0  # scenes whose calibration a user would have had to redo
    mistakes: list[tuple[int, int, str, str]] = field(default_factory=list)

    def add(self, scene_no: int, truth: str, read: str) -> None:
        self.scenes += 1
        for i, (t, r) in enumerate(zip(truth, read, strict=True)):
            if t == "?":
                continue
            self.squares += 1
            if r == "?":
                self.unknown += 1
            elif r != t:
                self.wrong += 1
                self.mistakes.append((scene_no, i, t, r))

    @property
    def wrong_rate(self) -> float:
        return self.wrong / max(1, self.squares)

    @property
    def unknown_rate(self) -> float:
        return self.unknown / max(1, self.squares)
