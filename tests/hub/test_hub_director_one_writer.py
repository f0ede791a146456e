"""One writer per event: while the hub runs the command line goes through it or is
refused naming it; a round's last result and the next pairing are one transaction;
nothing is stored twice, and a restart completes a round left unpaired."""

from __future__ import annotations

import json
import socket
import sqlite3
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
import uvicorn
from hub_web_support import TOKEN, FakeBus, Hall

from controller.cli import main
from controller.hall_protocol.protocol import GameResult, encode_state
from controller.hub.director import TournamentDirector
from controller.hub.results import ResultError
from controller.hub.web import HubWebSettings, build_app
from controller.scorecard import SignOff
from controller.tournament import Player
from controller.tournament.model import TournamentError
from controller.tournament_store import writer
from controller.tournament_store.roster import EventConfig
from controller.tournament_store.store import commit, create, load

T0 = 1_700_000_000.0


def open_event(path: Path) -> None:
    roster = [Player(f"Player {k}", born=str(1960 + k)) for k in range(1, 9)]
    t = create(path, EventConfig("Hall Open", "open", extend=True), roster)
    commit(path, t, "lottery", {"seeds": ["12345", "67890", "13579"]})
    commit(path, t, "pair", {})


def actions(path: Path) -> list[tuple[int, str, dict]]:
    with sqlite3.connect(path) as db:
        rows = db.execute("SELECT seq, kind, payload FROM actions ORDER BY seq").fetchall()
    return [(seq, kind, json.loads(p)) for seq, kind, p in rows]


class RunningHub:
    """The hub's web side on a real port, holding the event's writer lock."""

    def __init__(self, path: Path) -> None:
        self.lock = writer.acquire(path, "kaeshi hub")
        self.director = TournamentDirector(load(path)[1], path)
        self.hall, self.bus = Hall(), FakeBus()
        self.app = build_app(self.hall.store, self.bus, self.director,
                             HubWebSettings(TOKEN, delay=900, clock=lambda: T0 + 10))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{sock.getsockname()[1]}"
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning",
                                                    lifespan="off"))
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [sock]},
                                       daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 15
        while not self.server.started:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        self.lock.announce(self.url)

    def close(self) -> None:
        self.server.should_exit = True
        self.thread.join(10)
        self.lock.release()


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[tuple[Path, RunningHub]]:
    path = tmp_path / "event.sqlite"
    open_event(path)
    running = RunningHub(path)
    try:
        yield path, running
    finally:
        running.close()


def cli(path: Path, *args: str) -> int:
    return main(["tournament", "--db", str(path), *args])


def test_the_command_line_and_the_hub_on_one_event(hub, capsys):
    path, running = hub
    before = path.read_bytes()
    # without the hub's token: refused, naming the hub, nothing written
    assert cli(path, "result", "1", "black", "--discs", "40-24") == 1
    err = capsys.readouterr().err
    assert "kaeshi hub (process " in err and running.url in err
    assert "is its only writer; nothing was written" in err and "--hub-token" in err
    assert path.read_bytes() == before
    # with it: through the hub, stored once
    assert cli(path, "--hub-token", TOKEN, "result", "1", "black", "--discs", "40-24") == 0
    assert "sent through kaeshi hub" in capsys.readouterr().out
    assert cli(path, "--hub-token", TOKEN, "result", "1", "black", "--discs", "40-24") == 0
    assert "the same result was already entered" in capsys.readouterr().out
    # the table signs 20-44 after: the hub holds the one copy, so it is refused there
    p1 = running.director.pairings(1)[0]
    shown = running.hall.state(1, T0, game="r1t1", black=p1.black, white=p1.white,
                               service="game_over", result=GameResult(20, 44, "white"))
    signed = replace(shown, signoff=SignOff(20, 44, "white", True, True))
    running.hall.store.set_state(signed, encode_state(signed), T0 + 1)
    desk = running.app.state.views.desk
    assert desk.take_from_table(running.hall.store.table(1)) is None  # not taken...
    assert "the table signed 20-44 but the director holds 40-24 black" in \
        desk.refused[(1, "r1t1")]  # ...and said, for the arbiter to decide
    assert not desk.awaiting(running.hall.store.table(1))
    with pytest.raises(ResultError, match="already confirmed"):
        desk.confirm(running.hall.store.table(1), game="r1t1")
    # the other tables: two by the command line, the last one from the table itself
    for table in ("2", "3"):
        assert cli(path, "--hub-token", TOKEN, "result", table, "white",
                   "--discs", "20-44") == 0
    p4 = running.director.pairings(1)[3]
    running.hall.state(4, T0, game="r1t4", black=p4.black, white=p4.white,
                       service="game_over", result=GameResult(40, 24, "black"))
    outcome = desk.confirm(running.hall.store.table(4), game="r1t4")
    second = running.director.pairings(2)
    assert second and outcome.next_pairings == second
    assert [n for n, _ in running.bus.sent] == [p.table for p in second]  # each once
    # the last result and the next round went in one transaction: adjacent actions
    rows = actions(path)
    assert [k for _, k, _ in rows[-2:]] == ["result", "pair"]
    # the command line's own pair is refused: round 2 is paired already
    assert cli(path, "--hub-token", TOKEN, "pair") == 1
    assert "round 2 still lacks results" in capsys.readouterr().err
    kinds = [k for _, k, _ in actions(path)]
    assert kinds.count("pair") == 2 and kinds.count("result") == 4
    # a correction through the hub, journaled with who and why
    assert cli(path, "--hub-token", TOKEN, "correct", "--by", "Sato", "--why", "card",
               "result", "1", "2", "black", "--discs", "34-30") == 0
    assert "corrected round 1 table 2" in capsys.readouterr().out
    _, again = load(path)
    assert again.standings() == running.director.t.standings()
    # a second hub on the same file is refused, naming the first
    with pytest.raises(writer.WriterBusy, match="kaeshi hub"):
        writer.acquire(path, "kaeshi hub")


def test_a_copy_read_before_another_write_is_refused(tmp_path):
    path = tmp_path / "event.sqlite"
    open_event(path)
    _, a = load(path)
    _, b = load(path)
    commit(path, a, "result", {"table": 1, "outcome": "black", "discs": [40, 24]})
    with pytest.raises(TournamentError, match="the event changed since it was read"):
        commit(path, b, "result", {"table": 1, "outcome": "white", "discs": [20, 44]})
    assert [k for _, k, _ in actions(path)].count("result") == 1


def test_a_restart_pairs_the_round_left_complete(tmp_path):
    path = tmp_path / "event.sqlite"
    open_event(path)
    _, t = load(path)
    for g in t.current.games:  # the command line: results without the pairing
        commit(path, t, "result", {"table": g.table, "outcome": "black", "discs": [40, 24]})
    director = TournamentDirector(load(path)[1], path)
    paired = director.resume()
    assert paired and {p.round for p in paired} == {2}
    assert TournamentDirector(load(path)[1], path).resume() == []  # never twice
    assert [k for _, k, _ in actions(path)].count("pair") == 2
