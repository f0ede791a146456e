"""One event, one SQLite file: the event settings, the roster and the list of actions.

The tournament state is rebuilt by replaying the actions through the pure core,
so an action is only stored after the core has accepted it, and each command
writes in one transaction: a command cut short leaves the file as it was.
Pairings are stored too and compared on replay, so a stored event never changes
its past rounds silently.

One writer at a time (``writer``): every write appends only if the file still ends
where the loaded state does (``Tournament.stored_seq``), so a second writer working
from an older copy is refused instead of storing a result twice or a round that was
already paired; and the last result of a round with the next round's pairing go in
one transaction when the hub asks (``commit(..., pair=True)``).
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict
from pathlib import Path
from typing import Any

from controller.tournament.corrections import correct
from controller.tournament.event import Tournament
from controller.tournament.model import Player, TournamentError
from controller.tournament.verdict import read_discs
from controller.tournament_store.roster import EventConfig

SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE actions (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, payload TEXT NOT NULL);
"""


def create(path: Path, config: EventConfig, roster: list[Player]) -> Tournament:
    if path.exists():
        raise TournamentError(f"{path} already exists; choose another --db")
    t = Tournament(roster, config.division, config.name, config.extend, config.size)
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
        t = Tournament(roster, config.division, config.name, config.extend, config.size)
        for seq, kind, payload in db.execute("SELECT seq, kind, payload FROM actions ORDER BY seq"):
            apply(t, kind, json.loads(payload), check=f"{path} action {seq}")
            t.stored_seq = seq
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
        discs = read_discs(payload.get("table"), payload.get("discs"), t.size)
        return t.record_result(payload["table"], payload["outcome"], discs,
                               payload.get("reason", "normal"))
    if kind == "withdraw":
        return t.withdraw(payload["name"])
    if kind == "late":
        return t.report_late(payload["table"], payload["player"], payload["state"],
                             payload.get("remaining_ms"))
    if kind == "forfeit":
        return t.record_forfeit(payload["table"], payload["loser"])
    if kind == "correct":
        return correct(t, payload)
    raise TournamentError(f"{check}: unknown action {kind!r}")


def commit(path: Path, t: Tournament, kind: str, payload: dict[str, Any],
           pair: bool = False) -> Any:
    """Apply an action to the loaded event and store it, all or nothing.  With
    ``pair``, an action that completes the round stores the next round's pairing in
    the same transaction (a crash leaves both or neither)."""
    result = apply(t, kind, payload)
    if kind == "pair":
        payload = {**payload, "games": pairing_record(t)}
    rows: list[tuple[str, dict[str, Any]]] = []
    if not (kind in ("result", "late", "forfeit") and result is False):
        rows.append((kind, payload))  # else the same again: nothing to store
    problem: TournamentError | None = None
    if pair and kind != "pair" and due_pairing(t):
        try:
            apply(t, "pair", {})
            rows.append(("pair", {"games": pairing_record(t)}))
        except TournamentError as exc:
            problem = exc
    if rows:
        append(path, t, rows)
    if problem is not None:
        raise PairingError(f"{kind} stored; the next round could not be paired: {problem}")
    return result


class PairingError(TournamentError):
    """The action was stored but the next round could not be paired; the loaded state
    may be part-way through that pairing, so reload it."""


def due_pairing(t: Tournament) -> bool:
    """The current round is complete and the event goes on: the next round is due."""
    return (t.seed is not None and t.current is not None and t.current.complete
            and not t.finished)


def append(path: Path, t: Tournament, rows: list[tuple[str, dict[str, Any]]]) -> None:
    """Store ``rows`` after the actions ``t`` holds, in one transaction; refused when
    another writer stored an action since ``t`` was read."""
    db = sqlite3.connect(path, isolation_level=None, timeout=10.0)
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            last = db.execute("SELECT COALESCE(MAX(seq), 0) FROM actions").fetchone()[0]
            if last != t.stored_seq:
                raise TournamentError(
                    f"{path}: the event changed since it was read (action {last} is "
                    f"there, this copy ends at {t.stored_seq}): another program wrote it; "
                    "nothing was stored")
            for kind, payload in rows:
                cur = db.execute("INSERT INTO actions (kind, payload) VALUES (?, ?)",
                                 (kind, json.dumps(payload, ensure_ascii=False)))
                t.stored_seq = cur.lastrowid or t.stored_seq
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
    finally:
        db.close()
