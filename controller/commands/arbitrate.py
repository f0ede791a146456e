"""``kaeshi arbitrate``: judge an observation log; events as JSON Lines or in words,
optionally a record."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from controller.arbiter import Arbiter, ArbiterConfig, Mode
from controller.arbiter.presswait import press_wait
from controller.boardsize import SIZES, STANDARD
from controller.events import Event
from controller.observation import read_observations
from controller.position import Position
from controller.records import save_games
from controller.records.irregular import KIND_NAMES, History, describe, for_people, instruction
from controller.squares import Color


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("arbitrate", help="judge an observation log and print the events")
    p.add_argument("log", help="observation log (JSON Lines); - for standard input")
    p.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.HOME.value,
                   help="who is told about irregularities (default: home)")
    p.add_argument("--record", metavar="OUT",
                   help="write the game record here (.ggf, .json, .txt, .wtb)")
    p.add_argument("--handicap", type=int, metavar="N", help="start with N corner discs")
    p.add_argument("--size", type=int, default=STANDARD, choices=SIZES,
                   help="board size of the game (default: %(default)s)")
    p.add_argument("--board", metavar="BOARD",
                   help="start from this 64-character board string instead")
    p.add_argument("--to-move", default="X", help="side to move with --board: X or O")
    p.add_argument("--no-draws", action="store_true",
                   help="a 32-32 game goes to the draw-win right holder")
    p.add_argument("--draw-win-right", choices=["black", "white"],
                   help="holder of the draw-win right (default with --no-draws: black)")
    clock = p.add_mutually_exclusive_group()
    clock.add_argument("--clock", dest="clock", action="store_const", const=True,
                       help="the game is played with a clock")
    clock.add_argument("--no-clock", dest="clock", action="store_const", const=False,
                       help="ignore presses; judge a move when the next begins")
    p.add_argument("--settled", action="store_true",
                   help="every board in the log is already debounced (recorded from the "
                   "sensor board's driver): each counts as it comes, without a second "
                   "reading")
    p.add_argument("--format", choices=["json", "text"], default="json",
                   help="json: one event per line, for programs (default); text: one "
                   "line per event in words, irregularities with what happens next")
    p.add_argument("--fps", type=float, metavar="F",
                   help="the log was read by a camera at F frames a second ('kaeshi watch'): "
                   "each press is judged with the frames taken just after it (see "
                   "docs/camera.md); default: every press is judged at once")
    p.add_argument("--stable", type=int, default=2, metavar="N",
                   help="with --fps: the '--stable' the log was watched with (default 2)")
    p.set_defaults(func=run, clock=None)


@contextmanager
def _open(path: str) -> Iterator[TextIO]:
    if path == "-":
        yield sys.stdin
        return
    with Path(path).open(encoding="utf-8") as f:
        yield f


def config_from(args: argparse.Namespace) -> ArbiterConfig:
    if args.board and args.handicap:
        raise ValueError("give either --board or --handicap, not both")
    if args.handicap and args.size != STANDARD:
        raise ValueError(f"--handicap needs the {STANDARD}x{STANDARD} board, "
                         f"not --size {args.size}")
    if args.board:
        start = Position.from_board_string(args.board, Color.parse(args.to_move), args.size)
    else:
        start = Position.handicap(args.handicap) if args.handicap else Position.start(args.size)
    if args.fps is not None and args.settled:
        raise ValueError("--fps is for a camera's log; a --settled log is judged at each press")
    wait = 0.0 if args.fps is None else press_wait(args.fps, args.stable)
    return ArbiterConfig(
        mode=Mode(args.mode),
        start=start,
        draws_allowed=not args.no_draws,
        draw_win_right=Color(args.draw_win_right) if args.draw_win_right else None,
        clock=args.clock,
        settled=args.settled,
        press_wait=wait,
    )


def as_text(event: Event, move: int) -> str:
    """One event in words: ``  12.3 s  move 4   white d6 (turns d5)``."""
    d = event.to_dict()
    kind = d["event"]
    head = f"{d['t']:8.1f} s  "
    who = str(d.get("player", "")).capitalize()
    if kind == "move":
        flips = " ".join(d.get("flips", []))
        return f"{head}move {move:<3} {who} {d['square']}" + (f" (turns {flips})" if flips else "")
    if kind == "pass":
        return f"{head}move {move:<3} {who} passes"
    if kind == "irregularity":
        squares = list(d.get("squares", []))
        return (f"{head}IRREGULAR {describe(d['kind'], d['player'], squares)}.\n"
                f"{'':12}{instruction(d['kind'], d['player'], squares)}")
    if kind == "corrected":
        return f"{head}put right: {KIND_NAMES.get(d['kind'], d['kind'])} on " \
               f"{' '.join(d.get('squares', []))}"
    if kind == "game_over":
        winner = "a draw" if d["winner"] == "draw" else f"{d['winner']} wins"
        return f"{head}game over: Black {d['black']}, White {d['white']}: {winner}"
    if kind == "resync":
        return f"{head}the board was caught up: {', '.join(d.get('moves', []))}"
    return f"{head}{kind}"


def run(args: argparse.Namespace) -> int:
    arbiter = Arbiter(config_from(args))
    history = History()
    after = {0: arbiter.position}
    out = sys.stdout

    def say(events: list[Event], t: float) -> None:
        for event in events:
            text = event.to_json() if args.format == "json" else as_text(event, len(arbiter.moves))
            out.write(text + "\n")
        history.take(events, len(arbiter.moves), t, arbiter.open_flags())
        after[len(arbiter.moves)] = arbiter.position

    t = 0.0
    with _open(args.log) as lines:
        for obs in read_observations(lines, arbiter.position.size):
            say(arbiter.feed(obs), obs.t)
            t = obs.t
    say(arbiter.finish(t), t)
    out.flush()
    if args.record:
        save_games([for_people(arbiter.record(), history, after)], args.record)
    return 0
