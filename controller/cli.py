"""The ``kaeshi`` command: one entry point, one module per subcommand.

Subcommands live in ``controller/commands/``; each module there has a
``register(subparsers)`` function, so adding a command never touches this file.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from controller import commands
from controller.errors import KaeshiError


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; given ``argv`` naming a command, only that command's module is loaded
    (``kaeshi run`` must not pay for the camera's or the tournament's imports)."""
    parser = argparse.ArgumentParser(
        prog="kaeshi",
        description="Watch a physical Othello board, judge every move, run the clock, "
        "record the game.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = sorted(info.name for info in pkgutil.iter_modules(commands.__path__))
    word = next((a for a in argv or () if not a.startswith("-")), None)
    for name in [word] if word in names else names:
        module = importlib.import_module(f"{commands.__name__}.{name}")
        module.register(sub)
    return parser


#: Options whose values are board strings; those often start with ``-`` (an empty a1),
#: which argparse would otherwise take for an option.
BOARD_OPTIONS = ("--board",)


def glue_board_values(argv: Sequence[str]) -> list[str]:
    """Turn ``--board VALUE`` into ``--board=VALUE`` so a leading ``-`` is kept."""
    out: list[str] = []
    pending = False
    for arg in argv:
        if pending:
            out[-1] = f"{out[-1]}={arg}"
            pending = False
            continue
        out.append(arg)
        pending = arg in BOARD_OPTIONS
    return out


def main(argv: Sequence[str] | None = None) -> int:
    argv = glue_board_values(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:
        # the reader went away (``kaeshi arbitrate log | head``): nothing to complain about
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (KaeshiError, ValueError, OSError) as exc:
        if args.debug:
            raise
        print(f"kaeshi: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
