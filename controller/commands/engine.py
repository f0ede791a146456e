"""``kaeshi engine``: the project's own Othello engine on stdin/stdout (NBoard or GTP)."""

from __future__ import annotations

import argparse
import sys

from controller.engine.own import add_arguments, serve


def register(p: argparse.ArgumentParser) -> None:
    add_arguments(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    return serve(args.protocol, args.level, sys.stdin, sys.stdout, args.seconds)
