"""``kaeshi calibrate TARGET``: calibrations of the sensors.

The tools that make calibrations live in the ``calibration`` package, which imports
``controller`` and never the other way round. Each target announces itself under the
``kaeshi.calibrate`` entry-point group (``pyproject.toml``) with a ``register(sub)``
like the top-level commands, so a new sensor adds its own without this module naming it.
"""

from __future__ import annotations

import argparse
from importlib.metadata import entry_points

GROUP = "kaeshi.calibrate"


def register(p: argparse.ArgumentParser) -> None:
    p.description = "Calibrate one of the board's sensors."
    targets = p.add_subparsers(dest="target", metavar="TARGET")
    for point in sorted(entry_points(group=GROUP), key=lambda e: e.name):
        point.load()(targets)

    def missing_target(args: argparse.Namespace) -> int:
        p.print_help()
        return 2

    p.set_defaults(func=missing_target)
