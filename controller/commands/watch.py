"""``kaeshi watch``: read the board from a camera or a video and write the observation log."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from controller.boardsize import SIZES, STANDARD
from controller.vision.places import A1_PLACES

if TYPE_CHECKING:
    from controller.vision.capture import Frame, FrameSource
    from controller.vision.setup import CameraSetup


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Read frames from a camera, a video file or a folder of images, and write the "
        "observation log (JSON Lines) that 'kaeshi arbitrate' judges. The first line says "
        "what wrote the log (the source, its frame rate and --stable), so 'kaeshi "
        "arbitrate' holds each press for the frames after it without being told; then a "
        "board line is written whenever the settled board changes; squares under a hand "
        "are ?."
    )
    src = p.add_mutually_exclusive_group()
    src.add_argument("--camera", type=int, metavar="N", help="camera index (default 0)")
    src.add_argument("--video", metavar="FILE", help="replay a video file")
    src.add_argument("--images", metavar="DIR", help="replay a folder of images (name order)")
    src.add_argument("--picamera", action="store_true", help="the Raspberry Pi camera")
    p.add_argument("--calibration", metavar="FILE",
                   help="camera calibration (default: find the board in the first frames)")
    p.add_argument("--a1", choices=A1_PLACES,
                   help="without a calibration: image corner where a1 is (default top-left)")
    p.add_argument("--size", type=int, choices=SIZES, metavar="N",
                   help="the board's columns and rows: 6, 8 or 10 (default: the "
                   "calibration's, else 8); a calibration of another size is refused")
    p.add_argument("--out", metavar="FILE", help="write the log here instead of stdout")
    p.add_argument("--stable", type=int, default=2, metavar="N",
                   help="frames a square must read the same before it is reported (default 2)")
    p.add_argument("--keepalive", type=float, metavar="S",
                   help="repeat the board line at least every S seconds")
    p.add_argument("--fps", type=float, default=10.0,
                   help="frame rate assumed for --images (default 10), written in the "
                   "log's first line as a video's own rate is")
    p.add_argument("--max-frames", type=int, metavar="N", help="stop after N frames")
    p.add_argument("--give-up-after", type=float, metavar="S",
                   help="stop when a camera has delivered nothing for S seconds "
                   "(default: keep retrying)")
    p.set_defaults(func=run)


def keep_turn(path: str, setup: CameraSetup, log: Callable[[str], None]) -> None:
    """Save the turn the game settled in the calibration file; a file that cannot be
    written is reported, and watching goes on with the settled turn."""
    from controller.vision.calibration_file import CalibrationError, save_settled_turn

    try:
        save_settled_turn(path, setup)
    except CalibrationError as exc:
        log(f"the settled turn could not be kept: {exc}")
        return
    log(f"the settled turn was kept in {path}")


class FrameTimes:
    """The times of the frames a live camera delivered, across its reconnections: a
    driver may report 30 frames a second and deliver 10 in a dim room, and the log's
    header would then make every press wait too short."""

    #: Frames needed before the delivered rate is compared with the stated one.
    ENOUGH = 30
    #: How far the rates may differ (a share of the stated one) before it is said.
    TOLERANCE = 0.2

    def __init__(self) -> None:
        self.intervals = 0  # between two frames of one connection
        self.span = 0.0  # seconds those intervals add up to

    def timed(self, source: FrameSource) -> FrameSource:
        """``source``, its frames noted as they pass (a file's are not: their times are
        the file's, not a clock's). A reconnected camera starts its times anew, so
        only the intervals within a connection count."""
        if not source.live:
            return source
        meter = self
        frames = source.frames

        def noted() -> Iterator[Frame]:
            last: float | None = None
            for frame in frames():
                if last is not None and frame.t > last:
                    meter.intervals += 1
                    meter.span += frame.t - last
                last = frame.t
                yield frame

        source.frames = noted  # type: ignore[method-assign]
        return source

    def delivered(self) -> float | None:
        """Frames a second delivered, once there were enough to tell."""
        if self.intervals + 1 < self.ENOUGH or self.span <= 0:
            return None
        return self.intervals / self.span

    def note(self, stated: float | None) -> str | None:
        """What to say when the delivered rate is not the one in the log's header."""
        rate = self.delivered()
        if rate is None or stated is None or abs(rate - stated) <= self.TOLERANCE * stated:
            return None
        return (f"the camera delivered {rate:.1f} frames a second, not the {stated:g} its "
                f"driver reported and the log's first line says: judge the log with "
                f"'kaeshi arbitrate --fps {rate:.0f}'")


def run(args: argparse.Namespace) -> int:
    from controller.observation import LogHeader
    from controller.vision.calibration_file import (
        check_board_size,
        load_calibration,
        refused_note,
    )
    from controller.vision.capture import open_source
    from controller.vision.watching.loop import WatchOptions, watch

    if args.stable < 1:
        raise ValueError("--stable must be at least 1")
    cal = load_calibration(args.calibration) if args.calibration else None
    setup = cal.setup if cal is not None else None
    size = args.size or (setup.size if setup is not None else STANDARD)
    if setup is not None:
        check_board_size(args.calibration, setup.size, size)

    def log(msg: str) -> None:
        print(f"kaeshi watch: {msg}", file=sys.stderr, flush=True)

    if cal is not None and cal.refused:
        log(f"warning: {refused_note(args.calibration)}")

    times = FrameTimes()
    stated: list[float | None] = []

    def source() -> object:
        return times.timed(open_source(camera=args.camera, video=args.video,
                                       images=args.images, picamera=args.picamera,
                                       fps=args.fps, on_error=log))

    def header(opened: FrameSource) -> None:
        fps = opened.frame_rate()
        stated.append(fps)
        out.write(LogHeader(opened.kind, opened.name, fps, args.stable).to_json() + "\n")
        out.flush()
        if fps is None:
            log(f"{opened.name} does not say its frame rate: judge the log with "
                "'kaeshi arbitrate --fps F'")

    options = WatchOptions(stable=args.stable, keepalive=args.keepalive,
                           max_frames=args.max_frames, give_up_after=args.give_up_after,
                           a1=args.a1, size=size)
    out = Path(args.out).open("w", encoding="utf-8") if args.out else sys.stdout
    try:
        written = watch(source, setup, out, options, log,  # type: ignore[arg-type]
                        turn_settled=lambda kept: keep_turn(args.calibration, kept, log),
                        begin=header)
    finally:
        if args.out:
            out.close()
        note = times.note(stated[0] if stated else None)
        if note is not None:
            log(f"warning: {note}")
    log(f"{written} observation lines written")
    return 0
