"""``kaeshi run``: the service — a sensor, the arbiter, the clock, the journal, the web page."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.service.config import Config


def register(p: argparse.ArgumentParser) -> None:
    p.description = (
        "Run the Kaeshi service. It resumes an unfinished game from the journal. "
        "A replay (source.kind = \"sim\") ends with its log, or, run from a terminal, keeps "
        "its game-over page up until Ctrl-C. To try it without hardware: kaeshi run "
        "--config deploy/kaeshi.simulated.toml (see docs/service.md#a-simulated-table).")
    p.add_argument("--config", metavar="FILE",
                   help="TOML configuration (see deploy/kaeshi.example.toml, or "
                   "deploy/kaeshi.simulated.toml for a simulated table); default: every "
                   "option at its default")
    p.set_defaults(func=run)


def setup_logging(level: str, terminal: bool) -> None:
    """Log to stderr; under the live terminal view only errors, so the view stays clean
    (it shows states, flags and messages itself)."""
    numeric = getattr(logging, level.upper())
    if terminal and sys.stdout.isatty():
        numeric = max(numeric, logging.ERROR)
    logging.basicConfig(level=numeric, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger().setLevel(numeric)


def run_service(config: Config) -> int:
    import asyncio

    from controller.service.app import Service
    from controller.service.display import TerminalDisplay, at_a_terminal
    from controller.service.lifecycle import ReplayDone

    terminal = TerminalDisplay() if config["display.terminal"] else None
    setup_logging(config["log.level"], terminal is not None)
    # a replay's game-over page stays up for the person at the terminal; a job ends
    linger = None if config["source.kind"] == "sim" and at_a_terminal() else 0.0
    service = Service(config, terminal=terminal, linger=linger)
    try:
        service.open()
    except ReplayDone as done:
        # not a fault: a replay restarted after its game ended has nothing left to do
        logging.getLogger("kaeshi.service").warning("%s", done)
        return 0
    return asyncio.run(service.run())


def run(args: argparse.Namespace) -> int:
    from controller.service.config import defaults, load_config

    config = load_config(args.config) if args.config else defaults()
    return run_service(config)
