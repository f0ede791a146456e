"""What a table's page is headed with: the event, table and round, and the players.

One text for the header of every view and for the browser's tab, made where the
snapshot is made, so the page, its tab title (set by the server before any script
runs, and kept by the script as the game goes on) and a test read the same words.
A home game says so; a tournament table names what the configuration and the hall
say of it. Every tab title is distinct: the view, or the page, comes first.
"""

from __future__ import annotations

from typing import Any

#: What names the page in the tab after the game's own words.
APP = "Kaeshi"
#: The tab's first word for each view of the table's page.
VIEW_TAB = {"player": "Table", "arbiter": "Arbiter"}


def heading(mode: str, black: str, white: str, *, view: str = "player", event: str = "",
            table: int | None = None, round: int | None = None) -> dict[str, str]:
    """``title`` (the event line), ``players`` (who plays which colour) and ``tab`` (the
    browser tab's title, the view first)."""
    if mode == "home":
        title = " · ".join(x for x in ("Home game", event) if x)
    else:
        parts = [event, f"Table {table}" if table else "", f"Round {round}" if round else ""]
        title = " · ".join(x for x in parts if x) or (
            "Recorded game" if mode == "record" else "Tournament game")
    black, white = black or "Black", white or "White"
    players = f"{black} (black) vs {white} (white)"
    tab = f"{VIEW_TAB.get(view, 'Table')}: {black} vs {white} · {title} — {APP}"
    return {"title": title, "players": players, "tab": tab}


def tab_title(snapshot: dict[str, Any], view: str) -> str:
    """The tab's title for a snapshot (one from a facade without a heading: its names)."""
    given = snapshot.get("heading")
    if isinstance(given, dict) and isinstance(given.get("tab"), str):
        return given["tab"]
    players = snapshot.get("players") or {}
    return heading(str(snapshot.get("mode") or ""), str(players.get("black") or ""),
                   str(players.get("white") or ""), view=view)["tab"]
