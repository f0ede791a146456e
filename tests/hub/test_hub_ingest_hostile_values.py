"""One table's password, every hostile value: the rest of the hall stays whole.

Real processes against a real Mosquitto (the hall's own config): ``kaeshi hub`` with
its pages and three real table services replaying real games. A client holding table
3's password publishes, on table 3's topics, every payload an older hub let in: lone
surrogates and line breaks in names, NaN and 1e308 in clocks and reasons, deep JSON,
times that run backwards, table 1's game republished as its own, more games than the
schedule allows, and a 10 MB message. Every page answers 200 with every table on it,
the arbiter sees what table 3 did and why, and after a broker restart and a hub kill
every real game is in the hub's store exactly as its table journaled it.
"""

from __future__ import annotations

import json
import time
from typing import Any

import httpx
import pytest

from controller.hall_protocol.mqtt import BrokerSettings, make_client
from controller.hall_protocol.protocol import ClockState, TableState, encode_state
from controller.hall_protocol.topics import Topics
from controller.hub.simulate import Hall

START = "-" * 27 + "OX------XO" + "-" * 27
PAGES = ["/", "/api/broadcast", "/feed/games.ggf", "/feed/games.json", "/api/standings",
         "/pairings", "/api/pairings"]
ARBITER_PAGES = ["/api/dashboard", "/export/event.ggf", "/export/event-wthor.zip",
                 "/api/table/1", "/api/table/2", "/api/table/3"]


def hostile_payloads(hall: Hall) -> list[tuple[str, bytes]]:
    """(kind of topic, payload) of everything table 3's password is used to send."""
    good = TableState(3, "bogus-1", 1, "Ann", "Bob", "tournament", "playing", START,
                      "black", ClockState(600_000, 590_000, "black", time.time()))
    state = encode_state(good)
    out: list[tuple[str, bytes]] = [
        ("state", state.replace(b'"Ann"', b'"\\ud800"')),
        ("state", state.replace(b'"Ann"', b'"A\\nPW[evil]"')),
        ("state", state.replace(b'"Ann"', b'"x]y"').replace(b'"bogus-1"', b'"bogus-]"')),
        ("state", state.replace(b'"black_ms":600000', b'"black_ms":NaN')),
        ("state", state.replace(b'"black_ms":600000', b'"black_ms":-5000000')),
        ("state", state.replace(b'"black_ms":600000', b'"black_ms":1e308')),
        ("state", b'{"v":1,"table":3,"x":' + b"[" * 10_000 + b"]" * 10_000 + b"}"),
        ("online", b"\xff"),
    ]
    move = {"t": 50.0, "event": "move", "player": "black", "square": "f5", "flips": ["e5"]}
    over = {"t": 60.0, "event": "game_over", "black": 40, "white": 24, "winner": "black"}
    for bad in ({**over, "reason": "\ud800"}, {**over, "reason": float("nan")},
                {**move, "t": float("inf")}, {**move, "t": -1e308},
                {"t": 5.0, "event": "clock", "black": 1e308, "white": 5.0, "running": None}):
        out.append(("events", json.dumps({"v": 1, "table": 3, "game": "bogus-1", "seq": 1,
                                          "event": bad}).encode()))
    # times that run backwards, in a game of its own
    for seq, t in ((1, 50.0), (2, 10.0)):
        out.append(("events", json.dumps({"v": 1, "table": 3, "game": "bogus-back",
                                          "seq": seq, "event": {**move, "t": t}}).encode()))
    # table 1's game, word for word, as table 3's own (announced first)
    first = next(iter(hall.journal_events(1)[0]), None)
    assert first is not None
    game1 = first[0]
    hub1 = [e for g, e in hall.hub_events().get(1, []) if g == game1]
    out.append(("state", encode_state(TableState(
        3, game1, 1, "Ann", "Bob", "tournament", "playing", START, "black", None))))
    out += _copied_events(hall, game1, hub1)
    # more games than the schedule: each announced by a well-formed state
    for n in range(45):
        out.append(("state", encode_state(TableState(
            3, f"bogus-game-{n}", 1, "Ann", "Bob", "tournament", "playing", START, "black",
            None))))
    return out


def _copied_events(hall: Hall, game: str, events: list[dict[str, Any]]) -> list[tuple[str, bytes]]:
    import contextlib
    import sqlite3

    with contextlib.closing(sqlite3.connect(hall.folder / "hub.sqlite", timeout=10)) as db:
        rows = db.execute("SELECT seq, event, wall, board, to_move FROM events WHERE tbl=1 "
                          "AND game=? ORDER BY seq LIMIT 3", (game,)).fetchall()
    assert rows, "table 1 has no events at the hub yet"
    out = []
    for seq, event, wall, board, to_move in rows:
        d: dict[str, Any] = {"v": 1, "table": 3, "game": game, "seq": seq,
                             "event": json.loads(event)}
        if wall is not None:
            d["wall"] = wall
        if board is not None:
            d["board"], d["to_move"] = board, to_move
        out.append(("events", json.dumps(d).encode()))
    return out


def send_all(hall: Hall, payloads: list[tuple[str, bytes]]) -> None:
    topics = Topics(hall.event)
    settings = BrokerSettings("127.0.0.1", hall.broker.port, "3", hall.broker.passwords["3"])
    client = make_client(settings, f"hostile-values-{time.monotonic_ns()}", clean_session=True)
    client.connect(settings.host, settings.port, keepalive=30)
    client.loop_start()
    try:
        for kind, payload in payloads:
            client.publish(topics.table(3, kind), payload, qos=1).wait_for_publish(5)  # type: ignore[arg-type]
            time.sleep(0.01)
        # 10 MB, retained: the broker refuses it (message_size_limit), keeps and sends none
        client.publish(topics.state(3), b"x" * 10_000_000, qos=0, retain=True)
        time.sleep(0.5)
    finally:
        client.disconnect()
        client.loop_stop()


def pages_whole(url: str, token: str) -> dict[str, Any]:
    auth = {"authorization": f"Bearer {token}"}
    for page in PAGES:
        r = httpx.get(url + page, timeout=30)
        assert r.status_code == 200, (page, r.status_code, r.text[:200])
    for page in ARBITER_PAGES:
        r = httpx.get(url + page, headers=auth, timeout=30)
        assert r.status_code == 200, (page, r.status_code, r.text[:200])
    broadcast = httpx.get(url + "/api/broadcast", timeout=10).json()
    assert {t["table"] for t in broadcast["tables"]} == {1, 2, 3}
    assert "\\ud800" not in json.dumps(broadcast)
    cards = {c["table"]: c for c in
             httpx.get(url + "/api/dashboard", headers=auth, timeout=10).json()["tables"]}
    assert set(cards) == {1, 2, 3}
    assert all("trouble" not in cards[n] and "unreadable" not in cards[n] for n in (1, 2)), \
        [cards[n] for n in (1, 2)]
    return cards


def wait_url(hall: Hall, old: str | None = None) -> str:
    end = time.monotonic() + 30
    while (url := hall.web_url()) is None or url == old:
        assert time.monotonic() < end, "the hub's pages did not come up"
        time.sleep(0.1)
    return url


@pytest.mark.slow
def test_one_tables_hostile_values_leave_the_hall_whole_through_restarts(tmp_path):
    hall = Hall(tmp_path, 3, 20.0, errors=0.03, seed=5, web=True)
    hall.prepare()
    hall.broker.start()
    try:
        hall.start_hub()
        hall.start_tables([[1, 2, 3]])
        url = wait_url(hall)
        end = time.monotonic() + 60
        while min(hall.journal_events(n)[1] for n in (1, 2, 3)) < 4 or len(
                hall.hub_events().get(1, [])) < 3:
            assert time.monotonic() < end, "the tables did not start"
            time.sleep(0.2)
        send_all(hall, hostile_payloads(hall))
        time.sleep(1.5)  # the spectators' snapshot is rebuilt once a second
        cards = pages_whole(url, hall.token)
        counts = cards[3]["trouble"]["counts"]
        assert counts.get("junk", 0) >= 13, counts
        assert counts.get("backwards", 0) >= 1, counts
        if hall.journal_events(3)[0][0][0] != hall.journal_events(1)[0][0][0]:
            # (tables that started in the same second share a game id: then the copy
            # is table 3's own events again, duplicates that change nothing)
            assert counts.get("foreign", 0) >= 1, counts
        assert counts.get("games", 0) >= 1, counts
        # the broker restarts (honest tables say nothing untoward), then the hub is killed
        hall.broker.kill()
        hall.broker.start()
        hall.kill_hub()
        hall.start_hub()
        url = wait_url(hall, url)
        result = hall.wait_complete(timeout=240)
        time.sleep(1.5)
        cards = pages_whole(url, hall.token)
    finally:
        hall.stop()
    assert result.finished and result.equal, result.tables
    log = (hall.folder / "hub.log").read_text(errors="replace")
    assert "Traceback" not in log and "RecursionError" not in log
    # honest tables never look like inventors, broker restart or not
    assert all("table 3:" in line for line in log.splitlines() if "never announced" in line)
    assert log.count("\n") < 100, log[-3000:]
