"""Synthetic camera images of an Othello board, each with exact ground truth.

The renderer builds a small 3-D scene in board units (see :mod:`controller.synth.camera`): a table,
the board with its frame and thickness, discs as short two-coloured cylinders, clutter
beside the board and hands over it, then photographs it with a pinhole camera and
spoils the picture the way real cameras do (dim and uneven light, shadows, glare,
blur, noise, JPEG). Because every object is placed by the renderer, the truth that
comes with each image (board string, corners, homography, hidden and shifted squares)
is exact, which is what the board finder and square classifier are tested against.

Usage::

    r = render(start_board, random_scene(np.random.default_rng(1), hard=True), seed=1)
    r.image, r.board, r.corners, r.homography, r.occluded, r.shift
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, fields, replace
from pathlib import Path

import numpy as np

from controller.boardsize import STANDARD, size_of_board_string
from controller.errors import KaeshiError
from controller.observation import Observation
from controller.position import START_BOARD
from controller.squares import OBSERVATION_ALPHABET, validate_board_string
from controller.synth.board import BOARD_THICKNESS, draw_board, table_top
from controller.synth.camera import board_outline
from controller.synth.clutter import draw_clutter
from controller.synth.discs import (
    DISC_HEIGHT,
    DISC_RADIUS,
    SHIFT_RANGE,
    disc_offsets,
    disc_shadows,
    draw_discs,
)
from controller.synth.hand import (
    SKIN_TONES,
    SLEEVE_COLOURS,
    hand_mask,
    paint_hand,
)
from controller.synth.light import apply_bands, apply_lighting, barrel_points, degrade
from controller.synth.resting import resting_hand, resting_reach, resting_schedule
from controller.synth.scene import HAND_MODES, Scene, _camera, random_scene
from controller.vision.cv import cv2

__all__ = [
    "DISC_HEIGHT",
    "DISC_RADIUS",
    "HAND_MODES",
    "SHIFT_RANGE",
    "START_BOARD",
    "Rendered",
    "Scene",
    "main",
    "random_scene",
    "render",
    "render_observations",
    "write_dataset",
    "write_video",
]


@dataclass
class Rendered:
    """One synthetic photograph and its ground truth."""

    image: np.ndarray  # HxWx3 uint8 BGR
    board: str  # truth over -XO?xo: '?' hidden by a hand, x/o shifted discs
    corners: np.ndarray  # (4,2) float32: a1, h1, h8, a8 outer corners of the playing area
    homography: np.ndarray  # 3x3: board plane (square units, a1 corner at 0,0) -> pixels
    occluded: np.ndarray  # a bool a square, True where the truth says '?'
    shift: np.ndarray  # (squares, 2) disc offset from the square centre, square units
    coverage: np.ndarray | None = None  # a float a square: share of it the hand covers
    hand_mask: np.ndarray | None = None  # HxW uint8: pixels showing the hand or arm (255)

    def square_centre(self, index: int) -> np.ndarray:
        """Pixel position of a square's centre on the board plane."""
        r, c = divmod(index, size_of_board_string(self.board))
        p = self.homography @ np.array([c + 0.5, r + 0.5, 1.0])
        return p[:2] / p[2]


# --------------------------------------------------------------------------- render


def render(board: str, scene: Scene, seed: int = 0,
           shifts: dict[int, tuple[float, float]] | None = None) -> Rendered:
    """Photograph ``board`` (over -XO?xo) in ``scene``; the same seed gives the same image.

    '?' squares get a hand over them (what lies under it is drawn at random);
    'x'/'o' discs stand 0.25-0.4 of a square off centre (``shifts`` overrides the
    offset of any square, in square units). With ``scene.hand`` and no '?' in the
    board, a hand reaches in at random and the truth marks what it hides.
    """
    return _render(board, scene, seed, seed, shifts, None)


def _render(board: str, scene: Scene, static_seed: int, frame_seed: int,
            shifts: dict[int, tuple[float, float]] | None,
            under: str | None) -> Rendered:
    n = size_of_board_string(board)
    board = validate_board_string(board, n, OBSERVATION_ALPHABET)
    if static_seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {static_seed}")
    srng = np.random.default_rng([static_seed, 1])  # the scene: same for every frame
    frng = np.random.default_rng([static_seed, frame_seed, 2])  # this frame only
    cam = _camera(scene, n)
    h0 = cam.plane_homography(0.0)
    corners = cam.project(board_outline(n))
    edges = np.linalg.norm(np.roll(corners, -1, axis=0) - corners, axis=1)
    px = float(edges.max() / n)  # pixels per square on the nearest edge

    la = srng.uniform(0, 2 * np.pi)
    light_dir = np.array([math.cos(la), math.sin(la)])  # direction shadows fall
    skin = SKIN_TONES[srng.integers(len(SKIN_TONES))] * srng.uniform(0.9, 1.1)
    sleeve = SLEEVE_COLOURS[srng.integers(len(SLEEVE_COLOURS))] * srng.uniform(0.8, 1.2)

    # Each part of the scene draws from its own stream, so switching one option
    # (say, clutter) leaves everything else in the picture exactly as it was.
    canvas = table_top(static_seed, scene.height, scene.width, scene.table)
    if scene.clutter:
        draw_clutter(canvas, cam, np.random.default_rng([static_seed, 11]), light_dir, px,
                     BOARD_THICKNESS, scene.frame_style, n)
    look = (scene.line_weight, scene.line_light, scene.felt_tone, scene.felt_grey)
    draw_board(canvas, cam, scene.board_style, scene.frame_style, static_seed, light_dir, px,
               look, n)

    hidden = np.array([ch == "?" for ch in board])
    # What stands on hidden squares: the caller's guess (a video's last known state)
    # or something random; it only shows as a sliver past the hand, if at all.
    content = list(board)
    for i in np.flatnonzero(hidden):
        if under is not None and under[i] != "?":
            content[i] = under[i]
        else:
            content[i] = str(frng.choice(["-", "-", "X", "O"]))
    content_s = "".join(content)
    offsets = disc_offsets(content_s, static_seed, scene.jitter, shifts)
    offsets[[ch == "-" for ch in content_s]] = 0.0

    disc_shadows(canvas, cam, content_s, offsets, light_dir, px)
    sheen_rng = np.random.default_rng([static_seed, 12])
    sheen = (scene.sheen, sheen_rng.uniform(0, n, 2), float(sheen_rng.uniform(1.5, 4.0)))
    draw_discs(canvas, cam, content_s, offsets, light_dir, scene.glare, sheen)

    coverage = hand_pixels = None
    mid = n / 2
    ends = np.array([[mid, mid, 0.0], [mid + light_dir[0], mid + light_dir[1], 0.0]])
    shadow_px = cam.project(ends)
    if scene.resting_hand:  # lies on the frame or table, under a hand that reaches in
        rest, rest_hidden, rest_skin, rest_sleeve = resting_hand(cam, scene.width, scene.height,
                                                                 static_seed, n)
        sv = (shadow_px[1] - shadow_px[0]) * 0.12  # close to the surface: a short shadow
        paint_hand(canvas, rest, frng, rest_skin, rest_sleeve, px, (float(sv[0]), float(sv[1])))
        coverage, hand_pixels = rest.coverage(), rest.mask
    if hidden.any() or scene.hand:
        exact = bool(hidden.any()) and scene.hand_mode == "exact"
        painter, hidden = hand_mask(hidden, cam, scene.width, scene.height, frng, exact=exact,
                                    free=scene.hand and not hidden.any(), px_per_square=px)
        sv = (shadow_px[1] - shadow_px[0]) * 0.35
        paint_hand(canvas, painter, frng, skin, sleeve, px, (float(sv[0]), float(sv[1])))
        coverage = painter.coverage() if coverage is None else np.maximum(coverage,
                                                                          painter.coverage())
        hand_pixels = painter.mask if hand_pixels is None else np.maximum(hand_pixels,
                                                                          painter.mask)
    if scene.resting_hand:
        hidden = hidden | rest_hidden

    apply_lighting(canvas, scene, np.random.default_rng([static_seed, 3]), cam, px,
                   np.random.default_rng([static_seed, 4]), n)
    if scene.bands:
        apply_bands(canvas, scene.bands, np.random.default_rng([static_seed, 13]))
    image = degrade(canvas, scene, frame_seed * 7919 + static_seed)

    if scene.lens:
        corners = barrel_points(corners, scene.lens, scene.width, scene.height)
    truth = "".join("?" if hidden[i] else board[i] for i in range(n * n))
    shift = np.where(np.array([ch in "-?" for ch in truth])[:, None], 0.0, offsets)
    return Rendered(image=image, board=truth, corners=corners.astype(np.float32),
                    homography=h0, occluded=hidden.copy(), shift=shift, coverage=coverage,
                    hand_mask=hand_pixels)


def render_observations(observations: Iterable[Observation], scene: Scene,
                        seed: int = 0) -> Iterator[tuple[Observation, Rendered]]:
    """The game video: one frame per board observation (clock presses are skipped).

    The camera, board, table, clutter and light stay fixed; noise and the hand's pose
    change from frame to frame. Hands appear exactly where an observation has '?'
    (``scene.hand`` adds no extra hands here), and what they hide is drawn as the
    square's last known state, as it would be while a player turns discs. A
    ``scene.resting_hand`` lies still at its edge, lifted only around the moves
    played where it lies (:func:`~controller.synth.resting.resting_schedule`).
    """
    observations = list(observations)
    first = next((o.board for o in observations if o.board is not None), None)
    rests = resting_schedule(observations, *resting_reach(scene, seed,
                                                          size_of_board_string(first))) \
        if scene.resting_hand and first is not None else None
    known: list[str] | None = None
    video_scene = replace(scene, hand=False)
    frame = 0
    for obs in observations:
        if obs.board is None:
            continue
        n = size_of_board_string(obs.board)
        board = validate_board_string(obs.board, n, OBSERVATION_ALPHABET)
        known = known or ["-"] * (n * n)
        under = "".join(known)
        shot = video_scene if rests is None else replace(video_scene,
                                                         resting_hand=rests[frame])
        frame += 1
        yield obs, _render(board, shot, seed, seed * 100_003 + frame, None, under)
        for i, ch in enumerate(board):
            if ch != "?":
                known[i] = ch.upper() if ch in "xo" else ch


def render_hand_frame(board: str, under: str, scene: Scene, seed: int, frame: int,
                      resting: bool = True) -> Rendered:
    """One more frame of a video state with a hand over the board (``?`` squares):
    the scene of ``seed`` as :func:`render_observations` draws it, with the hand in
    a pose of its own (``frame`` numbers it), so a hand moves while it works.
    ``under`` is what lies under the hand (the state last seen there); ``resting``
    False lifts the scene's resting hand for this frame."""
    shot = replace(scene, hand=False, resting_hand=scene.resting_hand and resting)
    return _render(board, shot, seed, seed * 100_003 + 1_000_000 + frame, None, under)


def write_video(frames: Iterable[np.ndarray | Rendered], path: str | Path,
                fps: float = 10.0) -> int:
    """Write frames (images or renders) to a video file; returns the number written.

    ``.avi`` uses Motion-JPEG, which every OpenCV build can write; ``.mp4`` asks for
    mp4v, which most builds have.
    """
    p = Path(path)
    fourcc = cv2.VideoWriter.fourcc(*("mp4v" if p.suffix.lower() == ".mp4" else "MJPG"))
    writer = None
    count = 0
    try:
        for f in frames:
            img = f.image if isinstance(f, Rendered) else f
            if writer is None:
                h, w = img.shape[:2]
                writer = cv2.VideoWriter(str(p), fourcc, float(fps), (w, h))
                if not writer.isOpened():
                    raise OSError(f"{p}: cannot open a video writer for this file type")
            writer.write(np.ascontiguousarray(img))
            count += 1
    finally:
        if writer is not None:
            writer.release()
    return count


def write_dataset(directory: str | Path, count: int, seed: int = 0, hard: bool = False,
                  overrides: dict[str, object] | None = None) -> int:
    """Write ``count`` pictures of random positions in random scenes, and their truth.

    ``truth.jsonl`` holds one line per picture: file, board, corners, scene.
    Positions are random discs, a few of them shifted, from nearly empty boards to
    full ones; hands appear as the scenes say.
    """
    if count < 1:
        raise ValueError(f"count must be at least 1, not {count}")
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng([seed, 2024])
    lines = []
    for k in range(count):
        scene = random_scene(rng, hard=hard, **(overrides or {}))
        fill = rng.uniform(0.1, 1.0)
        p = [1 - fill, fill * 0.47, fill * 0.47, fill * 0.03, fill * 0.03]
        board = "".join(rng.choice(list("-XOxo"), STANDARD * STANDARD, p=p))
        r = render(board, scene, seed=seed * 100_000 + k)
        name = f"{k:05d}.png"
        ok, buf = cv2.imencode(".png", r.image)
        if not ok:  # pragma: no cover - PNG encoding does not fail on valid images
            raise OSError(f"{out / name}: could not encode")
        (out / name).write_bytes(buf.tobytes())
        scene_d = {f.name: getattr(scene, f.name) for f in fields(Scene)}
        lines.append(json.dumps({"file": name, "board": r.board,
                                 "corners": np.round(r.corners.astype(float), 2).tolist(),
                                 "scene": scene_d}))
    (out / "truth.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return count


# --------------------------------------------------------------------------- CLI


def _parse_board(text: str) -> str:
    """A board from the command line; ``.`` may stand for an empty square, since a
    string starting with ``-`` would read as an option."""
    if text == "start":
        return START_BOARD
    board = "".join(text.split()).replace(".", "-")
    return validate_board_string(board, size_of_board_string(board), OBSERVATION_ALPHABET)


def main(argv: list[str] | None = None) -> int:
    """``python -m controller.synth``: render one image, or a game video."""
    ap = argparse.ArgumentParser(prog="python -m controller.synth",
                                 description="Render synthetic camera images of a board.")
    ap.add_argument("--board", default="start",
                    help="64 characters over -XO?xo (or . for -), a1..h8; default: start position")
    ap.add_argument("--observations", type=Path,
                    help="render this observation log (JSON Lines) as a video instead")
    ap.add_argument("--out", type=Path, required=True,
                    help="output image (.png/.jpg) or, with --observations, video (.avi/.mp4)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hard", action="store_true", help="draw a hard random scene")
    ap.add_argument("--random", action="store_true", help="draw a random scene")
    ap.add_argument("--fps", type=float, default=4.0)
    ap.add_argument("--truth", action="store_true",
                    help="also print the truth board and the corners")
    ap.add_argument("--count", type=int, default=0,
                    help="write this many random pictures (random positions, scenes from "
                         "--seed, --hard) into the directory --out, with truth.jsonl")
    for f in fields(Scene):
        if f.name in ("offset",):
            continue
        kind = {"int": int, "float": float, "str": str}.get(str(f.type))
        opt = "--" + f.name.replace("_", "-")
        if str(f.type) == "bool":
            ap.add_argument(opt, action="store_true", default=None)
        elif kind is not None:
            ap.add_argument(opt, type=kind, default=None)
        elif f.name == "jpeg_quality":
            ap.add_argument(opt, type=int, default=None)
    args = ap.parse_args(argv)
    overrides = {f.name: getattr(args, f.name) for f in fields(Scene)
                 if getattr(args, f.name, None) is not None}
    try:
        if args.random or args.hard:
            scene = random_scene(np.random.default_rng(args.seed), hard=args.hard, **overrides)
        else:
            scene = Scene(**overrides)
        if args.count:
            n = write_dataset(args.out, args.count, args.seed, args.hard, overrides)
            print(f"{args.out}: {n} pictures and truth.jsonl")
            return 0
        if args.observations:
            from controller.observation import read_observations

            with open(args.observations, encoding="utf-8") as fh:
                obs = list(read_observations(fh))
            n = write_video((r for _, r in render_observations(obs, scene, args.seed)),
                            args.out, args.fps)
            print(f"{args.out}: {n} frames")
            return 0
        r = render(_parse_board(args.board), scene, args.seed)
        ok, buf = cv2.imencode(args.out.suffix or ".png", r.image)
        if not ok:
            raise ValueError(f"{args.out}: unsupported image type")
        args.out.write_bytes(buf.tobytes())
        if args.truth:
            print(r.board)
            print(" ".join(f"{x:.1f},{y:.1f}" for x, y in r.corners))
        return 0
    except (KaeshiError, ValueError, OSError) as exc:
        print(f"synth: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
