"""A rendered game video played to the ``watch`` loop, for end-to-end checks.

An observation log says what a board showed and when; ``GameVideo`` films it: the
frames a camera at a fixed rate would have delivered (rendered by ``synth``, hands
where the log has ``?``), and ``watch_game_video`` runs them through the same loop
``kaeshi watch`` runs. The camera never sees the clock, so the log's presses are put
back beside the camera's lines by time, as a clock beside the camera adds them.
Arbitrating the result and the original log shows whether the camera path changes
what the arbiter says.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING

from controller.boardsize import STANDARD, size_of_board_string
from controller.observation import Observation, read_observations
from controller.vision.capture import Frame, FrameSource
from controller.vision.setup import CameraSetup
from controller.vision.watching.loop import WatchOptions, watch

if TYPE_CHECKING:
    from controller.synth.scene import Scene


class GameVideo(FrameSource):
    """The board observations of a log filmed in one fixed scene at ``fps``.

    The camera runs from the first board observation to the last, each frame showing
    the latest state the log reports, so a state lasts as long on film as in the log
    (one frame per observation instead would give a camera of the log's uneven rate,
    a few frames a second, that the watcher's debouncing was never meant for). A state
    shorter than a frame may never be seen, as with a real camera.
    """

    name = "rendered game video"
    live = False

    def __init__(self, observations: Iterable[Observation], scene: Scene, fps: float,
                 seed: int = 0, tail: float = 0.0, moving_hands: bool = False):
        """``tail``: seconds the camera goes on filming after the log's last
        observation (a press included), the board lying as the log left it.
        ``moving_hands``: a hand over the board takes a new pose (fingers, arm and
        shadow) in every frame, as a working hand does, rather than in each state."""
        self.moving_hands = moving_hands
        if not fps > 0:
            raise ValueError(f"fps must be positive, not {fps}")
        if tail < 0:
            raise ValueError(f"tail must not be negative, not {tail}")
        self.tail = tail
        self.observations = list(observations)
        self.scene = scene
        self.seed = seed
        self.fps = fps

    def frames(self) -> Iterator[Frame]:
        from controller.synth.picture import render_hand_frame, render_observations
        from controller.synth.resting import resting_reach, resting_schedule

        rendered = render_observations(self.observations, self.scene,
                                       self.seed)
        boards = [o for o in self.observations if o.board is not None]
        size = size_of_board_string(boards[0].board or "") if boards else STANDARD
        rests = (resting_schedule(boards, *resting_reach(self.scene, self.seed, size))
                 if getattr(self.scene, "resting_hand", False) else [True] * len(boards))
        shown = 0  # index of the board observation on film
        first = next(rendered, None)
        if first is None:
            return
        (start, current), following = first, next(rendered, None)
        end = max(o.t for o in self.observations if o.board is not None)
        if self.tail:
            end = max(o.t for o in self.observations) + self.tail
        state = start.board or ""
        under = before = "-" * len(state)
        k = fresh = 0
        while (t := start.t + k / self.fps) <= end:
            while following is not None and following[0].t <= t:
                before = _seen(before, state)
                (obs, current), following = following, next(rendered, None)
                state, under, fresh = obs.board or "", before, 0
                shown += 1
            image = current.image
            if self.moving_hands and "?" in state and fresh:
                image = render_hand_frame(state, under, self.scene,
                                          self.seed, k, rests[shown]).image
            yield Frame(t, image)
            fresh += 1
            k += 1


def _seen(known: str, board: str) -> str:
    """What lies on each square once ``board`` was seen (a hand's squares keep theirs)."""
    return "".join(k if b == "?" else b.upper() for k, b in zip(known, board, strict=True))


def watch_game_video(
    observations: Iterable[Observation],
    setup: CameraSetup,
    scene: Scene,
    fps: float,
    seed: int = 0,
    stable: int = 2,
    keepalive: float | None = None,
    log: Callable[[str], None] | None = None,
    tail: float = 0.0,
    moving_hands: bool = False,
) -> list[Observation]:
    """The log ``watch`` writes for the rendered video, with the original presses merged in.

    ``setup`` is the calibration the watcher reads with (as ``--calibration``);
    ``fps`` films the log at that rate (see :class:`GameVideo`); ``stable`` and
    ``keepalive`` are ``watch``'s options of those names; ``tail`` films that long
    past the log's end and ``moving_hands`` moves hands in every frame (see
    :class:`GameVideo`). The watch loop's messages go to
    ``log`` (dropped by default).
    """
    observations = list(observations)
    out = io.StringIO()
    watch(lambda: GameVideo(observations, scene, fps, seed, tail, moving_hands), setup, out,
          WatchOptions(stable=stable, keepalive=keepalive), log or (lambda _msg: None))
    camera = list(read_observations(out.getvalue().splitlines(), setup.size))
    presses = [o for o in observations if o.board is None]
    # stable sort: a camera line and a press at the same moment keep the frame first,
    # since the frame was taken before the press that follows it was seen
    return sorted(camera + presses, key=lambda o: o.t)
