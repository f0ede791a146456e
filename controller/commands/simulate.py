"""``kaeshi simulate``: the observation log a real board would give for a recorded game."""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

from controller.observation import Observation, write_observations
from controller.records import load_games
from controller.records.model import GameRecord
from controller.simulator import SimOptions, Simulation, simulate_game


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("record", help="game record (.wtb, .ggf, .txt, .json)")
    p.add_argument("--game", type=int, default=1, metavar="N", help="game number, from 1")
    p.add_argument("--errors", type=float, default=0.0, metavar="RATE",
                   help="share of moves with an injected irregularity (0-1)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="random seed")
    p.add_argument("--noise", type=float, default=0.0, metavar="P",
                   help="share of frames with one square misread (0-1)")
    p.add_argument("--no-clock", action="store_true", help="no clock presses in the log")
    p.add_argument("--no-hand", action="store_true", help="no hand hiding squares")
    p.add_argument("--habits", action="store_true",
                   help="more of what real players do: two faults in one move, faults put "
                   "right after the press, an illegal pass replaced by a move, discs put "
                   "down and taken back or pushed onto their square, forgotten presses, "
                   "the clock pressed 0.15-0.4 s after the hand leaves (judge with "
                   "'kaeshi arbitrate --fps 10 --stable 0'); with --via camera, the waiting "
                   "player's hand resting at the board's edge")
    p.add_argument("--via", choices=sorted(VIA), default="pure",
                   help="sensor path the log is played through: pure (none), hall (the "
                   "sensor-board simulator, a pty and the host driver), camera")
    p.add_argument("--out", metavar="FILE", help="write the log here instead of stdout")
    p.add_argument("--truth", metavar="FILE",
                   help="also write the events a perfect arbiter emits (JSON Lines)")
    p.set_defaults(func=run)


#: --via: the function (module, name) that plays a log through a sensor path.
VIA = {
    "pure": None,
    "hall": ("controller.hall.replay", "observations_via_hall"),
    "camera": ("controller.synth.replay", "observations_via_camera"),
}


def through(via: str, observations: list[Observation], habits: bool = False, seed: int = 0
            ) -> list[Observation]:
    """``observations`` as the sensor path ``via`` gives them back; ``habits`` puts
    the waiting player's hand at the board's edge in front of a camera (a Hall-sensor
    board does not feel a hand), where ``seed`` lays it."""
    target = VIA[via]
    if target is None:
        return observations
    try:
        func = getattr(importlib.import_module(target[0]), target[1])
    except (ImportError, AttributeError):
        raise ValueError(f"--via {via} is not available in this build") from None
    if via == "camera":
        return func(observations, seed=seed, habits=habits)
    return func(observations)


def _rate(value: float, name: str) -> float:
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"{name} must be between 0 and 1, not {value}")
    return value


def pick_game(path: str, number: int) -> GameRecord:
    games = load_games(path)
    if not 1 <= number <= len(games):
        raise ValueError(f"{path} has {len(games)} games; --game must be 1 to {len(games)}")
    return games[number - 1]


def options_from(args: argparse.Namespace) -> SimOptions:
    return SimOptions(
        errors=_rate(args.errors, "--errors"),
        seed=args.seed,
        noise=_rate(args.noise, "--noise"),
        clock=not args.no_clock,
        hand=not args.no_hand,
        habits=args.habits,
    )


def simulation_from(args: argparse.Namespace) -> Simulation:
    return simulate_game(pick_game(args.record, args.game), options_from(args))


def run(args: argparse.Namespace) -> int:
    sim = simulation_from(args)
    sim.observations = through(args.via, sim.observations, args.habits, args.seed)
    if args.out:
        with Path(args.out).open("w", encoding="utf-8") as out:
            write_observations(sim.observations, out)
    else:
        write_observations(sim.observations, sys.stdout)
    if args.truth:
        with Path(args.truth).open("w", encoding="utf-8") as out:
            for event in sim.truth:
                out.write(event.to_json() + "\n")
    if sim.injected:
        summary = [f"{i.number}:{i.player.value}:{'+'.join(i.flags)}:{i.fix}"
                   for i in sim.injected]
        print(f"injected {len(sim.injected)}: {json.dumps(summary)}", file=sys.stderr)
    return 0
