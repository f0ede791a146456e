"""Synthetic renderer speed: CPU milliseconds per 640x480 picture, plain and hard scenes.

CPU time rather than wall time: the figure should not depend on what else the
machine is doing. Each set is drawn once before timing, so the board and table
texture caches are warm, as they are after the first few dozen pictures of any run."""

from __future__ import annotations

import time

import numpy as np

from controller.synth.picture import START_BOARD, Scene, random_scene, render


def _per_image(scenes: list[Scene], boards: list[str]) -> float:
    for k, (scene, board) in enumerate(zip(scenes, boards, strict=True)):
        render(board, scene, seed=k)  # fills the texture caches, as a long run would
    started = time.process_time()
    for k, (scene, board) in enumerate(zip(scenes, boards, strict=True)):
        render(board, scene, seed=k)
    return (time.process_time() - started) / len(scenes) * 1000


def main() -> None:
    rng = np.random.default_rng(0)
    n = 40
    boards = ["".join(rng.choice(list("-XO"), 64)) for _ in range(n)]
    render(START_BOARD, Scene())  # warm up imports and OpenCV
    figures = {
        "top-down, start position": _per_image([Scene()] * n, [START_BOARD] * n),
        "oblique, full board": _per_image([Scene(tilt_deg=35)] * n, boards),
        "random scene": _per_image([random_scene(rng) for _ in range(n)], boards),
        "hard random scene": _per_image([random_scene(rng, hard=True) for _ in range(n)], boards),
        "hard scene with hand": _per_image(
            [random_scene(rng, hard=True, hand=True) for _ in range(n)], boards),
    }
    for name, ms in figures.items():
        print(f"   {name:28s} {ms:6.1f} ms / image")


if __name__ == "__main__":
    main()
