"""What one table may cost the hub: games it may open, its message budget, its log lines."""

from __future__ import annotations

import json
import logging

from hub_web_support import START, Hall, moves_of

from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.protocol import EventMessage, TableState, encode_event, encode_state
from controller.hall_protocol.topics import Topics
from controller.hub.admission import Admission
from controller.hub.ingest import Hub
from controller.hub.logs import Throttled
from controller.hub.store import UNANNOUNCED_MAX, Added, HubStore
from controller.hub.web.live import Views
from controller.terminal import tell_terminal

MOVE = moves_of(["f5"])[0]
OVER = {"t": 9.0, "event": "game_over", "black": 40, "white": 24, "winner": "black"}


def _ev(game: str, seq: int = 1, event: dict | None = None, table: int = 3) -> EventMessage:
    return EventMessage(table, game, seq, event or MOVE)


def test_a_table_opens_unannounced_games_one_at_a_time_and_only_a_few(tmp_path) -> None:
    store = HubStore(tmp_path / "hub.sqlite")
    # a game played while the hub could not hear the table's state is still taken ...
    assert store.add_event(_ev("offline-1")) is Added.STORED
    # ... but not a second one while the first is unfinished
    assert store.add_event(_ev("bogus-1")) is Added.REFUSED
    assert store.add_event(_ev("offline-1", 2, OVER)) is Added.STORED
    # announced games are the table's word: always taken, whatever else is open
    store.announce(3, "g-announced")
    assert store.add_event(_ev("g-announced")) is Added.STORED
    opened = 1
    for n in range(100):
        game = f"bogus-{n}"
        got = store.add_event(_ev(game))
        if got is Added.STORED:
            opened += 1
            store.add_event(_ev(game, 2, OVER))
    assert opened == UNANNOUNCED_MAX
    # another table is not touched by table 3's noise
    assert store.add_event(_ev("other", table=4)) is Added.STORED
    assert store.games(announced=True) == [(3, "g-announced")]
    store._db.close()
    again = HubStore(tmp_path / "hub.sqlite")  # the limits hold across a restart
    assert again.add_event(_ev("bogus-x")) is Added.REFUSED
    assert again.announced(3, "g-announced") and not again.announced(3, "offline-1")
    # a state naming a game stored unannounced makes it public
    again.announce(3, "offline-1")
    assert (3, "offline-1") in again.games(announced=True)


def test_unannounced_games_never_reach_the_broadcast_but_the_arbiter_sees_them() -> None:
    hall = Hall()
    hall.state(3, 100.0, game="real")
    hall.event(3, "real", MOVE, 101.0)
    assert hall.store.add_event(_ev("bogus-game-3"), 102.0) is Added.STORED  # not announced
    trouble = {"counts": {"unannounced": 1}, "last": "x", "at": 102.0, "games": []}
    views = Views(hall.store, None, None, lambda: 10_000.0, 60.0, 60.0,
                  trouble=lambda t: trouble if t == 3 else None)
    (table,) = views.spectator()["tables"]
    assert table["game"] == "real"
    assert "bogus-game-3" not in json.dumps(views.spectator())
    assert all(r.extra.get("TBL") == "3" for r in views.delayed_records())
    assert len(views.delayed_records()) == 1
    arbiter = views.table(3)
    assert arbiter is not None and arbiter["unannounced"] == ["bogus-game-3"]
    assert arbiter["card"]["trouble"] == trouble
    assert views.arbiter()["tables"][0]["trouble"] == trouble


def test_a_tables_budget_drops_a_flood_and_refills_with_time() -> None:
    now = [0.0]
    adm = Admission(rate=100.0, burst=1000.0, clock=lambda: now[0])
    admitted = sum(adm.admit(3) for _ in range(40_000))  # a burst at one instant
    assert admitted == 1000
    assert adm.admit(4)  # another table has its own budget
    now[0] = 1.0
    assert sum(adm.admit(3) for _ in range(1000)) == 100  # a second's worth


def test_junk_from_one_table_is_a_line_per_ten_seconds_not_forty_thousand(caplog) -> None:
    now = [0.0]
    adm = Admission(clock=lambda: now[0])
    adm.logs = Throttled(logging.getLogger("kaeshi.hub"), every=10.0, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="kaeshi.hub"):
        for i in range(40_000):
            now[0] = i * 0.0005  # 20 s of junk at 2000 a second
            adm.note(3, "junk", "events: not JSON", 1000.0 + now[0])
            if i % 1000 == 0:
                adm.note(5, "gap", "game g seq 9", 1000.0 + now[0])
    lines = [r.getMessage() for r in caplog.records]
    junk = [m for m in lines if m.startswith("table 3:")]
    assert len(junk) == 2  # at 0 s and at 10 s
    assert "and 19999 more like it" in junk[1]
    assert [m for m in lines if m.startswith("table 5:")]  # table 5's own line is not hidden
    assert adm.trouble(3)["counts"] == {"junk": 40_000}


def test_a_secret_is_shown_only_on_a_terminal(tmp_path) -> None:
    with open(tmp_path / "out.log", "w") as f:
        assert tell_terminal("token abc", f) is False
    assert (tmp_path / "out.log").read_text() == ""


def test_a_table_leaving_a_game_midway_for_a_new_one_is_shown_to_the_arbiter() -> None:
    store = HubStore(":memory:")
    hub = Hub(BrokerSettings(), "open-2026", store, client_id="unit-hub")  # never connected
    topics = Topics("open-2026")

    def state(game: str) -> bytes:
        return encode_state(TableState(3, game, 1, "A", "B", "tournament", "playing", START,
                                       "black", None))

    def send(kind: str, payload: bytes) -> None:
        hub._on_message(hub.client, None, _Msg(topics.table(3, kind), payload))  # type: ignore[arg-type]

    send("state", state("g1"))
    send("events", encode_event(_ev("g1")))
    send("state", state("g2"))  # g1 has moves and no end: left midway
    trouble = hub.trouble(3)
    assert trouble is not None and trouble["counts"] == {"abandoned": 1}
    assert trouble["games"] == ["g1"]
    send("events", encode_event(_ev("g2", 1, OVER)))
    send("state", state("g3"))  # g2 ended: moving on is normal
    assert hub.trouble(3)["counts"] == {"abandoned": 1}
    send("events", b"\xffjunk")
    assert hub.trouble(3)["counts"] == {"abandoned": 1, "junk": 1}
    assert store.announced(3, "g3") and hub.trouble(4) is None


class _Msg:
    def __init__(self, topic: str, payload: bytes) -> None:
        self.topic, self.payload = topic, payload
