"""``kaeshi demo``: the whole service on simulated hardware, replaying a real game.

Simulated players replay a WTHOR game with the clock running; one forgotten flip is
flagged and then corrected. The board is the simulated sensor board (the real
firmware on a pseudo-terminal) when it can be built and its port opened here, else
the observation log is replayed directly, and the demo says why. The terminal shows
board, clocks and flags live, the web page runs on this machine, and the demo leaves
the game record and its review by Kaeshi's own engine (no third-party engine needed).

Run from a terminal, the game-over page stays up until Ctrl-C: a newcomer has time
to open it. With no terminal (CI, a pipe, ``CI`` set in the environment) or with
``--duration``, the demo ends by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.errors import KaeshiError
from controller.service.demo import (
    DEMO_GAME,
    TARGET_SECONDS,
    DemoGame,
    build_demo,
    play_on_board,
)
from controller.service.states import State

if TYPE_CHECKING:
    from controller.service.app import Service
    from controller.service.display import TerminalDisplay


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Replay a real game on simulated hardware through the whole service: terminal "
        "view, web page, game record and review. From a terminal the page stays up after "
        "the game until Ctrl-C; with no terminal, or with --duration, the demo ends by "
        "itself.")
    p.add_argument("--out", default="games", metavar="DIR",
                   help="folder for the game record (default: ./games)")
    p.add_argument("--seconds", type=float, default=TARGET_SECONDS,
                   help=f"about how long the replay takes (default {TARGET_SECONDS:g})")
    p.add_argument("--board", choices=("auto", "sim", "log"), default="auto",
                   help="sim: the simulated sensor board; log: replay the observations "
                   "directly; auto (default): the board if it can be built here")
    p.add_argument("--wthor", metavar="FILE", help="WTHOR file to take the game from")
    p.add_argument("--game", type=int, default=None, metavar="N",
                   help="game number in that file, from 1 as 'kaeshi simulate --game' counts "
                   f"(default {DEMO_GAME + 1})")
    p.add_argument("--duration", type=float, metavar="S",
                   help="keep the page up S seconds after the game, then end (default: "
                   "until Ctrl-C from a terminal, at once with none)")
    p.add_argument("--no-web", action="store_true", help="do not start the web page")
    p.add_argument("--no-review", action="store_true",
                   help="do not review the finished game with Kaeshi's own engine")
    p.set_defaults(func=run)


#: Real seconds the board's link may stay down mid-game before the demo gives up:
#: its simulated players cannot wait for a cable to be reseated.
LINK_GIVE_UP = 10.0


def _start_board(choice: str, terminal: TerminalDisplay) -> Any:
    if choice == "log":
        return None
    from controller.hall.simboard import SimBoard, SimBoardError

    try:
        board = SimBoard(eeprom_write_us=0).start()
    except (SimBoardError, OSError) as exc:
        if choice == "sim":
            raise KaeshiError(f"the simulated sensor board is not available: {exc}") from None
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        terminal.message(f"(simulated sensor board not available: {first}; "
                         "replaying the observations directly)")
        return None
    try:
        _open_link(board.port)
    except OSError as exc:
        with contextlib.suppress(Exception):
            board.stop()
        if choice == "sim":
            raise KaeshiError(f"the simulated sensor board's link cannot be opened: {exc}"
                              ) from None
        terminal.message(f"(the simulated sensor board's link cannot be opened: {exc}; "
                         "replaying the observations directly)")
        return None
    return board


def _open_link(port: str) -> None:
    """Open and close the board's port as the service will (same speed, same settings),
    so a port that cannot be configured ends the demo before the game, with the reason,
    rather than leaving the players pressing into a link that never comes up."""
    from controller.hall.messages import BAUD
    from controller.hall.port import SerialTransport

    SerialTransport(port, BAUD).close()


def game_index(number: int) -> int:
    """The file's index of game ``number``: every command counts games from 1."""
    if number < 1:
        raise ValueError(f"--game counts from 1 (as 'kaeshi simulate --game' does), not "
                         f"{number}")
    return number - 1


def linger(duration: float | None, terminal: bool) -> float | None:
    """Seconds the page stays up after the game (None: until Ctrl-C)."""
    if duration is not None:
        if not 0 <= duration <= 86400:
            raise ValueError(f"--duration must be from 0 to 86400 seconds, not {duration:g}")
        return duration
    return None if terminal else 0.0


def run(args: argparse.Namespace) -> int:
    from controller.commands.run import setup_logging
    from controller.observation import write_observations
    from controller.service.display import TerminalDisplay, at_a_terminal

    if not 5 <= args.seconds <= 600:
        raise ValueError(f"--seconds must be between 5 and 600, not {args.seconds}")
    args.linger = linger(args.duration, at_a_terminal())
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    options = {} if args.game is None else {"game_index": game_index(args.game)}
    demo = build_demo(Path(args.wthor) if args.wthor else None, seconds=args.seconds,
                      **options)
    rec = demo.record
    number, player, squares = demo.flip
    log_path = out / "demo-observations.jsonl"
    with open(log_path, "w", encoding="utf-8") as f:
        write_observations(demo.simulation.observations, f)
    terminal = TerminalDisplay()
    # the view itself shows every flag and state: the log speaks only of real faults
    setup_logging("error", True)
    pace = ("at the pace it was played" if demo.speed < 1.5
            else f"{round(demo.speed)} times faster than it was played")
    terminal.message(f"Kaeshi demo: {rec.black} vs {rec.white}, {rec.event} {rec.date}, "
                     f"shown {pace}, with a 20-minute clock.")
    terminal.message(f"Move {number}: {player} will forget to turn {', '.join(squares)}; "
                     "the opponent points it out and it is put right.")
    board = _start_board(args.board, terminal)
    try:
        with tempfile.TemporaryDirectory(prefix="kaeshi-demo-") as tmp:
            service = _service(demo, board, log_path, Path(tmp), out, args, terminal)
            service.open()
            code = asyncio.run(_main(service, board, demo))
    finally:
        if board is not None:
            with contextlib.suppress(Exception):
                board.stop()
    if not service.lifecycle.finished_files:
        why = f": the board's link was lost ({service.intake.lost_detail})" if (
            service.intake.lost_detail and service.table.states.state is State.SENSOR_LOST) else ""
        terminal.message(f"the game did not finish{why}; no record written")
        return 1
    terminal.message("game record: " + ", ".join(str(p) for p in service.lifecycle.finished_files))
    if not args.no_review:
        _review(service, out, terminal)
    return code


def _review(service: Service, out: Path, terminal: TerminalDisplay) -> None:
    """Review the finished game with Kaeshi's own engine, as ``kaeshi games review`` does."""
    from controller.engine.report import review_saved_game, summary_lines
    from controller.engine.review import text_graph
    from controller.engine.seat import spec_from_config

    game_id = service.lifecycle.finished_files[0].stem
    config = service.config.replace(**{"engine.level": 2, "engine.command": "",
                                       "engine.protocol": "nboard"})
    try:
        review, paths = review_saved_game(out, game_id, spec_from_config(config))
    except KaeshiError as exc:
        terminal.message(f"review not made: {exc}")
        return
    terminal.message("review (score after each move, black above the line):")
    for line in [*text_graph(review).splitlines(), *summary_lines(review)]:
        terminal.message(line)
    terminal.message("review: " + ", ".join(str(p) for p in paths))


def _service(demo: DemoGame, board: Any, log_path: Path, tmp: Path, out: Path,
             args: argparse.Namespace, terminal: TerminalDisplay) -> Service:
    from controller.service.app import Service
    from controller.service.config import defaults

    rec = demo.record
    values: dict[str, Any] = {
        "game.mode": "home",
        "game.black": rec.black,
        "game.white": rec.white,
        "game.event": rec.event,
        "clock.resume": "continue",
        "journal.path": str(tmp / "journal.sqlite"),
        "games.folder": str(out),
        "web.enabled": not args.no_web,
        "web.host": "127.0.0.1",
        "web.port": 0,
        "display.terminal": True,
        "log.level": "error",
    }
    if board is None:
        values.update({"source.kind": "sim", "source.log": str(log_path),
                       "source.speed": float(demo.speed), "leds.driver": "web"})
    else:
        values.update({"source.kind": "hall", "source.device": board.port,
                       "leds.driver": "board"})
    service = Service(defaults().replace(**values), terminal=terminal,
                      time_scale=float(demo.speed), exit_when_done=True, linger=args.linger)
    where = "the simulated sensor board" if board is not None else "the replayed observations"
    if args.linger is None:
        ending = "the page stays up after the game: press Ctrl-C to stop"
    elif args.linger:
        ending = f"the demo ends {args.linger:g} s after the game (Ctrl-C stops it sooner)"
    else:
        ending = "the demo ends with the game (Ctrl-C stops it sooner)"

    def ready(svc: Service) -> None:
        terminal.message(f"board: {where}")
        if svc.outputs.url:
            terminal.message(f"web page: {svc.outputs.url}   arbiter view: "
                             f"{svc.outputs.url}/arbiter?token={svc.token}")
        terminal.message(ending)

    service.on_ready = ready
    return service


async def _main(service: Service, board: Any, demo: DemoGame) -> int:
    if board is None:
        return await service.run()
    players = asyncio.create_task(_players(service, board, demo))
    try:
        return await service.run()
    finally:
        players.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await players


async def _players(service: Service, board: Any, demo: DemoGame) -> None:
    while not service.outputs.url and service.config["web.enabled"]:
        await asyncio.sleep(0.01)
    players = asyncio.create_task(play_on_board(board, service, demo))
    try:
        await _give_up_on_a_lost_link(service, players)
    finally:
        players.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await players


async def _give_up_on_a_lost_link(service: Service, players: asyncio.Task[None]) -> None:
    """Wait for the players; stop the demo once the link stayed down ``LINK_GIVE_UP`` s."""
    loop = asyncio.get_running_loop()
    down_since: float | None = None
    while not players.done():
        if service.table.states.state is State.SENSOR_LOST:
            down_since = loop.time() if down_since is None else down_since
            if loop.time() - down_since > LINK_GIVE_UP:
                service.stop()
                return
        else:
            down_since = None
        await asyncio.sleep(0.1)
    await players
