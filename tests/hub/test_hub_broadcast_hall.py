"""A hall whose one table plays a faulty game: the broadcast answers for every table.

Real processes against a real Mosquitto: ``kaeshi hub`` with its pages and three table
services replaying games through the physical-play simulator. Table 1's game holds an
illegal pass the opponent let stand, a disc left shifted and never put right, and a
board the arbiter accepts from the dashboard. The broadcast is read all the way
through, across a SIGKILL and restart of the hub: it answers 200 for every table every
time, and at the end table 1's move list is the table's own official board after
every move, with the illegal pass marked.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time

import httpx
import pytest

from controller.hub.simulate import Hall
from controller.observation import write_observations
from controller.records import load_games
from controller.service.demo import find_data_dir
from controller.simulator import SimOptions, simulate_game

SPEED = 10.0
GAMES = find_data_dir() / "games" / "wthor" / "WTH_2001.wtb"


def _faulty_game():
    """A real game played with an illegal pass left standing (move 1) and a disc left
    shifted (move 7); found by the simulator's seed, checked here, not assumed."""
    record = load_games(GAMES)[3]
    sim = simulate_game(record, SimOptions(errors=0.15, seed=3))
    kinds = {(k, i.fix) for i in sim.injected for k in i.flags}
    assert ("illegal_pass", "none") in kinds and ("shifted_disc", "none") in kinds
    return sim


def _official_boards(hall: Hall, n: int) -> list[tuple[str, str | None, str]]:
    """(kind, square, official board after it) of every move and pass of table ``n``."""
    path = hall.table_dir(n) / "journal.sqlite"
    with contextlib.closing(sqlite3.connect(path)) as db:
        rows = db.execute("SELECT step, kind, data FROM entries WHERE kind IN "
                          "('event', 'position') ORDER BY seq").fetchall()
    boards = {step: json.loads(d)["board"] for step, kind, d in rows if kind == "position"}
    out = []
    for step, kind, d in rows:
        ev = json.loads(d)
        if kind == "event" and ev["event"] in ("move", "pass"):
            out.append((ev["event"], ev.get("square"), boards[step]))
    return out


@pytest.mark.slow
def test_the_broadcast_answers_for_every_table_through_faults_and_a_hub_restart(tmp_path):
    hall = Hall(tmp_path, 3, SPEED, errors=0.0, seed=11, web=True)
    hall.prepare()
    with (hall.table_dir(1) / "obs.jsonl").open("w", encoding="utf-8") as f:
        write_observations(_faulty_game().observations, f)
    answers: list[int] = []
    tables_seen: list[set[int]] = []

    def poll(url: str) -> dict:
        r = httpx.get(f"{url}/api/broadcast", timeout=10)
        answers.append(r.status_code)
        assert r.status_code == 200, r.text[:300]
        data = r.json()
        tables_seen.append({t["table"] for t in data["tables"]})
        return data

    def url_when_up(timeout: float = 30) -> str:
        end = time.monotonic() + timeout
        while (url := hall.web_url()) is None or not _answers(url):
            assert time.monotonic() < end, "the hub's pages did not come up"
            time.sleep(0.1)
        return url

    hall.broker.start()
    try:
        hall.start_hub()
        hall.start_tables([[1, 2, 3]])
        url = url_when_up()
        accepted = restarted = False
        end = time.monotonic() + 240
        while not hall.compare().finished or not hall.compare().equal:
            assert time.monotonic() < end, "the round did not end"
            poll(url)
            moves = hall.journal_events(1)[1]
            if not accepted and moves >= 12:
                # the arbiter accepts table 1's board as it stands, from the dashboard
                r = httpx.post(f"{url}/api/table/1/accept_board", timeout=10,
                               headers={"authorization": f"Bearer {hall.token}"})
                assert r.status_code == 200, r.text
                accepted = True
            if accepted and not restarted and moves >= 20:
                hall.kill_hub()
                hall.start_hub()
                url = url_when_up()
                restarted = True
            time.sleep(0.2)
        time.sleep(1.5)  # the spectators' snapshot is rebuilt once a second
        final = poll(url)
        own_page = httpx.get(f"{url}/api/broadcast/table/1", timeout=10).json()
    finally:
        hall.stop()
    assert accepted and restarted
    with contextlib.closing(sqlite3.connect(hall.table_dir(1) / "journal.sqlite")) as db:
        rulings = db.execute("SELECT COUNT(*) FROM entries WHERE kind='input' AND "
                             "data LIKE '%\"action\":\"accept\"%'").fetchone()[0]
    assert rulings == 1  # the table carried out the arbiter's acceptance
    assert len(answers) > 20 and set(answers) == {200}
    # once a table is on the broadcast it stays there, whatever another table's game holds
    first_full = next(i for i, seen in enumerate(tables_seen) if seen == {1, 2, 3})
    assert all(seen == {1, 2, 3} for seen in tables_seen[first_full:])
    assert 1 in {t["table"] for t in final["tables"]}
    table1 = own_page
    shown = [(m["kind"], m["square"], m["board"]) for m in table1["moves"]
             if m["kind"] != "board"]
    assert shown == _official_boards(hall, 1)  # as they stood on the board, step by step
    assert any(m["kind"] == "pass" and m.get("illegal") for m in table1["moves"])
    assert table1["result"] is not None and table1["board"] == shown[-1][2]


def _answers(url: str) -> bool:
    try:
        return httpx.get(f"{url}/api/broadcast", timeout=5).status_code == 200
    except httpx.HTTPError:
        return False
