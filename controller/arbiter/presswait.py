"""A press is judged against the board as it stood at the press, seen through the
frames taken after it.

A clock press is instant; a camera is not. A player presses 0.15-0.4 s after the
hand leaves the board, while the camera still has to see the finished move: the
frame caught as the hand leaves shows it moving, the watcher waits until a square
read the same for ``stable`` frames, and the arbiter wants a second line of the
new board. At the press the log may hold one lone line of the finished board, or
none. Nobody touches the board in the first moments after a press (the opponent
first has to reach for a disc), so the frames taken just after it show the board
as it stood at the press: the press is held until they are in, then judged with
its own time.

:func:`press_wait` is the one rule: how long after a press the frames it needs
have been taken, from the camera's frame rate and the watcher's ``stable``. The
service, ``kaeshi arbitrate --fps`` and the simulators all compute it here and
hand it to the arbiter (``ArbiterConfig.press_wait``), which holds each press for
that long in the readings' own time (:func:`hold`). A settled source (the
Hall-sensor board) has seen every square settle before it reports it: it does
not wait. Times are the observations' own; nothing here reads a clock.
"""

from __future__ import annotations

from dataclasses import replace

from controller.arbiter.config import ArbiterConfig
from controller.arbiter.readings import StableBoard, frame_masks
from controller.arbiter.state import HeldPress
from controller.squares import Color

#: The most a press is held, in seconds, whatever the frame rate: beyond it a slow
#: camera's press is judged with what it has delivered (and may be judged wrong).
MAX_PRESS_WAIT = 0.5
_EPS = 1e-9


def frames_after_press(stable: int = 2) -> int:
    """Frames the camera must take after a press before it is judged.

    The last frame with the hand may be just before the press: the next one shows
    the squares it left changing (held as moving), ``stable`` more read them the
    same (the watcher's line), and one more repeats the line (the arbiter's second
    reading, which makes a board a fact). ``stable=0`` stands for raw frames with no
    watcher between (the simulator's logs): the next frame is the second reading of
    the finished board, and one more outlasts a one-frame misread of it.
    """
    if stable < 0:
        raise ValueError(f"stable must be 0 (raw frames) or more, not {stable}")
    return 1 + stable + 1


def press_wait(fps: float, stable: int = 2, bound: float = MAX_PRESS_WAIT) -> float:
    """Seconds a press waits for the frames after it: ``frames_after_press`` frame
    periods, at most ``bound``.

    At the watcher's default ``stable=2`` that is 0.4 s at 10 fps, 0.27 s at
    15 fps and 0.13 s at 30 fps; raw frames at 10 fps (the simulator's) wait 0.2 s.
    """
    if not fps > 0:
        raise ValueError(f"fps must be positive, not {fps}")
    if bound < 0:
        raise ValueError(f"the press wait bound must not be negative, not {bound}")
    return min(frames_after_press(stable) / fps, bound)


def held_until(held: HeldPress | None, config: ArbiterConfig) -> float | None:
    """When the held press will be judged (None: no press is held)."""
    if held is None:
        return None
    return held.t + config.press_wait


def hold(t: float, player: Color, stable: StableBoard, last_board: str | None) -> HeldPress:
    """A press held at ``t``, its view started from the readings at the press.

    While a press is held, boards update the readings as ever, and a second set of
    readings, the *press view*, started from those at the press: the board at the
    press. In the view, a frame after the press may confirm what the last board
    before the press read, and settle what it could not read (squares under the
    hand or moving, ``?``); a square it read that reads otherwise after the press
    was changed after it (a fault put right at once, the opponent reaching in) and
    is left out of the view (:func:`see`). The press is judged on the view when it
    is released (:func:`release_before`, :func:`release_reached`): once a reading
    comes from after the wait (before that reading is folded in), once the readings
    reach the end of the wait, on the arbiter's ``elapse`` at or after it, or at the
    end of the input. It keeps its own time in the events and the record; what
    changed after it is then taken in as any later board is.
    """
    return HeldPress(t, player, stable.masks(), replace(stable), last_board)


def see(held: HeldPress, black: int, white: int, shifted: int, known: int, t: float,
        size: int, settled: bool) -> None:
    """Fold a board read while a press is held into the press view."""
    if held.at_press is not None:
        pb, pw, ps, pk = frame_masks(held.at_press, size)
        known &= ~(pk & ((black ^ pb) | (white ^ pw) | (shifted ^ ps)))
    held.view.update(black, white, shifted, known, t, settled)


def release_before(held: HeldPress | None, config: ArbiterConfig, t: float) -> float | None:
    """A reading at ``t`` comes: when the held press is judged first, if its wait
    ended before it (None: it is not)."""
    due = held_until(held, config)
    if due is not None and t > due + _EPS:
        return due
    return None


def release_reached(held: HeldPress | None, config: ArbiterConfig, t: float) -> float | None:
    """The readings have reached ``t``: when the held press is judged, if its wait
    ends by then (None: it is not)."""
    due = held_until(held, config)
    if due is not None and t >= due - _EPS:
        return due
    return None
