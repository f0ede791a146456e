"""The camera on every board size: 6x6 and 10x10 beside 8x8, on the same terms.

Squares: scenes of the project's own renderer (``KAESHI_BENCH_SIZES_SCENES`` per set,
default 60), clean and hard (clutter beside the board and the waiting player's hand
resting at its edge as the scenes draw them, on every size), each read as ``kaeshi
recognize`` reads a photo (the board found with no help, a1 relabelled to the
renderer's) and, calibrated on the start position photographed in the same scene
first, as ``kaeshi watch`` reads a game; then clean and hard scenes with a hand over
the board, calibrated (squares a hand hides are not scored; a definite reading on one
is counted). Every scene counts: a board not found counts all its squares wrong. The
8x8 rows are drawn the same way, so the three sizes compare like for like.

A lamp's reflection: clean scenes each drawn with one, the squares counted by how
much it lifts them (``controller.measure.glare_lift``), to tell the reader's ``?``
on a lifted square, which must not depend on the size, from how much of the board a
reflection lifts, which does.

Whole games: random legal games played to their end on each size
(``KAESHI_BENCH_SIZES_GAMES``, default 3), each move's press 0.6 s after its board,
filmed in a clean 320x240 scene at 10 frames a second, read by the ``watch`` loop
with a calibration on the rendered start position, the presses merged in by time
and judged with the wait for that frame rate: a game is exact when its events are
those of the log it was filmed from. Goals: wrong at most 0.05%, ``?`` at most 1% of
the squares, whole games exact.
"""

from __future__ import annotations

import os
from dataclasses import replace

from controller.arbiter import ArbiterConfig, arbitrate
from controller.arbiter.presswait import press_wait
from controller.boardsize import SIZES
from controller.measure.evaluation import evaluate_rendered
from controller.measure.glare_lift import glare_lift
from controller.position import Position
from controller.synth.gamevideo import watch_game_video
from controller.synth.replay import calibrate_synthetic, default_scene, random_game

FPS = 10.0
#: The sets of own scenes: (hard, seed, hand over the board, calibrated ways).
SETS = ((False, 1, False, (False, True)), (True, 2, False, (False, True)),
        (False, 3, True, (True,)), (True, 4, True, (True,)))


def _squares(size: int, scenes: int) -> None:
    for hard, seed, hand, ways in SETS:
        for calibrated in ways:
            tally = evaluate_rendered(scenes, seed, hard=hard, hand=hand,
                                      calibrated=calibrated, size=size)
            how = "calibrated on the start position" if calibrated else "no calibration"
            kind = ("hard" if hard else "clean") + (", with hands" if hand else "")
            for line in tally.lines(f"{size}x{size}, own renders ({kind}), {how}"):
                print(line, flush=True)
    for line in glare_lift(scenes, 5, size).lines():
        print(line, flush=True)


def _games(size: int, games: int) -> None:
    scene = replace(default_scene(), width=320, height=240)
    setup = calibrate_synthetic(scene, seed=7, size=size)
    config = ArbiterConfig(start=Position.start(size), press_wait=press_wait(FPS))
    exact = moves = 0
    for seed in range(games):
        log = random_game(size, seed)
        camera = watch_game_video(log, setup, scene, FPS, seed=7, tail=1.0)
        truth = arbitrate(log, ArbiterConfig(start=Position.start(size)))
        seen = arbitrate(camera, config)
        moves += sum(e.event == "move" for e in truth)
        exact += [e.to_dict() | {"t": 0} for e in truth] == [e.to_dict() | {"t": 0} for e in seen]
    print(f"   {size}x{size}, whole games through the camera (clean, {FPS:g} fps): "
          f"{exact} of {games} exact ({moves} moves)", flush=True)


def main() -> None:
    scenes = int(os.environ.get("KAESHI_BENCH_SIZES_SCENES", "60"))
    games = int(os.environ.get("KAESHI_BENCH_SIZES_GAMES", "3"))
    for size in SIZES:
        _squares(size, scenes)
        _games(size, games)
