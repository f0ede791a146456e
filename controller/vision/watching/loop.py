"""The ``watch`` loop: frames in, observation lines out, whatever the camera does.

A camera that is missing or unplugged mid-game is reported and retried; frames of
the wrong size or with no board in them are reported and skipped. Nothing is ever
written for a frame that could not be read, so a glitch never becomes a move.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

from controller.boardsize import STANDARD
from controller.vision.capture import CaptureError, FrameSource
from controller.vision.finding.finder import BoardNotFound
from controller.vision.pipeline import auto_setup
from controller.vision.setup import CameraSetup
from controller.vision.watching.watcher import BoardWatcher


@dataclass
class WatchOptions:
    stable: int = 2
    keepalive: float | None = None
    max_frames: int | None = None
    give_up_after: float | None = None  # seconds without frames; None: keep trying
    retry_every: float = 1.0
    a1: str | None = None  # for a set-up found without a calibration
    size: int = STANDARD  # the board's columns and rows, for a set-up found without one


def watch(
    open_source: Callable[[], FrameSource],
    setup: CameraSetup | None,
    out: IO[str],
    options: WatchOptions,
    log: Callable[[str], None],
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
    turn_settled: Callable[[CameraSetup], None] | None = None,
    begin: Callable[[FrameSource], None] | None = None,
) -> int:
    """Run until the source ends (files), ``max_frames``, or ``give_up_after``.

    ``begin`` hears, once, the source that delivered the first frame, before any line
    is written: by then the source knows its frame rate, which ``kaeshi watch`` puts
    in the log's header. ``turn_settled`` hears, once, the set-up whose quarter turn
    the game settled (a calibration that could not: see
    ``CameraSetup.turn_unsettled``), to keep it.
    Returns the number of observation lines written.
    """
    watcher: BoardWatcher | None = BoardWatcher.on_setup(
        setup, options.stable, options.keepalive
    ) if setup else None
    written = 0
    frames = 0
    last_ok = clock()
    reported_size = False
    looking_reported = False
    while True:
        source = None
        try:
            source = open_source()
            for frame in source.frames():
                last_ok = clock()
                frames += 1
                if frames == 1 and begin is not None:
                    begin(source)
                if watcher is None:
                    try:
                        setup = auto_setup(frame.image, a1=options.a1, n=options.size)
                    except BoardNotFound as exc:
                        if not looking_reported:
                            log(f"looking for the board: {exc}")
                            looking_reported = True
                        continue
                    log("board found; reading (no calibration: a1 is "
                        f"{options.a1 or 'top-left'} as seen by the camera)")
                    watcher = BoardWatcher(setup.reader(), options.stable, options.keepalive)
                w, h = frame.image.shape[1], frame.image.shape[0]
                if (w, h) != watcher.reader.image_size:
                    if not reported_size:
                        cw, ch = watcher.reader.image_size
                        log(f"frames are {w}x{h} but the calibration is for {cw}x{ch}; "
                            "skipping them (calibrate again at this size)")
                        reported_size = True
                    continue
                before = len(watcher.stats.messages)
                obs = watcher.feed(frame.t, frame.image)
                for msg in watcher.stats.messages[before:]:
                    log(msg)
                if watcher.turn_settled and setup is not None and setup.turn_unsettled:
                    setup = watcher.settled_setup(setup)
                    if turn_settled is not None:
                        turn_settled(setup)
                for line in [*watcher.take_late(), *([obs] if obs is not None else [])]:
                    out.write(line.to_json() + "\n")
                    out.flush()
                    written += 1
                if options.max_frames is not None and frames >= options.max_frames:
                    return written
            return written  # a file or folder came to its end
        except CaptureError as exc:
            if source is None or not source.live:
                if frames == 0:
                    raise  # nothing to watch at all: the caller reports it
                log(str(exc))
                return written
            log(str(exc))
            waited = clock() - last_ok
            if options.give_up_after is not None and waited >= options.give_up_after:
                log(f"giving up after {waited:.0f} s without frames")
                raise
            log(f"retrying in {options.retry_every:g} s")
            sleep(options.retry_every)
        finally:
            if source is not None:
                source.close()
