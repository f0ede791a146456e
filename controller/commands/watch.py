"""``kaeshi watch``: read the board from a camera or a video and write the observation log."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from controller.vision.geometry import A1_PLACES

if TYPE_CHECKING:
    from controller.vision.setup import CameraSetup


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "watch",
        help="read the board from a camera or video and write the observation log",
        description="Read frames from a camera, a video file or a folder of images, and "
        "write the observation log (JSON Lines) that 'kaeshi arbitrate' judges. The first "
        "line says what wrote the log (the source, its frame rate and --stable), so "
        "'kaeshi arbitrate' holds each press for the frames after it without being told; "
        "then a board line is written whenever the settled board changes; squares under "
        "a hand are ?.",
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


def run(args: argparse.Namespace) -> int:
    from controller.observation import LogHeader
    from controller.vision.calibration_file import load_calibration, refused_note
    from controller.vision.capture import FrameSource, open_source
    from controller.vision.watching.loop import WatchOptions, watch

    if args.stable < 1:
        raise ValueError("--stable must be at least 1")
    cal = load_calibration(args.calibration) if args.calibration else None
    setup = cal.setup if cal is not None else None

    def log(msg: str) -> None:
        print(f"kaeshi watch: {msg}", file=sys.stderr, flush=True)

    if cal is not None and cal.refused:
        log(f"warning: {refused_note(args.calibration)}")

    def source() -> object:
        return open_source(camera=args.camera, video=args.video, images=args.images,
                           picamera=args.picamera, fps=args.fps, on_error=log)

    def header(opened: FrameSource) -> None:
        fps = opened.frame_rate()
        out.write(LogHeader(opened.kind, opened.name, fps, args.stable).to_json() + "\n")
        out.flush()
        if fps is None:
            log(f"{opened.name} does not say its frame rate: judge the log with "
                "'kaeshi arbitrate --fps F'")

    options = WatchOptions(stable=args.stable, keepalive=args.keepalive,
                           max_frames=args.max_frames, give_up_after=args.give_up_after,
                           a1=args.a1)
    out = Path(args.out).open("w", encoding="utf-8") if args.out else sys.stdout
    try:
        written = watch(source, setup, out, options, log,  # type: ignore[arg-type]
                        turn_settled=lambda kept: keep_turn(args.calibration, kept, log),
                        begin=header)
    finally:
        if args.out:
            out.close()
    log(f"{written} observation lines written")
    return 0
