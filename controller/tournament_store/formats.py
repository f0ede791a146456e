"""Printable pairing sheets and standings (HTML, CSV), WOF results text, event.json."""

from __future__ import annotations

import csv
import html
import io
from typing import Any

from controller.boardsize import STANDARD, board_size
from controller.tournament.awards import award_list
from controller.tournament.event import Tournament
from controller.tournament.game import Round
from controller.tournament.leaderboard import WINS, Leaderboard, leaderboard
from controller.tournament.model import TournamentError
from controller.tournament.ranking import KnockoutStanding, OpenStanding
from controller.tournament.verdict import REASON_TEXT
from controller.tournament_store.roster import EventConfig, check_date

STYLE = ("@page{size:A4;margin:12mm}body{font-family:sans-serif}"
         "table{border-collapse:collapse}td,th{border:1px solid #444;padding:2px 8px}"
         "@media print{h1{font-size:14pt}}")


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


#: A cell a spreadsheet would run as a formula (CSV injection); it is written with a
#: leading apostrophe, which spreadsheets show as text and do not display.
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(c: Any) -> Any:
    if c is None:
        return ""
    if isinstance(c, str) and c.startswith(FORMULA_START):
        return "'" + c
    return c


def _csv(header: list[str], rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([csv_cell(h) for h in header])
    w.writerows([[csv_cell(c) for c in row] for row in rows])
    return buf.getvalue()


#: The sheets' table writers, for the other paper (``paper``).
html_sheet = _html
csv_sheet = _csv


PAIRING_HEADER = ["table", "stage", "group", "black", "white", "伏せ石", "result"]


def pairing_rows(t: Tournament, rnd: Round) -> list[list[Any]]:
    rows: list[list[Any]] = []
    for g in rnd.games:
        result = g.outcome or ""
        if g.discs:
            result += f" {g.discs[0]}-{g.discs[1]}"
        if g.forfeit:
            result += f" (forfeit by {g.loser}, not rated)"
        elif g.reason != "normal":
            result += f" ({REASON_TEXT[g.reason]})"
        elif g.late is not None:
            result = f"{result} ({g.late.player} late: {g.late.state})".strip()
        if g.corrected:
            result = f"{result} [corrected]".strip()
        if g.is_bye:
            rows.append(["", g.stage, g.group, g.first, "(bye)", "",
                         "bye [corrected]" if g.corrected else "bye"])
            continue
        rows.append([g.table, g.stage, g.group, g.black, g.white, g.toss_by or "elder", result])
    return rows


def note_rows(t: Tournament, width: int) -> list[list[Any]]:
    """The extension (or small-field variant) the organiser confirmed, as the CSV
    sheets' last line: a sheet read alone still says what it was made under."""
    if not t.extension:
        return []
    return [["note", t.extension, *[""] * (width - 2)]]


def pairing_sheet(t: Tournament, rnd: Round, fmt: str) -> str:
    rows = pairing_rows(t, rnd)
    if fmt == "csv":
        return _csv(PAIRING_HEADER, rows + note_rows(t, len(PAIRING_HEADER)))
    s = t.settings
    size = board_size(t.size)
    half = size.squares // 2
    timing = ((f"on {size.label} boards, " if t.size != STANDARD else "")
              + f"{s.minutes} minutes each, lost on time; "
              + ("draws stand." if s.draws else f"no draws: a level board ({half}–{half}) "
                 "goes to the holder of the draw-win right (伏せ石)."))
    return _html(f"{t.name} — round {rnd.number}", PAIRING_HEADER, rows,
                 [timing, *rnd.notes, *correction_notes(t, rnd.number)])


def correction_notes(t: Tournament, round: int | None = None) -> list[str]:
    """The arbiter's corrections (of one round, or all), as the sheets list them."""
    out = []
    for c in t.corrections:
        if round is not None and c.round != round:
            continue
        where = ("" if c.round is None else f"round {c.round}"
                 + ("" if c.table is None else f" table {c.table}") + ": ")
        out.append(f"corrected — {where}{c.text}; by {c.by}: {c.why}")
    return out


def _shown(v: Any) -> Any:
    if isinstance(v, bool):
        return "出場" if v else ""
    return v


def standing_table(t: Tournament, board: Leaderboard | None = None
                   ) -> tuple[list[str], list[list[Any]]]:
    """The ranking as a table: the final ranking once the final is played."""
    board = board or leaderboard(t)
    group = "league" if t.settings.system == "league" else "group"
    header = ["place" if board.final else "position", "number", "name", group,
              *board.labels]
    rows = [[r.position, r.number, r.name, t.groups.get(r.name),
             *(_shown(v) for _, v in r.criteria)] for r in board.rows]
    return header, rows


def standings_sheet(t: Tournament, fmt: str) -> str:
    board = leaderboard(t)
    header, rows = standing_table(t, board)
    if fmt == "csv":
        return _csv(header, rows + note_rows(t, len(header)))
    notes = [t.extension] if t.extension else []
    notes += correction_notes(t)
    if board.final:
        notes.append("最終順位決定方法: the final's winner 1st, loser 2nd, the third-place "
                     "match's winner 3rd" + (", loser 4th" if t.settings.system == "league"
                                             else "") + f"; then {WINS}, ties in the order of "
                     "the last provisional ranking.")
    return _html(f"{t.name} — {board.title}", header, rows, notes)


PRIZE_HEADER = ["順位", "name", "club", "number", WINS, "段級位", "王座戦"]
DIVISION_NAMES = {"open": "無差別の部", "women": "女子の部", "children": "小学生以下の部"}


def prize_sheet(t: Tournament, fmt: str) -> str:
    """表彰: places, 段級位 and the 王座戦 list of the division, for the prize-giving."""
    board = leaderboard(t)
    if not board.final:
        raise TournamentError("the prize-giving sheet needs the final ranking; "
                              f"{len(t.rounds)} round(s) paired, the final not yet played")
    rows = [[r.position, r.name, t.players[r.name].club, r.number, r.wins, r.grade,
             _shown(r.ouza)] for r in board.rows]
    if fmt == "csv":
        return _csv(PRIZE_HEADER, rows + note_rows(t, len(PRIZE_HEADER)))
    ouza = [r.name for r in board.rows if r.ouza]
    notes = [f"王座戦出場 ({len(ouza)}): " + ("、".join(ouza) if ouza else "none"),
             "・各部門優勝以外の段級位認定は有料"]
    if t.extension:
        notes.insert(0, t.extension)
    division = DIVISION_NAMES.get(t.settings.division, t.settings.division)
    return _html(f"{t.name} — 表彰 {division} (prize-giving)", PRIZE_HEADER, rows, notes)


def missing_ids(t: Tournament) -> list[str]:
    """Players of rated games the roster gives no federation ID for."""
    rated = {n for r in t.rounds for g in r.games if g.rated
             for n in (g.black, g.white) if n is not None}
    return sorted(n for n in rated if not t.players[n].federation_id)


def wof_results(t: Tournament, config: EventConfig) -> str:
    """Results in the WOF rating-list submission text: four header lines, comments
    starting with %, one game per line ``N1 (S1)>(S2) N2 C`` where ``>``, ``<`` or
    ``=`` is the first player's result and C the first player's colour.

    Players are numbered by their federation ID (the roster's ``federation_id``) and
    listed in comments with the romanised name and country.  What is not rated
    stays a comment: byes, forfeits (rule 12), both flags fallen (rule 14), and any
    game of a player without an ID — numbering those by lottery number would credit
    an unrelated rated player."""
    # the format's header names the day DD/MM/YYYY: no file without a real one
    date = check_date(config.date, "results.wof.txt", needed=True)
    date = f"{date[8:10]}/{date[5:7]}/{date[0:4]}"
    lines = [f"%%Tournament: {config.name}", f"%%Country: {config.country}",
             f"%%Date: {date}", f"%%Sender: {config.sender}"]
    if t.extension:
        lines.append(f"% {t.extension}")
    size = board_size(t.size)
    rated_board = t.size == STANDARD
    if not rated_board:  # decision: the rating list is of 8x8 Othello; keep the record
        lines.append(f"% played on {size.a_label} board: the rating list rates 8x8 games "
                     "only, so every game is left as a comment")
    half = size.squares // 2
    lines.append(f"% '=' is a board that ended level ({half}-{half}); no division here "
                 "plays draws, so the event gave the game to the holder of the draw-win "
                 "right (引き分け勝ち), named in the comment before it")
    lines.append("% Players: federation ID, name, romanised name, country, lottery number")

    def pid(name: str) -> str | None:
        return t.players[name].federation_id or None

    for name in sorted(t.present, key=lambda n: t.numbers[n]):
        p = t.players[name]
        lines.append(f"% {p.federation_id or '(no ID)'} {name}"
                     f"{' / ' + p.romanised if p.romanised else ''}"
                     f"{' (' + p.country + ')' if p.country else ''} #{t.numbers[name]}")
    missing = missing_ids(t)
    if missing:
        lines.append(f"% WARNING: no federation ID for {', '.join(missing)}: their games "
                     "are left as comments; add federation_id to the roster and export "
                     "again")
    for rnd in t.rounds:
        lines.append(f"% Round {rnd.number}")
        for g in rnd.games:
            if g.is_bye or not g.done:
                if g.is_bye:
                    lines.append(f"% #{t.numbers[g.first]} {g.first}: bye (not rated)")
                continue
            assert g.black is not None and g.white is not None
            if g.forfeit:  # 不戦敗: no game was played, so nothing is rated (rule 12)
                lines.append(f"% {g.winner} wins by {g.loser}'s forfeit (not rated)")
                continue
            if not g.rated:  # rule 14: both flags fell; the event counts it, no rating
                lines.append(f"% {g.black} - {g.white}: {REASON_TEXT[g.reason]}")
                continue
            b, w = g.discs if g.discs else (0, 0)
            op = ">" if g.winner == g.black else "<"
            if g.outcome == "draw":
                op = "="
                lines.append(f"% {b}-{w}: {g.winner} won by the draw-win right")
            if g.reason != "normal":
                lines.append(f"% next game won {REASON_TEXT[g.reason]}; discs as the "
                             "board stood")
            game = f"{pid(g.black)} ({b}){op}({w}) {pid(g.white)} B"
            if pid(g.black) is None or pid(g.white) is None:
                lines.append(f"% no federation ID: {g.black} ({b}){op}({w}) {g.white}")
                continue
            if not rated_board:
                lines.append(f"% {size.label}: {g.black} ({b}){op}({w}) {g.white}")
                continue
            lines.append(game)
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
            "federation_id": p.federation_id or None, "romanised": p.romanised or None,
            "country": p.country or None,
        })
    rounds = []
    for rnd in t.rounds:
        games = [{
            "table": g.table, "stage": g.stage, "group": g.group, "first": g.first,
            "second": g.second, "bye": g.is_bye, "black": g.black, "white": g.white,
            "toss_by": g.toss_by, "draw_win": g.draw_win, "colour_chooser": g.colour_chooser,
            "outcome": g.outcome, "winner": g.winner,
            "discs": list(g.discs) if g.discs else None,
            "forfeit": g.forfeit, "reason": g.reason, "rated": g.rated,
            "corrected": g.corrected,
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
        "settings": {"minutes": t.settings.minutes, "draws": t.settings.draws,
                     "size": t.size},
        "seeds": seeds, "seed": t.seed, "players": players, "rounds": rounds,
        "finished": t.finished, "final_ranking": final, "extension": t.extension,
        "corrections": [{"what": c.what, "round": c.round, "table": c.table, "by": c.by,
                         "why": c.why, "text": c.text} for c in t.corrections],
    }
