"""``kaeshi calibrate TARGET``: calibrations of the sensors.

Targets are discovered from the modules of ``calibration/commands/``; each has a
``register(sub)`` like the top-level commands, so a new sensor adds its own.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil

from calibration import commands


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("calibrate", help="calibrate a sensor (hall, camera)",
                       description="Calibrate one of the board's sensors.")
    targets = p.add_subparsers(dest="target", metavar="TARGET")
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{commands.__name__}.{info.name}")
        module.register(targets)

    def missing_target(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=missing_target)
