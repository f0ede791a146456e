"""``kaeshi tournament``: run a championship with the rules' lottery, leagues and pairings.

The event lives in one SQLite file (``--db``); each subcommand loads it, asks the
pure core (``controller.tournament``) to make one change, and stores that change in
one transaction.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.boardsize import SIZES, STANDARD
from controller.scorecard import LATE_STATES
from controller.tournament.event import Tournament
from controller.tournament.game import Correction
from controller.tournament.leaderboard import waiting_for
from controller.tournament.model import TournamentError
from controller.tournament_store import formats
from controller.tournament_store.roster import (
    EventConfig,
    check_date,
    decode_roster,
    parse_event,
    parse_roster,
)
from controller.tournament_store.sheets import write_sheets

if TYPE_CHECKING:
    from controller.tournament_store.via_hub import Written


def register(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", type=Path, default=Path("tournament.sqlite"),
                   help="the event file (default: tournament.sqlite)")
    p.add_argument("--hub-token", default=None,
                   help="the arbiter token of the hub running this event: commands then "
                        "go through the hub (default: $KAESHI_HUB_TOKEN)")
    tsub = p.add_subparsers(dest="tcommand", metavar="SUBCOMMAND", required=True)
    n = tsub.add_parser("new", help="create the event from EVENT.toml and a roster CSV")
    n.add_argument("event", type=Path)
    n.add_argument("--roster", type=Path, required=True)
    n.set_defaults(func=cmd_new)
    lo = tsub.add_parser("lottery", help="draw lottery numbers and split the leagues")
    lo.add_argument("--seeds", nargs=3, required=True, metavar="N")
    lo.set_defaults(func=cmd_lottery)
    pa = tsub.add_parser("pair", help="pair the next round")
    pa.add_argument("--out", type=Path, help="also write the sheet as HTML and CSV here")
    pa.set_defaults(func=cmd_pair)
    to = tsub.add_parser("toss", help="record the 伏せ石: who is black, who may win a draw")
    to.add_argument("table", type=int)
    to.add_argument("--black", required=True)
    to.add_argument("--draw-win", required=True)
    to.set_defaults(func=cmd_toss)
    r = tsub.add_parser("result", help="enter a table's result")
    r.add_argument("table", type=int)
    r.add_argument("outcome", choices=("black", "white", "draw"))
    r.add_argument("--discs", help="final count B-W, e.g. 36-28")
    r.add_argument("--reason", choices=("normal", "time", "both_flags", "foul"),
                   default="normal",
                   help="how it ended: the board (normal), one flag (time, rule 13), both "
                        "flags (both_flags, rule 14: the draw-win holder wins, not rated), "
                        "反則負け (foul, rule 18)")
    r.set_defaults(func=cmd_result)
    la = tsub.add_parser("late", help="a late arrival's state at a table (rules 11–12)")
    la.add_argument("table", type=int)
    la.add_argument("player")
    la.add_argument("state", choices=LATE_STATES)
    la.add_argument("--remaining", help="time left on arrival, M:SS")
    la.set_defaults(func=cmd_late)
    fo = tsub.add_parser("forfeit", help="the late player takes the forfeit (不戦敗)")
    fo.add_argument("table", type=int)
    fo.add_argument("loser")
    fo.set_defaults(func=cmd_forfeit)
    _register_correct(tsub)
    s = tsub.add_parser("standings", help="print the ranking (the final one once the "
                                          "final is played)")
    s.add_argument("--out", type=Path, help="also write HTML and CSV here")
    s.set_defaults(func=cmd_standings)
    w = tsub.add_parser("withdraw", help="withdraw a player from the next round on")
    w.add_argument("name")
    w.set_defaults(func=cmd_withdraw)
    e = tsub.add_parser("export", help="write event.json, WOF results, sheets to DIR")
    e.add_argument("out", type=Path)
    e.add_argument("--date", default=None, metavar="YYYY-MM-DD",
                   help="the day the event was held, for the WOF file's %%%%Date: line, "
                        "when event.toml gave none")
    e.set_defaults(func=cmd_export)
    m = tsub.add_parser("simulate", help="play a whole event with random results")
    m.add_argument("--players", type=int, required=True)
    m.add_argument("--division", choices=("open", "women", "children"), default="open")
    m.add_argument("--seed", type=int, default=1)
    m.add_argument("--out", type=Path, required=True)
    m.add_argument("--extend", action="store_true",
                   help="confirm running a field larger than the rules describe")
    m.add_argument("--hall", action="store_true",
                   help="play it through the tables' score cards and the hub's result "
                        "desk: players sign at the table, one dispute, two late arrivals")
    m.add_argument("--size", type=int, choices=SIZES, default=STANDARD,
                   help="the board's side (6: a 6x6 side event); results count its squares")
    m.add_argument("--date", default=None, metavar="YYYY-MM-DD",
                   help="the day the event is held, for the WOF file's %%%%Date: line "
                        "(default: a fixed day, so every run writes the same files)")
    m.set_defaults(func=cmd_simulate)


def _register_correct(tsub: argparse._SubParsersAction) -> None:
    c = tsub.add_parser("correct", help="the arbiter's correction, journaled with who and "
                                        "why (rules 17, 19)")
    c.add_argument("--by", required=True, help="who decided it (the arbiter)")
    c.add_argument("--why", required=True, help="the reason, as the sheets will show it")
    csub = c.add_subparsers(dest="what", metavar="KIND", required=True)
    r = csub.add_parser("result", help="a table's result, in this round or an earlier one")
    r.add_argument("round", type=int)
    r.add_argument("table", type=int)
    r.add_argument("outcome", choices=("black", "white", "draw"))
    r.add_argument("--discs", help="final count B-W, e.g. 36-28")
    r.add_argument("--reason", choices=("normal", "time", "both_flags", "foul"),
                   default="normal")
    co = csub.add_parser("colours", help="black and white were entered swapped")
    co.add_argument("round", type=int)
    co.add_argument("table", type=int)
    fo = csub.add_parser("forfeit", help="the result is LOSER's forfeit (不戦敗)")
    fo.add_argument("round", type=int)
    fo.add_argument("table", type=int)
    fo.add_argument("loser")
    cl = csub.add_parser("clear", help="undo a result or a forfeit of the current round")
    cl.add_argument("round", type=int)
    cl.add_argument("table", type=int)
    re_ = csub.add_parser("reinstate", help="undo a withdrawal")
    re_.add_argument("name")
    pa = csub.add_parser("pairing", help="re-pair players of the current round by hand")
    pa.add_argument("--table", nargs=2, action="append", default=[],
                    metavar=("BLACK", "WHITE"))
    pa.add_argument("--bye", action="append", default=[])
    c.set_defaults(func=cmd_correct)


def correction_payload(args: argparse.Namespace) -> dict[str, object]:
    payload: dict[str, object] = {"what": args.what, "by": args.by, "why": args.why}
    if args.what in ("result", "colours", "forfeit", "clear"):
        payload.update(round=args.round, table=args.table)
    if args.what == "result":
        payload.update(outcome=args.outcome, discs=_discs(args.table, args.discs),
                       reason=args.reason)
    elif args.what == "forfeit":
        payload["loser"] = args.loser
    elif args.what == "reinstate":
        payload["name"] = args.name
    elif args.what == "pairing":
        payload.update(tables=[list(p) for p in args.table], byes=list(args.bye))
    return payload


def cmd_correct(args: argparse.Namespace) -> int:
    w = _write(args, "correct", correction_payload(args))
    c = w.result if w.reply is None else Correction(
        args.what, **{k: w.reply["correction"][k]
                      for k in ("round", "table", "by", "why", "text")})
    where = "" if c.round is None else f" round {c.round}" + (
        f" table {c.table}" if c.table is not None else "")
    print(f"corrected{where}: {c.text} (by {c.by}: {c.why})")
    _said(w, "")
    return 0


def _read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise TournamentError(f"{path}: {exc.strerror}") from None


def cmd_new(args: argparse.Namespace) -> int:
    from controller.tournament_store import store


    config = parse_event(_read(args.event), str(args.event))
    try:
        data = args.roster.read_bytes()
    except OSError as exc:
        raise TournamentError(f"{args.roster}: {exc.strerror}") from None
    roster = parse_roster(decode_roster(data, str(args.roster)), str(args.roster),
                          config.date)
    t = store.create(args.db, config, roster)
    print(f"{args.db}: {config.division} division, {len(t.present)} players present, "
          f"{len(roster) - len(t.present)} absent")
    _say_extension(t)
    return 0


def _say_extension(t: Tournament) -> None:
    """A field beyond the rules' size is named in every command's output."""
    if t.extension:
        print(f"note: {t.extension}")


def _write(args: argparse.Namespace, kind: str, payload: dict[str, Any]) -> Written:
    from controller.tournament_store.via_hub import write

    return write(args.db, args.hub_token or os.environ.get("KAESHI_HUB_TOKEN"), kind,
                 payload, say=print)


def cmd_lottery(args: argparse.Namespace) -> int:
    w = _write(args, "lottery", {"seeds": list(args.seeds)})
    if w.t is None:
        for number, group, name in (w.reply or {}).get("numbers", []):
            print(f"{number:>4}  {group:1}  {name}")
        return 0
    t = w.t
    for name in sorted(t.present, key=lambda n: t.numbers[n]):
        print(f"{t.numbers[name]:>4}  {t.groups.get(name, ''):1}  {name}")
    _say_extension(t)
    return 0


def cmd_pair(args: argparse.Namespace) -> int:
    from controller.tournament_store import store

    w = _write(args, "pair", {})
    if w.t is None:
        reply = w.reply or {}
        print(reply.get("sheet", ""), end="")
        for note in reply.get("notes", []):
            print(f"note: {note}")
        if args.out:
            write_sheets(args.out, store.load(args.db)[1])
        return 0
    rnd = w.result
    print(formats.pairing_sheet(w.t, rnd, "csv"), end="")
    for note in rnd.notes:
        print(f"note: {note}")
    if args.out:
        write_sheets(args.out, w.t)
    return 0


def _said(w: Written, what: str) -> None:
    """What a write of a result-like action tells the terminal."""
    reply = w.reply
    stored = w.result is not False if reply is None else reply.get("stored", True)
    if not stored:
        print(what)
    if reply is not None and reply.get("paired"):
        print(f"round {reply['paired']} paired by the hub and sent to "
              f"{reply.get('sent', 0)} table(s)")


def cmd_toss(args: argparse.Namespace) -> int:
    _write(args, "toss", {"table": args.table, "black": args.black,
                          "draw_win": args.draw_win})
    return 0


_DISCS = re.compile(r"^(\d{1,3})-(\d{1,3})$")  # the event's board size checks the rest


def _discs(table: int, text: str | None) -> list[int] | None:
    if not text:
        return None
    m = _DISCS.match(text)
    if not m:
        raise TournamentError(f"table {table}: --discs must look like 36-28, not {text!r}")
    return [int(m[1]), int(m[2])]


def cmd_result(args: argparse.Namespace) -> int:
    discs = _discs(args.table, args.discs)
    w = _write(args, "result", {"table": args.table, "outcome": args.outcome,
                                "discs": discs, "reason": args.reason})
    _said(w, f"table {args.table}: the same result was already entered")
    return 0


_CLOCK = re.compile(r"^(\d{1,3}):([0-5]\d)$")


def cmd_late(args: argparse.Namespace) -> int:

    remaining = None
    if args.remaining:
        m = _CLOCK.match(args.remaining)
        if not m:
            raise TournamentError(f"table {args.table}: --remaining must look like 12:30, "
                                  f"not {args.remaining!r}")
        remaining = (int(m[1]) * 60 + int(m[2])) * 1000
    _write(args, "late", {"table": args.table, "player": args.player,
                          "state": args.state, "remaining_ms": remaining})
    return 0


def cmd_forfeit(args: argparse.Namespace) -> int:
    w = _write(args, "forfeit", {"table": args.table, "loser": args.loser})
    _said(w, f"table {args.table}: the same forfeit was already entered")
    return 0


def cmd_standings(args: argparse.Namespace) -> int:
    from controller.tournament_store import formats, store

    _, t = store.load(args.db)
    print(formats.standings_sheet(t, "csv"), end="")
    waiting = waiting_for(t)
    print(f"note: waiting for {waiting}" if waiting else "note: the final ranking")
    _say_extension(t)
    if args.out:
        write_sheets(args.out, t)
    return 0


def cmd_withdraw(args: argparse.Namespace) -> int:
    _write(args, "withdraw", {"name": args.name})
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from controller.tournament_store import formats, store

    config, t = store.load(args.db)
    if args.date is not None:  # the event file gave none, or a wrong one
        config = dataclasses.replace(config, date=check_date(args.date, "--date", needed=True))
    write_sheets(args.out, t)
    (args.out / "event.json").write_text(
        json.dumps(formats.event_json(t), ensure_ascii=False, indent=1), encoding="utf-8")
    try:  # the sheets are written either way; the rating file needs the event's day
        wof = formats.wof_results(t, config)
    except TournamentError as exc:
        print(f"wrote {args.out} without results.wof.txt", file=sys.stderr)
        raise TournamentError(f"{exc}: the WOF format's %%Date: line needs it; "
                              "give it with export --date YYYY-MM-DD") from None
    (args.out / "results.wof.txt").write_text(wof, encoding="utf-8")
    print(f"wrote {args.out}")
    missing = formats.missing_ids(t)
    if missing:
        print(f"warning: results.wof.txt: no federation ID for {len(missing)} player(s) "
              f"({', '.join(missing[:5])}{', …' if len(missing) > 5 else ''}); their "
              "games are left as comments: add a federation_id column to the roster",
              file=sys.stderr)
    _say_extension(t)
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from controller.tournament_store import formats, store
    from controller.tournament_store.hallday import hall_day
    from controller.tournament_store.simulate import SIMULATED_DATE, simulate

    if args.players < 1:
        raise TournamentError("--players must be 1 or more")
    date = check_date(SIMULATED_DATE if args.date is None else args.date, "--date",
                      needed=True)
    args.out.mkdir(parents=True, exist_ok=True)
    day = None
    if args.hall:
        db = args.out / "event.sqlite"
        db.unlink(missing_ok=True)
        t, day = hall_day(db, args.players, args.seed, args.division, args.extend,
                          args.size, date)
    else:
        t = simulate(args.players, args.division, args.seed, extend=args.extend,
                     size=args.size)
    data = formats.event_json(t, [f"{(t.seed or 0):015d}"[k:k + 5] for k in (0, 5, 10)])
    (args.out / "event.json").write_text(json.dumps(data, ensure_ascii=False, indent=1),
                                         encoding="utf-8")
    config = (store.load(args.out / "event.sqlite")[0] if args.hall else
              EventConfig(name=t.name, division=args.division, date=date, country="JPN",
                          sender="kaeshi", size=args.size))
    (args.out / "results.wof.txt").write_text(formats.wof_results(t, config), encoding="utf-8")
    write_sheets(args.out, t)
    print(f"{args.out / 'event.json'}: {len(t.present)} players, {len(t.rounds)} rounds, "
          f"winner {t.final_ranking()[0]}")
    if day is not None:
        print(day.text())
    _say_extension(t)
    return 0
