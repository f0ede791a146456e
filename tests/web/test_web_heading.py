"""The header and tab title of a table's page: the event, the hall's table and round,
the players; a home game says so, and no two views share a tab title."""

from __future__ import annotations

from pathlib import Path

import pytest
from hand_source import QueueSource

from controller.service.app import Service
from controller.service.config import defaults
from controller.web.heading import heading, tab_title


def test_a_tournament_table_is_named_by_its_event_table_and_round() -> None:
    h = heading("tournament", "Ann", "Bob", event="Meijin 2026", table=3, round=2)
    assert h == {"title": "Meijin 2026 · Table 3 · Round 2",
                 "players": "Ann (black) vs Bob (white)",
                 "tab": "Table: Ann vs Bob · Meijin 2026 · Table 3 · Round 2 — Kaeshi"}
    arbiter = heading("tournament", "Ann", "Bob", view="arbiter", event="Meijin 2026",
                      table=3, round=2)["tab"]
    assert arbiter.startswith("Arbiter: ") and arbiter != h["tab"]


@pytest.mark.parametrize(("mode", "title"), [
    ("home", "Home game"), ("tournament", "Tournament game"), ("record", "Recorded game")])
def test_a_table_without_an_event_still_says_what_game_it_is(mode: str, title: str) -> None:
    h = heading(mode, "", "")
    assert h["title"] == title and h["players"] == "Black (black) vs White (white)"
    assert h["tab"] == f"Table: Black vs White · {title} — Kaeshi"


def test_a_snapshot_without_a_heading_gets_its_players_tab() -> None:
    snap = {"mode": "home", "players": {"black": "Ann", "white": ""}}
    assert tab_title(snap, "player") == "Table: Ann vs White · Home game — Kaeshi"


@pytest.mark.parametrize(("mode", "title"), [
    ("home", "Home game · Club night"), ("tournament", "Club night · Table 7")])
def test_the_service_heads_its_page_from_its_configuration(tmp_path: Path, mode: str,
                                                            title: str) -> None:
    cfg = defaults().replace(**{
        "game.mode": mode, "game.black": "Ann", "game.white": "Bob",
        "game.event": "Club night", "hub.table": 7, "source.kind": "hall",
        "journal.path": str(tmp_path / "journal.sqlite"), "games.folder": str(tmp_path / "g"),
        "web.enabled": False, "engine.plays": "none"})
    service = Service(cfg, source=QueueSource())
    service.open()
    for view in ("player", "arbiter"):
        h = service.facade.snapshot(view)["heading"]
        assert h["title"] == title and h["players"] == "Ann (black) vs Bob (white)"
    tabs = {service.facade.snapshot(v)["heading"]["tab"] for v in ("player", "arbiter")}
    assert len(tabs) == 2


def test_the_round_is_the_one_the_hub_paired_this_game_in(tmp_path: Path) -> None:
    """The hall link keeps each game's round (from the hub's next_game); the header
    names it."""
    from types import SimpleNamespace

    cfg = defaults().replace(**{
        "game.mode": "tournament", "game.event": "Meijin 2026", "hub.table": 4,
        "source.kind": "hall", "journal.path": str(tmp_path / "journal.sqlite"),
        "games.folder": str(tmp_path / "g"), "web.enabled": False})
    service = Service(cfg, source=QueueSource())
    service.open()
    assert service.table.game is not None
    service.outputs.hub = SimpleNamespace(rounds={service.table.game.id: 3})  # type: ignore[assignment]
    assert service.facade.snapshot("player")["heading"]["title"] == (
        "Meijin 2026 · Table 4 · Round 3")
    service.outputs.hub = SimpleNamespace(rounds={})  # type: ignore[assignment]
    assert service.facade.snapshot("player")["heading"]["title"] == "Meijin 2026 · Table 4"
