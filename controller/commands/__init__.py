"""The ``kaeshi`` subcommands: one line each in :data:`COMMANDS`, one module each here.

The table holds what ``kaeshi --help`` lists, so the listing imports no command
module; a command's module is imported only when that command is run or asked for
its own ``--help``. Each module defines ``register(parser)``, which adds the
command's arguments to the parser made from its line here and sets ``func``; it
imports what the command needs inside the function that runs it, so its ``--help``
stays fast too.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    """A subcommand: the module under ``controller.commands`` and its one-line help."""

    module: str
    help: str


#: Adding a command is one line here and a module beside this file.
COMMANDS: dict[str, Command] = {
    "arbitrate": Command("arbitrate", "judge an observation log and print the events"),
    "calibrate": Command("calibrate", "calibrate a sensor (hall, camera)"),
    "config": Command("config", "print an example configuration, or check one before "
                      "the service starts"),
    "demo": Command("demo", "run the service on simulated hardware (ends by itself)"),
    "doctor": Command("doctor", "check this machine for the service: Pi, GPIO, camera, "
                      "serial, folders"),
    "engine": Command("engine", "run Kaeshi's own engine on stdin/stdout (NBoard or GTP), "
                      "for an Othello GUI or as a fallback"),
    "games": Command("games", "list finished games, or export one (GGF, transcript, ...)"),
    "hub": Command("hub", "run the tournament hall's hub (MQTT store, arbiter dashboard, "
                   "broadcast)"),
    "perft": Command("perft", "count the leaves of the game tree to a depth"),
    "recognize": Command("recognize", "read the position from photos of a board"),
    "record": Command("record", "convert and verify game records (WTHOR, GGF, transcripts, "
                      "JSON)"),
    "run": Command("run", "run the service (board source, arbiter, clock, journal, LEDs, "
                   "web page)"),
    "simulate": Command("simulate", "play a recorded game on a simulated board and write its "
                        "observation log"),
    "tournament": Command("tournament", "run a tournament: lottery, pairings, standings"),
    "watch": Command("watch", "read the board from a camera or video and write the "
                     "observation log"),
}
