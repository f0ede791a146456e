"""``kaeshi games``: list the finished games, export one in a record format, review one
with an engine."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from controller.service.games import FORMATS, export_game, list_games

if TYPE_CHECKING:
    from controller.service.config import Config


def register(p: argparse.ArgumentParser) -> None:
    _where(p, None)
    gsub = p.add_subparsers(dest="games_command", metavar="ACTION", required=True)
    _where(gsub.add_parser("list", help="one line per finished game"), argparse.SUPPRESS)
    e = gsub.add_parser("export", help="print or write one game in a format")
    _where(e, argparse.SUPPRESS)
    e.add_argument("id", help="game id, as `kaeshi games list` shows it")
    e.add_argument("format", choices=sorted(FORMATS), help="record format")
    e.add_argument("--out", metavar="FILE", help="write here instead of printing")
    r = gsub.add_parser("review", help="score every move with the engine; write "
                        "reviews/<id>.ggf and reviews/<id>.json in the games folder")
    _where(r, argparse.SUPPRESS)
    r.add_argument("id", help="game id, as `kaeshi games list` shows it")
    r.add_argument("--level", type=int, metavar="N",
                   help="level (Kaeshi's own engine: 1 beginner to 5 strong; another "
                   "NBoard engine: its depth; default: the configuration's engine.level)")
    p.set_defaults(func=run)


def _where(p: argparse.ArgumentParser, default: object) -> None:
    """--config/--folder, accepted before or after the action."""
    p.add_argument("--config", metavar="FILE", default=default,
                   help="take the games folder from this config")
    p.add_argument("--folder", metavar="DIR", default=default,
                   help="the games folder (overrides --config)")


def _folder(args: argparse.Namespace) -> Path:
    if args.folder:
        return Path(args.folder)
    return Path(_config(args)["games.folder"])


def _config(args: argparse.Namespace) -> Config:
    from controller.service.config import defaults, load_config

    return load_config(args.config) if args.config else defaults()


def _review(args: argparse.Namespace, folder: Path) -> int:
    from controller.engine.report import review_saved_game, summary_lines
    from controller.engine.review import text_graph
    from controller.engine.seat import spec_from_config

    config = _config(args)
    if args.level is not None:
        config = config.replace(**{"engine.level": args.level})
    review, paths = review_saved_game(folder, args.id, spec_from_config(config))
    print(text_graph(review))
    for line in summary_lines(review):
        print(line)
    for path in paths:
        print(f"wrote {path}")
    return 0


def run(args: argparse.Namespace) -> int:
    folder = _folder(args)
    if args.games_command == "review":
        return _review(args, folder)
    if args.games_command == "list":
        entries = list_games(folder)
        if not entries:
            print(f"no finished games in {folder}")
            return 0
        for e in entries:
            result = f"{e.result[0]}-{e.result[1]}" if e.result else "no result"
            if e.result_note:
                result += f" ({e.result_note})"
            note = ""
            if e.record is None:
                note = "  (position left irregular: GGF/txt/json only)"
            elif not e.record.has_standard_start():
                note = "  (not the standard start: GGF/json only)"
            elif e.record.stood():
                after = ", ".join(map(str, e.record.stood()))
                note = f"  (board kept as it stood after move {after}: GGF/json only)"
            print(f"{e.id}  {e.black or '?'} vs {e.white or '?'}  {result}  "
                  f"{e.moves} moves  {e.flagged} flagged{note}")
        return 0
    out = Path(args.out) if args.out else None
    text = export_game(folder, args.id, args.format, out)
    if out is None and text is not None:
        print(text, end="")
    elif out is not None:
        print(f"wrote {out}")
    return 0
