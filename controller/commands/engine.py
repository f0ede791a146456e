"""``kaeshi engine``: the project's own Othello engine on stdin/stdout (NBoard or GTP)."""

from __future__ import annotations

import argparse
import sys

from controller.engine.own import add_arguments, serve


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("engine", help="run Kaeshi's own engine on stdin/stdout "
                       "(NBoard or GTP), for an Othello GUI or as a fallback")
    add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return serve(args.protocol, args.level, sys.stdin, sys.stdout, args.seconds)
