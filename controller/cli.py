"""The ``kaeshi`` command: one entry point, one module per subcommand.

Subcommands are listed in ``controller/commands/__init__.py`` (``COMMANDS``), one line
each, and live in modules beside it; this file never names one.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from collections.abc import Sequence
from types import ModuleType

from controller import commands
from controller.errors import KaeshiError


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser. Every command is listed from the table; only a command that ``argv``
    names gets its arguments, so only its module is imported (``kaeshi --help`` and
    ``kaeshi run`` must not pay for the camera's or the tournament's imports)."""
    parser = argparse.ArgumentParser(
        prog="kaeshi",
        description="Watch a physical Othello board, judge every move, run the clock, "
        "record the game.",
    )
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    word = next((a for a in argv or () if not a.startswith("-")), None)
    for name, command in commands.COMMANDS.items():
        p = sub.add_parser(name, help=command.help, description=command.help[:1].upper()
                           + command.help[1:] + ".")
        if name == word:
            load(name).register(p)
    return parser


def load(name: str) -> ModuleType:
    """The module of command ``name`` (a key of ``COMMANDS``)."""
    return importlib.import_module(f"{commands.__name__}.{commands.COMMANDS[name].module}")
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
