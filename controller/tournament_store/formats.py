"""Printable pairing sheets and standings (HTML, CSV), WOF results text, event.json."""

from __future__ import annotations

import csv
import html
import io
from collections.abc import Sequence
from typing import Any

from controller.tournament.awards import award_list
from controller.tournament.event import Tournament
from controller.tournament.game import Round
from controller.tournament.ranking import KnockoutStanding, OpenStanding
from controller.tournament_store.roster import EventConfig

STYLE = ("body{font-family:sans-serif}table{border-collapse:collapse}"
         "td,th{border:1px solid #444;padding:2px 8px}@media print{h1{font-size:14pt}}")


def _html(title: str, header: list[str], rows: list[list[Any]], notes: list[str]) -> str:
    out = [f"<!doctype html><meta charset='utf-8'><title>{html.escape(title)}</title>",
           f"<style>{STYLE}</style><h1>{html.escape(title)}</h1><table><tr>"]
    out += [f"<th>{html.escape(h)}</th>" for h in header]
    out.append("</tr>")
    for row in rows:
        cells = "".join(f"<td>{html.escape('' if c is None else str(c))}</td>" for c in row)
        out.append(f"<tr>{cells}</tr>")
    out.append("</table>")
    out += [f"<p>{html.escape(n)}</p>" for n in notes]
    return "\n".join(out) + "\n"


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows([["" if c is None else c for c in row] for row in rows])
    return buf.getvalue()


PAIRING_HEADER = ["table", "stage", "group", "black", "white", "伏せ石", "result"]


def pairing_rows(t: Tournament, rnd: Round) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for g in rnd.games:
        result = g.outcome or ""
        if g.discs:
            result += f" {g.discs[0]}-{g.discs[1]}"
        if g.forfeit:
            result += f" (forfeit by {g.loser}, not rated)"
        elif g.late is not None:
            result = f"{result} ({g.late.player} late: {g.late.state})".strip()
        if g.is_bye:
            rows.append(["", g.stage, g.group, g.first, "(bye)", "", "bye"])
            continue
        rows.append([g.table, g.stage, g.group, g.black, g.white, g.toss_by or "elder", result])
    return rows


def pairing_sheet(t: Tournament, rnd: Round, fmt: str) -> str:
    rows = pairing_rows(t, rnd)
    if fmt == "csv":
        return _csv(PAIRING_HEADER, rows)
    s = t.settings
    timing = (f"{s.minutes} minutes each, lost on time; "
              + ("draws stand." if s.draws else "no draws: a 32–32 board goes to the holder "
                 "of the draw-win right (伏せ石)."))
    return _html(f"{t.name} — round {rnd.number}", PAIRING_HEADER, rows, [timing, *rnd.notes])


def standing_table(t: Tournament, standing: Sequence[OpenStanding | KnockoutStanding]
                   ) -> tuple[list[str], list[list[Any]]]:
    opens = [s for s in standing if isinstance(s, OpenStanding)]
    knockouts = [s for s in standing if isinstance(s, KnockoutStanding)]
    rows: list[list[Any]]
    if opens:
        header = ["position", "number", "name", "league", "wins"] + [
            f"criterion {k}" for k in range(2, 9)]
        rows = [[k + 1, s.number, s.name, t.groups.get(s.name), s.wins, *s.criteria]
                for k, s in enumerate(opens)]
    else:
        header = ["position", "number", "name", "place", "wins", "wins before latest",
                  "position before latest"]
        rows = [[k + 1, s.number, s.name, s.place, s.wins, s.wins_before, s.previous_position]
                for k, s in enumerate(knockouts)]
    return header, rows


def standings_sheet(t: Tournament, fmt: str) -> str:
    header, rows = standing_table(t, t.standings())
    if fmt == "csv":
        return _csv(header, rows)
    done = t.completed_rounds()
    return _html(f"{t.name} — standings after round {done}", header, rows,
                 [t.extension] if t.extension else [])


def wof_results(t: Tournament, config: EventConfig) -> str:
    """Results in the WOF rating-list submission text: four header lines, comments
    starting with %, one game per line ``N1 (S1)>(S2) N2 C`` where ``>``, ``<`` or
    ``=`` is the first player's result and C the first player's colour.  Players are
    numbered by lottery number and listed in comments; byes are not rated, so they
    appear only as comments."""
    date = config.date
    if len(date) == 10 and date[4] == "-":
        date = f"{date[8:10]}/{date[5:7]}/{date[0:4]}"
    lines = [f"%%Tournament: {config.name}", f"%%Country: {config.country}",
             f"%%Date: {date}", f"%%Sender: {config.sender}"]
    if t.extension:
        lines.append(f"% {t.extension}")
    lines.append("% Players")
    for name in sorted(t.present, key=lambda n: t.numbers[n]):
        lines.append(f"% {t.numbers[name]} {name}")
    for rnd in t.rounds:
        lines.append(f"% Round {rnd.number}")
        for g in rnd.games:
            if g.is_bye or not g.done:
                if g.is_bye:
                    lines.append(f"% {t.numbers[g.first]} bye")
                continue
            if g.forfeit:  # 不戦敗: no game was played, so nothing is rated (rule 12)
                assert g.winner is not None and g.loser is not None
                lines.append(f"% {t.numbers[g.winner]} wins by forfeit against "
                             f"{t.numbers[g.loser]} (not rated)")
                continue
            assert g.black is not None and g.white is not None
            b, w = g.discs if g.discs else (0, 0)
            op = ">" if g.winner == g.black else "<"
            if g.outcome == "draw":
                op = "="  # a 32-32 board; the draw-win right decided the event result
            lines.append(f"{t.numbers[g.black]} ({b}){op}({w}) {t.numbers[g.white]} B")
    return "\n".join(lines) + "\n"


def _standing_json(s: OpenStanding | KnockoutStanding, position: int) -> dict[str, Any]:
    crit: dict[str, Any]
    if isinstance(s, OpenStanding):
        crit = {"wins": s.wins, **{str(k + 2): v for k, v in enumerate(s.criteria)},
                "number": s.number}
    else:
        crit = {"place": s.place, "wins": s.wins, "wins_before_latest": s.wins_before,
                "position_before_latest": s.previous_position, "number": s.number}
    return {"position": position, "name": s.name, "criteria": crit}


def event_json(t: Tournament, seeds: list[str] | None = None) -> dict[str, Any]:
    players = []
    for p in t.roster:
        players.append({
            "name": p.name, "rank": p.rank, "club": p.club, "seed": p.seed,
            "absent": p.absent, "number": t.numbers.get(p.name),
            "group": t.groups.get(p.name),
            "withdrawn_after_round": t.withdrawn.get(p.name),
        })
    rounds = []
    for rnd in t.rounds:
        games = [{
            "table": g.table, "stage": g.stage, "group": g.group, "first": g.first,
            "second": g.second, "bye": g.is_bye, "black": g.black, "white": g.white,
            "toss_by": g.toss_by, "draw_win": g.draw_win, "colour_chooser": g.colour_chooser,
            "outcome": g.outcome, "winner": g.winner,
            "discs": list(g.discs) if g.discs else None,
            "forfeit": g.forfeit,
            "late": None if g.late is None else {
                "player": g.late.player, "state": g.late.state,
                "remaining_ms": g.late.remaining_ms},
        } for g in rnd.games]
        standing = t.standings_after(rnd.number) if rnd.complete else []
        rounds.append({"round": rnd.number, "notes": rnd.notes, "games": games,
                       "standings": [_standing_json(s, k + 1) for k, s in enumerate(standing)]})
    final: list[dict[str, Any]] = []
    if t.finished:
        wins = {s.name: s.wins for s in t.standings()}
        for a in award_list(t):
            final.append({"place": a.place, "name": a.name, "number": t.numbers[a.name],
                          "wins": wins[a.name], "grade": a.grade, "ouza": a.ouza})
    return {
        "format": "kaeshi-tournament/1", "name": t.name, "division": t.settings.division,
        "settings": {"minutes": t.settings.minutes, "draws": t.settings.draws},
        "seeds": seeds, "seed": t.seed, "players": players, "rounds": rounds,
        "finished": t.finished, "final_ranking": final, "extension": t.extension,
    }
