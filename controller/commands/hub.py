"""``kaeshi hub``: the tournament hall's hub, and ``kaeshi hub simulate`` to try one."""

from __future__ import annotations

import argparse
import logging
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.hub.sim_summary import SimulateOptions


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Run the hub of a tournament hall: it takes every table's events from the "
        "MQTT broker into its store, sends the tables their orders and serves the "
        "arbiter dashboard and the spectator broadcast. See docs/hub.md (the broker, "
        "the tables' [hub] section, the hub's configuration)."
    )
    p.add_argument("--config", metavar="FILE",
                   help="hub.toml (see docs/hub.md#the-hub-kaeshi-hub---config-hubtoml)")
    p.add_argument("--log-level", default="info",
                   choices=("debug", "info", "warning", "error"))
    p.set_defaults(func=run)
    hs = p.add_subparsers(dest="hub_command", metavar="SUBCOMMAND")
    s = hs.add_parser(
        "simulate",
        help="a private broker, a hub and N simulated tables playing real WTHOR games",
    )
    s.add_argument("--tables", type=int, default=8, metavar="N")
    s.add_argument("--speed", type=float, default=20.0, metavar="X",
                   help="replay speed of the tables (clocks included)")
    s.add_argument("--processes", type=int, default=0, metavar="P",
                   help="table processes (default: about 25 tables each)")
    s.add_argument("--errors", type=float, default=0.03, metavar="RATE",
                   help="share of moves with an injected irregularity")
    s.add_argument("--games", type=int, default=1, metavar="K",
                   help="games each table plays in a row, as in a day's rounds (a real "
                   "table service replaying a folder of K logs)")
    s.add_argument("--players", type=int, default=0, metavar="N",
                   help="play a whole event of N players (a random roster): rounds "
                   "paired by the tournament director, results signed at the tables; "
                   "the tables are as many as round 1 needs")
    s.add_argument("--event", type=Path, metavar="FILE",
                   help="play this event (event.toml of 'kaeshi tournament new'; with "
                   "--roster) instead of --players")
    s.add_argument("--roster", type=Path, metavar="FILE", help="the event's players (CSV)")
    s.add_argument("--no-incidents", action="store_true",
                   help="with an event: no dispute, late arrival, forfeit, correction or hub "
                        "crash, only the tables' own games")
    s.add_argument("--extend", action="store_true",
                   help="with --players: confirm a field outside the open format's sizes "
                        "(fewer than 16, more than 128), run as the variant its notes name")
    s.add_argument("--rounds", type=int, default=0, metavar="R",
                   help="with an event: stop after R rounds (default: the whole event)")
    s.add_argument("--seed", type=int, default=0, help="seed of the games and the lottery")
    s.add_argument("--folder", metavar="DIR", help="keep the files here (default: temporary)")
    s.add_argument("--web", action="store_true",
                   help="also serve the hub's pages: their addresses are printed, and they "
                   "stay up after the round until Ctrl-C")
    s.set_defaults(func=run_simulate)


def _logging(level: str) -> None:
    logging.basicConfig(level=getattr(logging, level.upper()),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def run(args: argparse.Namespace) -> int:
    import asyncio

    from controller.hub.config import load_hub_config
    from controller.hub.serve import serve_hub

    if not args.config:
        raise ValueError("kaeshi hub needs --config hub.toml (or: kaeshi hub simulate)")
    cfg = load_hub_config(args.config)
    _logging(args.log_level)
    return asyncio.run(serve_hub(cfg))


def run_simulate(args: argparse.Namespace) -> int:
    from controller.hub.simulate import simulate

    _logging("warning")
    if not 1 <= args.tables <= 1000:
        raise ValueError(f"--tables must be 1-1000, not {args.tables}")
    if not 0.1 <= args.speed <= 1000:
        raise ValueError(f"--speed must be 0.1-1000, not {args.speed}")
    if not 1 <= args.games <= 20:
        raise ValueError(f"--games must be 1-20, not {args.games}")
    from controller.hub.sim_summary import SimulateOptions

    options = SimulateOptions(
        tables=args.tables, speed=args.speed, processes=args.processes, errors=args.errors,
        folder=args.folder, web=args.web, games=args.games, seed=args.seed,
    )
    if args.players or args.event or args.roster:
        return _simulate_event(args, options)
    summary = simulate(options)
    if not options.web:  # with the pages, it was said when the round ended
        print(summary.text())
    return 0 if summary.ok else 1


def _simulate_event(args: argparse.Namespace, options: SimulateOptions) -> int:
    from controller.hub.sim_event import EventPlan, simulate_event

    if args.players and args.event:
        raise ValueError("give --players N or --event FILE --roster FILE, not both")
    if args.games != 1:
        raise ValueError("--games is for a round without a director; an event's rounds "
                         "come from the director (--rounds R stops after R)")
    if args.rounds < 0:
        raise ValueError(f"--rounds must be 0 (the whole event) or more, not {args.rounds}")
    plan = EventPlan(players=args.players, event=args.event, roster=args.roster,
                     rounds=args.rounds, extend=args.extend,
                     incidents=not args.no_incidents)
    summary = simulate_event(options, plan)
    if not options.web:  # with the pages, it was said when the day ended
        print(summary.text())
    return 0 if summary.ok else 1
