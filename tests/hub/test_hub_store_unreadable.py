"""A hub started on a store an older version filled with values no reader takes now
(lone surrogates, NaN, a line break and ``]`` in a name) serves every page with 200;
the tables holding them say "unreadable" on their own card, the others are whole."""

from __future__ import annotations

import json
import sqlite3

from hub_web_support import TOKEN, FakeBus, Hall, moves_of
from starlette.testclient import TestClient

from controller.hub.store import HubStore
from controller.hub.web import HubWebSettings, build_app
from controller.records import read_ggf_text

ORIGIN = "http://testserver"
T0 = 1_700_000_000.0
DELAY = 900.0


def older_hubs_store(path) -> None:
    """Tables 1 and 2 play honestly; tables 3 to 5 hold what an older hub let in."""
    hall = Hall()
    hall.store.close()
    hall.store = HubStore(path)
    for table in (1, 2, 3, 4, 5):
        for i, ev in enumerate(moves_of(["f5", "d6", "c3"])):
            hall.event(table, f"g{table}", ev, T0 + i)
        hall.state(table, T0 + 3, game=f"g{table}", black=f"Black {table}")
    hall.store.close()
    db = sqlite3.connect(path)
    # a lone surrogate in a name, in the table's state and in the game's last state
    state = db.execute("SELECT state FROM tables WHERE tbl=3").fetchone()[0]
    bad = state.replace('"Black 3"', '"\\ud800"')
    db.execute("UPDATE tables SET state=? WHERE tbl=3", (bad,))
    db.execute("UPDATE game_states SET state=? WHERE tbl=3", (bad,))
    # a line break and a ']' in a name: the GGF of the whole event once failed on it
    bad = state.replace('"Black 3"', '"A\\nPW[evil]"').replace('"table":3', '"table":4')
    db.execute("UPDATE game_states SET state=? WHERE tbl=4", (bad,))
    db.execute("UPDATE tables SET state=? WHERE tbl=4", (bad,))
    # NaN in a game-over reason and in a clock event (json wrote them as they came)
    over = {"t": 9.0, "event": "game_over", "black": 40, "white": 24, "winner": "black",
            "reason": float("nan")}
    clock = {"t": 9.5, "event": "clock", "black": 5.0, "white": 6.0, "running": None,
             "black_ms": float("nan")}
    for seq, ev in ((4, over), (5, clock)):
        db.execute("INSERT INTO events VALUES (5, 'g5', ?, ?, NULL, ?, NULL, NULL)",
                   (seq, T0 + seq, json.dumps(ev)))
    db.execute("UPDATE games SET last_seq=5 WHERE tbl=5")
    db.commit()
    db.close()


def _refuse(name: str) -> None:
    raise AssertionError(f"{name} in a page: a browser's JSON.parse refuses it")


def test_every_page_answers_200_and_only_the_bad_tables_say_unreadable(tmp_path) -> None:
    path = tmp_path / "hub.sqlite"
    older_hubs_store(path)
    store = HubStore(path)
    now = [T0 + 10 + DELAY]
    settings = HubWebSettings(TOKEN, delay=DELAY, clock=lambda: now[0], event_name="Open",
                              refresh=0.05)
    app = build_app(store, FakeBus(), None, settings)
    with TestClient(app, base_url=ORIGIN) as client:
        pages = ["/", "/board/1", "/board/3", "/api/broadcast", "/api/broadcast/table/1",
                 "/api/broadcast/table/5", "/feed/games.ggf", "/feed/games.json",
                 "/api/standings"]
        for page in pages:
            r = client.get(page)
            assert r.status_code in (200, 404), (page, r.status_code, r.text[:200])
            assert r.status_code == 200 or page.startswith("/api/broadcast/table"), page
        assert client.get(f"/arbiter?token={TOKEN}", follow_redirects=False).status_code == 303
        arbiter = ["/arbiter", "/api/dashboard", "/export/event.ggf",
                   "/export/event-wthor.zip"] + [f"/api/table/{n}" for n in range(1, 6)] + [
                   f"/arbiter/table/{n}" for n in range(1, 6)]
        for page in arbiter:
            r = client.get(page)
            assert r.status_code == 200, (page, r.status_code, r.text[:200])
        cards = {c["table"]: c for c in client.get("/api/dashboard").json()["tables"]}
        assert set(cards) == {1, 2, 3, 4, 5}
        assert "unreadable" in cards[3] and "surrogate" in cards[3]["unreadable"]
        assert "unreadable" in cards[4] and "control character" in cards[4]["unreadable"]
        assert "unreadable" in cards[5] and "g5" in cards[5]["unreadable"]
        assert "unreadable" not in cards[1] and cards[1]["black"] == "Black 1"
        assert "unreadable" not in cards[2] and cards[2]["moves"] == 0
        # the spectators' hall: every table there, nothing a browser cannot parse
        text = client.get("/api/broadcast").text
        assert "\\ud800" not in text
        shown = {t["table"]: t for t in json.loads(text, parse_constant=_refuse)["tables"]}
        assert {1, 2} <= set(shown) and "unreadable" not in shown[1]
        # the event's GGF: one line per game, the honest games in it
        games = read_ggf_text(client.get("/export/event.ggf").text)
        assert {"Black 1", "Black 2"} <= {g.black for g in games}
        assert all("\n" not in g.black for g in games)
        # both streams send their first message
        for stream_page in ("/events/broadcast", "/events/dashboard"):
            with client.stream("GET", stream_page) as stream:
                assert stream.status_code == 200
                first = next(line for line in stream.iter_lines() if line.startswith("data:"))
                json.loads(first[5:])
        app.state.close_streams()
