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
from controller.irregularities import describe, name
from controller.observation import LogHeader, Observation, read_log
from controller.position import Position
from controller.records import save_games
from controller.records.irregular import History, for_people
from controller.squares import Color


def register(p: argparse.ArgumentParser) -> None:
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
                   help="the log was read by a camera at F frames a second: each press is "
                   "judged with the frames taken just after it (see docs/camera.md). "
                   "Default: the frame rate in the header 'kaeshi watch' writes; a log "
                   "without one is judged at each press. Given, it wins over the header "
                   "(a disagreement is reported)")
    p.add_argument("--stable", type=int, metavar="N",
                   help="the '--stable' the log was watched with (default: the header's, "
                   "else 2)")
    p.set_defaults(func=run, clock=None)


@contextmanager
def _open(path: str) -> Iterator[TextIO]:
    if path == "-":
        yield sys.stdin
        return
    with Path(path).open(encoding="utf-8") as f:
        yield f


def _note(msg: str) -> None:
    print(f"kaeshi arbitrate: {msg}", file=sys.stderr, flush=True)


def camera_wait(args: argparse.Namespace, header: LogHeader | None) -> float:
    """How long a press waits for the camera's frames after it: from ``--fps`` and
    ``--stable`` where given (they win: the user may know the header is wrong, and a
    disagreement is reported), else from the log's header; 0 for a log that says
    nothing of a camera and was given no ``--fps``."""
    if header is not None and args.settled:
        raise ValueError("the log was written by a camera ('kaeshi watch'); --settled is "
                         "for the sensor board's logs")
    if args.fps is not None and args.settled:
        raise ValueError("--fps is for a camera's log; a --settled log is judged at each press")
    fps, stable = args.fps, args.stable
    if header is not None:
        if fps is not None and header.fps is not None and fps != header.fps:
            _note(f"the log says it was watched at {header.fps:g} fps; judging at --fps "
                  f"{fps:g} as asked")
        if stable is not None and stable != header.stable:
            _note(f"the log says it was watched with --stable {header.stable}; judging "
                  f"with --stable {stable} as asked")
        if fps is None and header.fps is None:
            _note(f"the log's source ({header.name}) did not say its frame rate: every "
                  "press is judged at once; give --fps F to judge it with the frames after it")
        fps = header.fps if fps is None else fps
        stable = header.stable if stable is None else stable
    if fps is None:
        return 0.0
    return press_wait(fps, 2 if stable is None else stable)


def config_from(args: argparse.Namespace, header: LogHeader | None = None) -> ArbiterConfig:
    if args.board and args.handicap:
        raise ValueError("give either --board or --handicap, not both")
    if args.handicap and args.size != STANDARD:
        raise ValueError(f"--handicap needs the {STANDARD}x{STANDARD} board, "
                         f"not --size {args.size}")
    if args.board:
        start = Position.from_board_string(args.board, Color.parse(args.to_move), args.size)
    else:
        start = Position.handicap(args.handicap) if args.handicap else Position.start(args.size)
    wait = camera_wait(args, header)
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
        return f"{head}IRREGULAR {describe(d['kind'], d['player'], squares)}."
    if kind == "pointed_out":
        return f"{head}pointed out: {who} must put {' '.join(d.get('squares', []))} right"
    if kind == "corrected":
        return f"{head}put right: {name(d['kind'])} on {' '.join(d.get('squares', []))}"
    if kind == "game_over":
        winner = "a draw" if d["winner"] == "draw" else f"{d['winner']} wins"
        return f"{head}game over: Black {d['black']}, White {d['white']}: {winner}"
    if kind == "resync":
        return f"{head}the board was caught up: {', '.join(d.get('moves', []))}"
    return f"{head}{kind}"


def run(args: argparse.Namespace) -> int:
    with _open(args.log) as lines:
        header, observations = read_log(lines, args.size)
        return _judge(args, header, observations)


def _judge(args: argparse.Namespace, header: LogHeader | None,
           observations: Iterator[Observation]) -> int:
    arbiter = Arbiter(config_from(args, header))
    history = History()
    after = {0: arbiter.position}
    out = sys.stdout

    def say(events: list[Event], t: float) -> None:
        for event in events:
            text = event.to_json() if args.format == "json" else as_text(event, len(arbiter.moves))
            out.write(text + "\n")
        if args.format != "json" and any(e.event == "irregularity" for e in events):
            # what happens next, once for the move however many faults it has
            out.write(f"{'':12}{arbiter.flow().step().to_json()['todo']}\n")
        history.take(events, len(arbiter.moves), t, arbiter.open_flags())
        after[len(arbiter.moves)] = arbiter.position

    t = 0.0
    for obs in observations:
        say(arbiter.feed(obs), obs.t)
        t = obs.t
    say(arbiter.finish(t), t)
    out.flush()
    if args.record:
        save_games([for_people(arbiter.record(), history, after)], args.record)
    return 0
