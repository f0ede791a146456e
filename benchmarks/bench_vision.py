"""Camera path figures: board finding, per-frame reading, accuracy, memory.

Accuracy is measured on rendered scenes with exact truth (see
controller/vision/evaluation.py for how squares are counted). Set
KAESHI_BENCH_VISION_SCENES to change the number of scenes per condition, and
KAESHI_BENCH_VISION_SEEDS (e.g. "45,46") to add hard scene sets drawn from other
seeds: a set nobody has looked at tells more than one whose errors were studied.
"""

from __future__ import annotations

import os
import resource
import time

import numpy as np

from controller.vision.evaluation import (
    Tally,
    align_to_truth,
    calibrate_on_start,
    corner_error,
    random_position,
    shifts_with_room,
)
from controller.vision.finder import BoardNotFound
from controller.vision.pipeline import auto_setup
from controller.vision.synth import Scene, random_scene, render


def _per_frame(width: int, height: int, frames: int = 300) -> float:
    scene = Scene(width=width, height=height, tilt_deg=25, rotation_deg=5, noise=0.01)
    setup, _ = calibrate_on_start(scene, 1)
    reader = setup.reader()
    rng = np.random.default_rng(1)
    images = [render(random_position(rng), scene, seed=1).image for _ in range(10)]
    reader.read(images[0])
    # CPU time of this process: OpenCV runs on one thread here, and a shared
    # machine's wall clock would count other programs' time too
    t0 = time.process_time()
    for n in range(frames):
        reader.read(images[n % len(images)])
    return (time.process_time() - t0) / frames * 1000


def _finding(n: int) -> tuple[float, float, int]:
    rng = np.random.default_rng(21)
    times, errors, failed = [], [], 0
    for i in range(n):
        scene = random_scene(rng, hard=True, hand=False)
        r = render(random_position(rng), scene, seed=3000 + i)
        t0 = time.process_time()
        try:
            setup = auto_setup(r.image)
        except BoardNotFound:
            failed += 1
            continue
        times.append(time.process_time() - t0)
        errors.append(corner_error(setup, r.corners))
    good = float(np.mean(np.array(errors) < 0.15)) if errors else 0.0
    return float(np.median(times)) * 1000, good, failed


def _accuracy(n: int, hard: bool, hand: bool, calibrated: bool, seed: int) -> Tally:
    rng = np.random.default_rng(seed)
    tally = Tally()
    for i in range(n):
        scene = random_scene(rng, hard=hard, hand=hand)
        board = random_position(rng, shifted=0.05)
        shifts = shifts_with_room(board, rng)
        if calibrated:
            setup, ok = calibrate_on_start(scene, seed * 10_000 + i)
            if not ok:
                tally.skipped += 1
                continue
            r = render(board, scene, seed=seed * 10_000 + i, shifts=shifts)
        else:
            r = render(board, scene, seed=seed * 10_000 + i, shifts=shifts)
            try:
                setup = align_to_truth(auto_setup(r.image), r.corners)
            except BoardNotFound:
                tally.skipped += 1
                continue
        tally.add(i, r.board, setup.reader().read(r.image).board)
    return tally


def _line(name: str, t: Tally) -> str:
    return (
        f"   {name}: {t.squares} squares in {t.scenes} scenes, wrong {t.wrong} "
        f"({100 * t.wrong_rate:.3f}%), unknown {100 * t.unknown_rate:.1f}%"
        + (f", {t.skipped} scenes skipped (calibration refused)" if t.skipped else "")
    )


def main() -> None:
    n = int(os.environ.get("KAESHI_BENCH_VISION_SCENES", "540"))
    ms, good, failed = _finding(max(20, n // 6))
    print(f"   board finding (hard scenes, no hand): median {ms:.0f} ms CPU per image, "
          f"{100 * good:.0f}% within 0.15 square, {failed} not found")
    print(f"   per frame, fixed calibration: 640x480 {_per_frame(640, 480):.2f} ms, "
          f"1280x720 {_per_frame(1280, 720):.2f} ms (CPU time, one thread)")
    print(_line("clean renders, no calibration", _accuracy(n // 4, False, False, False, 1)))
    print(_line("hard renders, calibrated", _accuracy(n, True, False, True, 2)))
    # The reader's margins were set by looking at the errors of the set above; a set
    # it has never seen tells how well they carry over.
    print(_line("hard renders, calibrated, held-out scenes",
                _accuracy(n // 2, True, False, True, 7)))
    for seed in os.environ.get("KAESHI_BENCH_VISION_SEEDS", "").split(","):
        if seed.strip():
            print(_line(f"hard renders, calibrated, scene set {int(seed)}",
                        _accuracy(n // 2, True, False, True, int(seed))))
    print(_line("hands over the board, calibrated", _accuracy(n // 4, False, True, True, 3)))
    print(_line("hard renders with hands, calibrated", _accuracy(n // 4, True, True, True, 4)))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"   peak memory (whole benchmark process): {peak:.0f} MB")


if __name__ == "__main__":
    main()
