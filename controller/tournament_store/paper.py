"""The paper the hall still needs, printable on A4 from HTML: a 対戦カード per table
for the players to fill in and sign (rule 15), an alphabetical list of who plays at
which table, and a crosstable (wall chart) of every player's rounds."""

from __future__ import annotations

import html
import unicodedata
from typing import Any

from controller.tournament.event import Tournament
from controller.tournament.game import Game, Round
from controller.tournament.leaderboard import WINS, leaderboard
from controller.tournament_store.formats import csv_sheet, html_sheet, note_rows

CARD_STYLE = (
    "@page{size:A4;margin:10mm}body{font-family:sans-serif;margin:0}"
    ".cards{display:grid;grid-template-columns:1fr 1fr;gap:6mm}"
    ".card{border:1.5px solid #000;padding:4mm;break-inside:avoid;page-break-inside:avoid;"
    "height:62mm;box-sizing:border-box}.card h2{font-size:11pt;margin:0 0 2mm}"
    ".card table{width:100%;border-collapse:collapse}"
    ".card td,.card th{border:1px solid #444;padding:1.5mm;font-size:10pt;text-align:left}"
    ".card .box{width:14mm;height:8mm}.card .sign{height:9mm}"
    ".card p{font-size:8pt;margin:1.5mm 0 0}"
    "@media print{.cards{gap:4mm}}")


def _e(text: Any) -> str:
    return html.escape("" if text is None else str(text))


def score_cards(t: Tournament, rnd: Round) -> str:
    """対戦カード: one card a table — who plays which colour, who places the 伏せ石,
    boxes for the draw-win holder, ○/× and the disc count, and both signatures.
    Eight to an A4 page, none split across two."""
    cards = []
    for g in rnd.games:
        if g.table is None:
            continue
        holder = g.draw_win or ""
        rows = "".join(
            f"<tr><th>{colour}</th><td>{_e(name)}</td><td class=box></td>"
            f"<td class=box></td><td class=sign></td></tr>"
            for colour, name in (("黒 Black", g.black), ("白 White", g.white)))
        cards.append(
            f"<div class=card><h2>{_e(t.name)} — 第{rnd.number}回戦 round {rnd.number} — "
            f"table {g.table}</h2><table><tr><th></th><th>name</th><th>○/×</th>"
            f"<th>石数</th><th>署名 signature</th></tr>{rows}</table>"
            f"<p>伏せ石: {_e(g.toss_by or 'the elder')} places the disc · 引き分け勝ち: "
            f"{_e(holder) or '＿＿＿＿＿＿'} · {t.settings.minutes} min each, no draws</p>"
            "<p>Winner: write ○ in your box and × in the loser's; both check and sign; the "
            "winner hands the card in (rule 15).</p></div>")
    title = f"{t.name} — round {rnd.number} — 対戦カード"
    return (f"<!doctype html><meta charset='utf-8'><title>{_e(title)}</title>"
            f"<style>{CARD_STYLE}</style><div class=cards>{''.join(cards)}</div>\n")


def player_list_order(name: str) -> str:
    """A name's place in the alphabetical player list, on paper and on the hall screen:
    full-width and half-width forms are one letter (NFKC) and case does not count, so
    ``ＡＢＥ``, ``Abe`` and ``abe`` sit together."""
    return unicodedata.normalize("NFKC", name).casefold()


PLAYER_HEADER = ["name", "table", "colour", "opponent"]


def player_list(t: Tournament, rnd: Round, fmt: str) -> str:
    """Every player of the round in alphabetical order with their table and colour,
    for the wall by the door."""
    rows: list[list[Any]] = []
    for g in rnd.games:
        if g.is_bye:
            rows.append([g.first, "", "", "(bye)"])
            continue
        rows.append([g.black, g.table, "black", g.white])
        rows.append([g.white, g.table, "white", g.black])
    rows.sort(key=lambda r: player_list_order(str(r[0])))
    if fmt == "csv":
        return csv_sheet(PLAYER_HEADER, rows)
    return html_sheet(f"{t.name} — round {rnd.number} — players A–Z", PLAYER_HEADER, rows,
                      [])


def _cell(t: Tournament, g: Game, name: str) -> str:
    """One player's round: the opponent's lottery number, colour, result."""
    if g.is_bye:
        return "bye +"
    other = g.second if name == g.first else g.first
    assert other is not None
    colour = "●" if name == g.black else "○"
    result = "" if not g.done else ("+" if g.winner == name else "−")
    how = " ff" if g.forfeit else ""
    mark = " *" if g.corrected else ""
    return f"{colour}#{t.numbers[other]} {result}{how}{mark}".strip()


def crosstable(t: Tournament, fmt: str) -> str:
    """The wall chart: every player in ranking order, their opponent (by lottery
    number), colour (● black, ○ white) and result (+ won, − lost, ff forfeit,
    * corrected) round by round."""
    board = leaderboard(t)
    header = ["place" if board.final else "position", "number", "name",
              *(f"R{r.number}" for r in t.rounds), WINS]
    rows: list[list[Any]] = []
    for row in board.rows:
        cells = []
        for rnd in t.rounds:
            g = next((g for g in rnd.games if row.name in (g.first, g.second)), None)
            cells.append("" if g is None else _cell(t, g, row.name))
        rows.append([row.position, row.number, row.name, *cells, row.wins])
    if fmt == "csv":
        return csv_sheet(header, rows + note_rows(t, len(header)))
    notes = ["● black, ○ white, #N the opponent's lottery number; + won, − lost, "
             "ff forfeit, * corrected by the arbiter", *([t.extension] if t.extension else [])]
    return html_sheet(f"{t.name} — crosstable ({board.title})", header, rows, notes)
