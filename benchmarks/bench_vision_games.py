"""Whole games through the camera, end to end, with presses as prompt as people's.

Clock games of the independent arbiter development set (``arbiter-dev``) are given
presses 0.15-0.4 s after the board last changed (``prompt_presses``), filmed whole
by the project's renderer (small frames, 320x240; a clean and a hard scene; hands
taking a new pose in every frame; each game its own players' skin and sleeves), read by
the ``watch`` loop (``--stable 2``, as ``kaeshi watch`` runs), the presses merged in
by time, and judged by ``kaeshi arbitrate --mode tournament --fps F``: each press
waits for the frames taken after it. The development set's own checker scores the
events (games exact, recall, precision, false flags); the same logs judged at each
press (no ``--fps``) show what the wait is for. The per-press delay is the time from
a press to its judgement in the readings' time (the wait, cut short by a following
press or the end of the input). ``KAESHI_BENCH_CAMERA_GAMES`` sets how many games
(default 4), ``KAESHI_BENCH_CAMERA_FPS`` the frame rates (default ``10,15,30``),
``KAESHI_BENCH_CAMERA_SCENES`` the scenes (default all: ``clean``, ``hard``,
``hard, small board`` as ``small``, and ``hard, a hand resting`` at the board's edge
as ``rest``, at the first rate only unless the rates are set).

The resting hand is also filmed over games played without a clock
(``KAESHI_BENCH_CAMERA_NOCLOCK`` games, default 4, at the first rate), laid in every
game by seed 1 over d8 and e8 (the clock rows' seeds lay it on the frame only in
three games of four): each move is judged when the next one begins, so besides the
checker's score the row counts the judgements the camera path holds back, made only
after the original log's next judgement, and how much later than on the original
log each judgement comes.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path

from controller.arbiter import Arbiter, ArbiterConfig, arbitrate
from controller.arbiter.presswait import press_wait
from controller.events import Event
from controller.observation import Observation, read_observations
from controller.simulator.prompt import prompt_presses
from controller.synth.gamevideo import watch_game_video
from controller.synth.replay import calibrate_synthetic, default_scene

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KAESHI_SHARED", ROOT.parent / "shared"))
DEV = SHARED / "data" / "arbiter-dev"
CHECK = SHARED / "tools" / "check_arbiter.py"
TAIL = 1.0  # seconds the camera films on after the last press
REST_SEED = 1  # lays the resting hand over d8 and e8 in the games without a clock


def _kaeshi() -> str | None:
    local = Path(sys.executable).with_name("kaeshi")
    return str(local) if local.is_file() else shutil.which("kaeshi")


def _scenes() -> dict[str, tuple[str, object]]:
    """Scenes by the name ``KAESHI_BENCH_CAMERA_SCENES`` picks them by: (label, scene)."""
    clean = replace(default_scene(), width=320, height=240)
    hard = replace(clean, tilt_deg=28.0, rotation_deg=-5.0, view_from_deg=25.0,
                   frame_style="wood", table="cloth", warmth=0.4, clutter=True)
    # the board about 145 px across, squares about 18 px: a camera far from the table
    small = replace(hard, board_fraction=0.6)
    # the waiting player's hand lying at the edge (each game's seed lays it: over edge
    # squares or only the frame), lifted around moves played where it lies
    rest = replace(hard, resting_hand=True)
    return {"clean": ("clean", clean), "hard": ("hard", hard),
            "small": ("hard, small board", small), "rest": ("hard, a hand resting", rest)}


def _clock_games(n: int, clock: bool = True) -> list[Path]:
    """The first ``n`` games with faults of the development set, with a clock or without."""
    games = []
    for path in sorted(DEV.glob("*.obs.jsonl")):
        meta = json.loads(path.with_name(path.name.replace(".obs.jsonl", ".meta.json"))
                          .read_text(encoding="utf-8"))
        if meta["clock"] is clock and meta["injections"]:
            games.append(path)
    return games[:n]


def _delays(log: list[Observation], wait: float) -> list[float]:
    """Seconds from each press to its judgement, in the readings' time."""
    arbiter = Arbiter(ArbiterConfig(press_wait=wait))
    out: list[float] = []
    for obs in log:
        due = arbiter.held_until()
        held = arbiter.state.held
        pressed = held.t if held is not None else None
        arbiter.feed(obs)
        if due is not None and pressed is not None and arbiter.held_until() != due:
            out.append(min(due, obs.t) - pressed)
    due, held = arbiter.held_until(), arbiter.state.held
    if due is not None and held is not None:
        out.append(min(due, log[-1].t) - held.t)
    return out


def _score(folder: Path, kaeshi: str, args: str) -> str:
    proc = subprocess.run(
        [sys.executable, str(CHECK), str(folder), "--cmd", f"{kaeshi} arbitrate {args}".strip(),
         "--mode", "tournament", "--jobs", "1", "--show", "0"],
        capture_output=True, text=True, check=False)
    lines = proc.stdout.strip().splitlines()
    return lines[-1] if lines else f"checker failed: {proc.stderr.strip()[-200:]}"


def _held_back(pure: list[Event], camera: list[Event]) -> tuple[int, list[float]]:
    """Judgements of ``camera`` made after the next judgement of ``pure`` (a move held
    back until another began), and how much later than in ``pure`` each one comes.
    Only for event logs that agree but for the times."""
    times = sorted({e.t for e in pure}) + [float("inf")]
    after = {t: times[k + 1] for k, t in enumerate(times[:-1])}
    held = sum(c.t > after[p.t] for p, c in zip(pure, camera, strict=True))
    return held, [c.t - p.t for p, c in zip(pure, camera, strict=True)]


def _without_clock(scene: object, setup: object, fps: float, kaeshi: str) -> None:
    """The resting hand over games without a clock: the checker's score, and when
    each move is judged compared with the original log."""
    games = _clock_games(int(os.environ.get("KAESHI_BENCH_CAMERA_NOCLOCK", "4")), clock=False)
    if not games:
        return
    held = exact = 0
    late: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for path in games:
            with path.open(encoding="utf-8") as f:
                log = list(read_observations(f))
            camera = watch_game_video(log, setup, scene, fps, seed=REST_SEED,  # type: ignore[arg-type]
                                      tail=TAIL, moving_hands=True)
            out = folder / path.name
            out.write_text("".join(o.to_json() + "\n" for o in camera), encoding="utf-8")
            expected = path.name.replace(".obs.jsonl", ".expected.jsonl")
            shutil.copy(path.with_name(expected), folder / expected)
            pure, seen = arbitrate(log), arbitrate(camera)
            if [e.to_dict() | {"t": 0} for e in pure] == [e.to_dict() | {"t": 0} for e in seen]:
                exact += 1
                n, lag = _held_back(pure, seen)
                held += n
                late += lag
        score = _score(folder, kaeshi, "")
    late.sort()
    names = ", ".join(p.name[:4] for p in games)
    print(f"   hard, a hand resting, no clock ({names}), {fps:g} fps: {score}", flush=True)
    if late:
        print(f"      {exact} of {len(games)} event logs as the original's but for the times: "
              f"{held} judgements held back past the original's next; later than the "
              f"original by median {statistics.median(late):.2f} s, p99 "
              f"{late[min(len(late) - 1, int(0.99 * len(late)))]:.2f} s, "
              f"max {late[-1]:.2f} s ({len(late)} events)", flush=True)


def main() -> None:
    kaeshi = _kaeshi()
    if not (DEV.is_dir() and CHECK.is_file()) or kaeshi is None:
        print(f"   whole camera games: skipped ({DEV} or {CHECK} or kaeshi not found)")
        return
    games = _clock_games(int(os.environ.get("KAESHI_BENCH_CAMERA_GAMES", "4")))
    rates = [float(x) for x in os.environ.get("KAESHI_BENCH_CAMERA_FPS", "10,15,30").split(",")
             if x.strip()]
    names = ", ".join(p.name[:4] for p in games)
    print(f"   {len(games)} whole clock games of arbiter-dev ({names}),"
          " presses 0.15-0.4 s after the last change, 320x240 frames", flush=True)
    wanted = os.environ.get("KAESHI_BENCH_CAMERA_SCENES", "")
    for key, (name, scene) in _scenes().items():
        if wanted and key not in wanted.split(","):
            continue
        # calibrated before the game, with no hand in the way
        setup = calibrate_synthetic(replace(scene, resting_hand=False), seed=7)  # type: ignore[type-var]
        # one row for the resting hand unless rates are asked for: the run stays shorter
        asked = "KAESHI_BENCH_CAMERA_FPS" in os.environ
        for fps in rates if key != "rest" or asked else rates[:1]:
            wait = press_wait(fps)
            delays: list[float] = []
            with tempfile.TemporaryDirectory() as tmp:
                folder = Path(tmp)
                for k, path in enumerate(games):
                    with path.open(encoding="utf-8") as f:
                        log = prompt_presses(read_observations(f), seed=int(path.name[:4]))
                    camera = watch_game_video(log, setup, scene, fps, seed=7 + k, tail=TAIL,
                                              moving_hands=True)
                    out = folder / path.name
                    out.write_text("".join(o.to_json() + "\n" for o in camera), encoding="utf-8")
                    expected = path.name.replace(".obs.jsonl", ".expected.jsonl")
                    shutil.copy(path.with_name(expected), folder / expected)
                    delays += _delays(camera, wait)
                waited = _score(folder, kaeshi, f"--fps {fps:g}")
                at_once = _score(folder, kaeshi, "")
            delays.sort()
            p99 = delays[min(len(delays) - 1, int(0.99 * len(delays)))] if delays else 0.0
            median = statistics.median(delays) if delays else 0.0
            print(f"   {name}, {fps:g} fps, each press waits for the frames after it "
                  f"({wait:.2f} s): {waited}", flush=True)
            print(f"      per-press delay added: median {median:.2f} s, p99 {p99:.2f} s "
                  f"({len(delays)} presses)", flush=True)
            print(f"      judged at each press instead: {at_once}", flush=True)
        if key == "rest":
            _without_clock(scene, setup, rates[0], kaeshi)


if __name__ == "__main__":
    main()
