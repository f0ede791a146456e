"""The paper of an event written to a folder, as ``kaeshi tournament`` writes it after
``pair --out``, ``standings --out``, ``export`` and ``simulate``."""

from __future__ import annotations

from pathlib import Path

from controller.tournament.event import Tournament
from controller.tournament_store import formats, paper


def write_sheets(out: Path, t: Tournament) -> None:
    """Every sheet of the event as it stands into ``out``: each round's pairing sheet,
    player list and score cards, the crosstable, the standings and, once the final is
    played, the prize-giving sheet (HTML for A4, CSV for a spreadsheet)."""
    out.mkdir(parents=True, exist_ok=True)
    for rnd in t.rounds:
        for fmt in ("html", "csv"):
            (out / f"round-{rnd.number}.{fmt}").write_text(
                formats.pairing_sheet(t, rnd, fmt), encoding="utf-8")
            (out / f"players-{rnd.number}.{fmt}").write_text(
                paper.player_list(t, rnd, fmt), encoding="utf-8")
        (out / f"cards-{rnd.number}.html").write_text(paper.score_cards(t, rnd),
                                                      encoding="utf-8")
    if t.rounds:
        for fmt in ("html", "csv"):
            (out / f"crosstable.{fmt}").write_text(paper.crosstable(t, fmt),
                                                   encoding="utf-8")
    if t.seed is not None:
        for fmt in ("html", "csv"):
            (out / f"standings.{fmt}").write_text(formats.standings_sheet(t, fmt),
                                                  encoding="utf-8")
            if t.finished:
                (out / f"prizes.{fmt}").write_text(formats.prize_sheet(t, fmt),
                                                   encoding="utf-8")
