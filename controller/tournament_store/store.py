"""One event, one SQLite file: the event settings, the roster and the list of actions.

The tournament state is rebuilt by replaying the actions through the pure core,
so an action is only stored after the core has accepted it, and each command
writes in one transaction: a command cut short leaves the file as it was.
Pairings are stored too and compared on replay, so a stored event never changes
its past rounds silently.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from pathlib import Path
from typing import Any

from controller.tournament.event import Tournament
from controller.tournament.model import Player, TournamentError
from controller.tournament_store.roster import EventConfig

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE actions (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL);
"""


def create(path: Path, config: EventConfig, roster: list[Player]) -> Tournament:
    if path.exists():
        raise TournamentError(f"{path} already exists; choose another --db")
    t = Tournament(roster, config.division, config.name, config.extend)
    tmp = path.with_name(path.name + ".new")
    tmp.unlink(missing_ok=True)
    with sqlite3.connect(tmp) as db:
        db.executescript(SCHEMA)
        db.execute("INSERT INTO meta VALUES ('config', ?)", (json.dumps(asdict(config)),))
        db.execute("INSERT INTO meta VALUES ('roster', ?)",
                   (json.dumps([asdict(p) for p in roster], ensure_ascii=False),))
    db.close()
    tmp.replace(path)
    return t


def load(path: Path) -> tuple[EventConfig, Tournament]:
    if not path.exists():
        raise TournamentError(f"{path}: no such event; create it with `kaeshi tournament new`")
    db = sqlite3.connect(path)
    try:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        config = EventConfig(**json.loads(meta["config"]))
        roster = [Player(**p) for p in json.loads(meta["roster"])]
        t = Tournament(roster, config.division, config.name, config.extend)
        for seq, kind, payload in db.execute("SELECT seq, kind, payload FROM actions ORDER BY seq"):
            apply(t, kind, json.loads(payload), check=f"{path} action {seq}")
    except (sqlite3.DatabaseError, KeyError) as exc:
        raise TournamentError(f"{path}: not a readable event file ({exc})") from None
    finally:
        db.close()
    return config, t


def pairing_record(t: Tournament) -> list[list[Any]]:
    assert t.current is not None
    return [[g.stage, g.group, g.first, g.second, g.table] for g in t.current.games]


def apply(t: Tournament, kind: str, payload: dict[str, Any], check: str = "") -> Any:
    """One action through the core; raises (changing nothing stored) when refused."""
    if kind == "lottery":
        return t.draw_lottery(payload["seeds"])
    if kind == "pair":
        rnd = t.pair_next_round()
        if "games" in payload and payload["games"] != pairing_record(t):
            raise TournamentError(f"{check}: round {rnd.number} pairs differently now "
                                  "than when it was stored")
        return rnd
    if kind == "toss":
        return t.record_toss(payload["table"], payload["black"], payload["draw_win"])
    if kind == "result":
        discs = tuple(payload["discs"]) if payload.get("discs") else None
        return t.record_result(payload["table"], payload["outcome"], discs)
    if kind == "withdraw":
        return t.withdraw(payload["name"])
    if kind == "late":
        return t.report_late(payload["table"], payload["player"], payload["state"],
                             payload.get("remaining_ms"))
    if kind == "forfeit":
        return t.record_forfeit(payload["table"], payload["loser"])
    raise TournamentError(f"{check}: unknown action {kind!r}")


def commit(path: Path, t: Tournament, kind: str, payload: dict[str, Any]) -> Any:
    """Apply an action to the loaded event and store it, all or nothing."""
    result = apply(t, kind, payload)
    if kind == "pair":
        payload = {**payload, "games": pairing_record(t)}
    if kind in ("result", "late", "forfeit") and result is False:
        return result  # the same again: nothing to store
    db = sqlite3.connect(path)
    try:
        with db:
            db.execute("INSERT INTO actions (kind, payload) VALUES (?, ?)",
                       (kind, json.dumps(payload, ensure_ascii=False)))
    finally:
        db.close()
    return result
