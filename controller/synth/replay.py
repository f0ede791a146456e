"""Playing an observation log through the camera path, for tests and ``simulate``.

Every board observation is rendered as a photograph of the board in one fixed
scene, read back by the same code that reads a real camera, and replaced by what
the camera path saw. Clock presses pass through untouched. Comparing the arbiter's
events on the original and on the replayed log shows whether the camera path can
be trusted with a whole game.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from controller.boardsize import STANDARD
from controller.measure.evaluation import start_fit
from controller.observation import Observation
from controller.vision.finding.finder import BoardNotFound
from controller.vision.setup import CameraSetup

if TYPE_CHECKING:
    from controller.synth.scene import Scene


def default_scene() -> Scene:
    """A club room: camera on a stand, leaning 20 degrees, ordinary light."""
    from controller.synth.picture import Scene

    return Scene(
        width=640, height=480, tilt_deg=20.0, rotation_deg=4.0, view_from_deg=0.0,
        light=0.9, light_gradient=0.15, noise=0.01, blur=0.5, board_fraction=0.8,
        jpeg_quality=90,
    )


def calibrate_synthetic(scene: Scene, seed: int = 0, size: int = STANDARD) -> CameraSetup:
    """Calibrate on a rendered start position of a ``size`` x ``size`` board, as a user
    would before a game (a1 given where the scene put it, as ``--a1`` would)."""
    fit = start_fit(scene, seed, size)
    if fit is None:
        raise BoardNotFound("no board found in the rendered start position")
    return fit.setup


def observations_via_camera(
    observations: Iterable[Observation], scene: Scene | None = None, seed: int = 0,
    habits: bool = False,
) -> list[Observation]:
    """The log the camera path produces when ``observations`` are played in front of it.

    ``habits`` (as ``kaeshi simulate --habits``): the waiting player's hand rests at
    the board's edge, over edge squares or the frame, lifted only around the moves
    played where it lies. The camera is calibrated before the game, with no hand in
    the way, on a board of the size the log's boards show."""
    from dataclasses import replace

    from controller.boardsize import size_of_board_string
    from controller.synth.picture import render_observations

    observations = list(observations)
    first = next((o.board for o in observations if o.board is not None), None)
    size = size_of_board_string(first) if first is not None else STANDARD
    scene = scene or default_scene()
    if habits:
        scene = replace(scene, resting_hand=True)
    reader = calibrate_synthetic(replace(scene, resting_hand=False),
                                 seed, size).reader()
    frames = render_observations(observations, scene, seed)
    out: list[Observation] = []
    for obs in observations:
        if obs.board is None:
            out.append(obs)
            continue
        _, rendered = next(frames)
        out.append(Observation(obs.t, board=reader.read(rendered.image).board))
    return out


def random_game(size: int, seed: int, moves: int | None = None,
                step: float = 0.6) -> list[Observation]:
    """A game of random legal moves on a ``size`` x ``size`` board, as a clock game's
    log: each move's board, then its press ``step`` seconds later, and the next move
    ``step`` after that (a pass is pressed as it comes). ``moves`` stops it early;
    None plays it to its end. For filming games of any size, where no recorded
    games of that size are to hand."""
    import numpy as np

    from controller.position import Position

    rng = np.random.default_rng(seed)
    pos = Position.start(size)
    t = 0.0
    out = [Observation(t, board=pos.board_string())]
    played = 0
    while not pos.is_game_over() and (moves is None or played < moves):
        legal = pos.legal_squares()
        if not legal:
            t += step
            out.append(Observation(t, press=pos.to_move))
            pos = pos.pass_turn()
            continue
        mover = pos.to_move
        pos = pos.play(legal[int(rng.integers(len(legal)))])
        played += 1
        t += step
        out.append(Observation(t, board=pos.board_string()))
        t += step
        out.append(Observation(t, press=mover))
    return out
