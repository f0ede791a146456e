"""``kaeshi record``: convert game records between formats and verify them."""

from __future__ import annotations

import argparse
import sys

from controller.records.files import EXTENSIONS, load_games, record_format, save_games
from controller.records.verify import verify_files


def register(p: argparse.ArgumentParser) -> None:
    actions = p.add_subparsers(dest="record_command", metavar="ACTION", required=True)

    c = actions.add_parser("convert", help="convert IN to OUT, formats by extension "
                           f"({' '.join(EXTENSIONS)})")
    c.add_argument("input", metavar="IN")
    c.add_argument("output", metavar="OUT")
    c.add_argument("--names-dir", metavar="DIR",
                   help="where WTHOR.JOU/WTHOR.TRN are read and written "
                   "(default: beside each .wtb file)")
    c.set_defaults(func=run_convert)

    v = actions.add_parser("verify", help="replay every game; check moves and final scores")
    v.add_argument("files", nargs="+", metavar="FILE")
    v.add_argument("--names-dir", metavar="DIR",
                   help="where WTHOR.JOU/WTHOR.TRN are (default: beside each .wtb file)")
    v.add_argument("--no-warnings", action="store_true",
                   help="do not print warnings (short files, missing name files)")
    v.set_defaults(func=run_verify)


def run_convert(args: argparse.Namespace) -> int:
    record_format(args.output)  # refuse an unknown output format before reading anything
    games = load_games(args.input, args.names_dir)
    save_games(games, args.output, args.names_dir)
    print(f"{len(games)} games: {args.input} -> {args.output}")
    return 0


def run_verify(args: argparse.Namespace) -> int:
    report = verify_files(args.files, args.names_dir)
    if not args.no_warnings:
        for line in report.warnings:
            print(f"warning: {line}", file=sys.stderr)
    for line in report.notes:
        print(f"kept: {line}", file=sys.stderr)
    for line in report.problems:
        print(line, file=sys.stderr)
    sys.stderr.flush()
    print(report.summary())
    return 0 if report.ok else 1
