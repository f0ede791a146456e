"""Counting a camera path's readings against the truth, the same way everywhere.

A square is *wrong* when the camera path gives a definite state (``-XOxo``) that
differs from the truth; ``?`` is never wrong, only counted as unknown, with its
reason; squares the truth marks hidden are not scored. :class:`EndToEnd` counts the
way a user meets the camera: every scene, a board not found as 64 wrong squares.
Pure counting, kept apart from the scenes and pictures it is fed (see
:mod:`controller.measure.evaluation`) so a figure means the same in the tests, the
benchmark and the crop and photo checks.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from controller.boardsize import STANDARD


@dataclass
class Tally:
    """Squares wrong and ``?`` on boards read, with each mistake named: for checks on
    scenes whose boards are all found, where the end-to-end count adds nothing."""

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


#: Why a square may read ``?`` (see :mod:`controller.vision.reading.board_reading`); "unexplained"
#: collects any ``?`` the reader gave without one.
UNKNOWN_REASONS = ("occluded", "glare", "ambiguous", "outside", "unexplained")


@dataclass
class EndToEnd:
    """Squares right / wrong / ``?`` over all scenes, the way a user meets the camera.

    A scene whose board is not found counts every scored square as wrong; a scene
    whose calibration was refused is read with the uncalibrated set-up (which is
    what a user who ignores the refusal gets) and is also counted as refused.
    Squares the truth marks hidden (``?``) are not scored; a definite reading there
    is counted in ``hidden_definite`` (it is a guess under a hand).
    """

    scenes: int = 0
    found: int = 0
    refused: int = 0  # no board found, or the start position misread: "calibrate again"
    unfitted: int = 0  # kept, colour levels unfitted (both discs of a colour under glare)
    calibrated: int = 0  # scenes where a calibration was attempted
    squares: int = 0
    right: int = 0
    wrong: int = 0
    unknown: int = 0
    hidden_definite: int = 0
    misplaced: int = 0  # found, but a corner more than half a square from the truth
    learned: int = 0  # scored squares the learned model decided (the rules gave '?')
    learned_wrong: int = 0  # ... and of those, read wrong
    reasons: dict[str, int] = field(default_factory=lambda: dict.fromkeys(UNKNOWN_REASONS, 0))
    find_ms: list[float] = field(default_factory=list)
    not_found: list[str] = field(default_factory=list)
    worst: list[tuple[int, str]] = field(default_factory=list)  # (wrong + ?, scene)

    def add_not_found(self, name: str, truth: str) -> None:
        self.scenes += 1
        scored = sum(t != "?" for t in truth)
        self.squares += scored
        self.wrong += scored
        self.not_found.append(name)
        self.worst.append((scored, name))

    def check_corners(self, found: np.ndarray, truth: np.ndarray | None,
                      n: int = STANDARD) -> None:
        """Count a board found in the wrong place (its corners, any order)."""
        if truth is None:
            return
        t = np.asarray(truth, dtype=np.float64).reshape(4, 2)
        f = np.asarray(found, dtype=np.float64).reshape(4, 2)
        cell = float(np.linalg.norm(t - np.roll(t, 1, axis=0), axis=1).min()) / n
        d = np.linalg.norm(f[:, None] - t[None], axis=2).min(axis=1).max()
        self.misplaced += bool(d > 0.5 * cell)

    def add(self, name: str, truth: str, read: str, reasons: list[str] | None = None,
            learned: tuple[int, ...] = ()) -> None:
        """One scene's reading; ``x``/``o`` (a shifted disc) count as their colour
        when the truth does not mark shifts."""
        self.scenes += 1
        for i in learned:
            if truth[i] != "?":
                self.learned += 1
                self.learned_wrong += read[i] != truth[i] and read[i].upper() != truth[i]
        self.found += 1
        marks_shift = any(t in "xo" for t in truth)
        bad = 0
        for i, (t, r) in enumerate(zip(truth, read, strict=True)):
            if t == "?":
                if r != "?":
                    self.hidden_definite += 1
                continue
            self.squares += 1
            if r == "?":
                self.unknown += 1
                why = (reasons[i] if reasons else "") or "unexplained"
                self.reasons[why if why in self.reasons else "unexplained"] += 1
                bad += 1
                continue
            if not marks_shift:
                r = r.upper()
            if r == t:
                self.right += 1
            else:
                self.wrong += 1
                bad += 1
        self.worst.append((bad, name))

    def rate(self, n: int) -> float:
        return 100.0 * n / max(1, self.squares)

    def lines(self, title: str) -> list[str]:
        """The figures as printed by the benchmark (end to end, all scenes)."""
        why = ", ".join(f"{k} {v}" for k, v in self.reasons.items() if v)
        med = (f", median finding {np.median(self.find_ms):.0f} ms" if self.find_ms else "")
        out = [
            f"   {title}: {self.scenes} scenes, board found in {self.found} "
            f"({100 * self.found / max(1, self.scenes):.1f}%; {self.misplaced} of them misplaced "
            f"by over half a square){med}",
            f"     end to end over {self.squares} squares: right {self.rate(self.right):.2f}%, "
            f"wrong {self.rate(self.wrong):.3f}% ({self.wrong}), "
            f"? {self.rate(self.unknown):.2f}% ({self.unknown}: {why or 'none'})",
        ]
        if self.calibrated:
            out.append(f"     calibration refused in {self.refused} of {self.calibrated} scenes; "
                       f"kept without fitted colour levels (both start discs of one colour "
                       f"unreadable) in {self.unfitted} more")
        if self.hidden_definite:
            out.append(f"     definite states under hands: {self.hidden_definite}")
        if self.learned:
            out.append(f"     of the squares read, {self.learned} were decided by the learned "
                       f"model where the rules gave '?' ({self.learned_wrong} of them wrong)")
        return out
