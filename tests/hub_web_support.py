"""Helpers for the hub's web tests: the real store in memory, a fake bus and director.

The bus is the MQTT edge (faked: it records what would be published); the director is
a small stand-in with the protocol's shape (Swiss pairing is not what these tests test).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from served import Served

from controller.hall_protocol.protocol import (
    ClockState,
    DownlinkCommand,
    EventMessage,
    GameResult,
    HubChange,
    TableState,
    encode_state,
)
from controller.hub.results import Confirmed, Pairing, Standing
from controller.hub.store import HubStore
from controller.hub.web import HubWebSettings, build_app
from controller.position import Position
from controller.squares import square_name
from controller.tournament.leaderboard import WINS
from controller.web.embed import EmbeddedServer
from controller.web.gate import Gate

TOKEN = "s3cret-arbiter-token"
START = Position.start().board_string()


class FakeBus:
    """Records every command sent; ``emit`` plays a change as the hub would announce it."""

    def __init__(self) -> None:
        self.sent: list[tuple[int, DownlinkCommand]] = []
        self.listeners: list[Callable[[HubChange], None]] = []

    def subscribe(self, callback: Callable[[HubChange], None]) -> Callable[[], None]:
        self.listeners.append(callback)
        return lambda: self.listeners.remove(callback)

    def send(self, table: int, command: DownlinkCommand) -> None:
        self.sent.append((table, command))

    def emit(self, change: HubChange) -> None:
        for callback in list(self.listeners):
            callback(change)


@dataclass
class FakeDirector:
    """Rounds of fixed pairings; standings by points then disc difference."""

    rounds: dict[int, list[Pairing]]
    round: int | None = 1
    results: dict[tuple[int, int], Confirmed] = field(default_factory=dict)

    def current_round(self) -> int | None:
        return self.round

    def pairings(self, round: int) -> list[Pairing]:
        return list(self.rounds.get(round, []))

    def result(self, round: int, table: int) -> Confirmed | None:
        return self.results.get((round, table))

    def record_result(self, result: Confirmed) -> None:
        self.results[(result.round, result.table)] = result

    def record_toss(self, round: int, table: int, black: str, draw_win: str) -> Pairing:
        pairings = self.rounds[round]
        k = next(i for i, p in enumerate(pairings) if p.table == table)
        p = pairings[k]
        white = p.white if black == p.black else p.black
        pairings[k] = replace(p, black=black, white=white,
                              draw_win_right="black" if draw_win == black else "white")
        return pairings[k]

    def round_complete(self, round: int) -> bool:
        return all((round, p.table) in self.results for p in self.rounds.get(round, []))

    def pair_next_round(self, after: int | None = None) -> list[Pairing]:
        assert self.round is not None
        if after is not None and self.round > after:
            return self.pairings(self.round)
        self.round += 1
        return self.pairings(self.round)

    def standings(self) -> list[Standing]:
        """Wins under the rules' word (a draw is no one's win; no division plays
        draws), ties broken by disc difference as a stand-in for the rules' criteria."""
        wins: dict[str, int] = {}
        discs: dict[str, int] = {}
        for (rnd, table), r in self.results.items():
            p = next(p for p in self.rounds[rnd] if p.table == table)
            for name, mine, theirs, colour in ((p.black, r.black, r.white, "black"),
                                               (p.white, r.white, r.black, "white")):
                wins[name] = wins.get(name, 0) + (r.winner == colour)
                discs[name] = discs.get(name, 0) + mine - theirs
        order = sorted(wins, key=lambda n: (-wins[n], -discs[n], n))
        return [Standing(i + 1, n, wins[n], ((WINS, wins[n]),)) for i, n in enumerate(order)]


def moves_of(squares: list[str], t0: float = 0.0) -> list[dict[str, Any]]:
    """The arbiter's move events of a game played from the start (passes filled in)."""
    pos = Position.start()
    out: list[dict[str, Any]] = []
    t = t0
    for sq in squares:
        if not pos.legal_moves():
            out.append({"t": t, "event": "pass", "player": pos.to_move.value})
            pos = pos.pass_turn()
        flips = pos.flips(sq)
        names = sorted(square_name(i) for i in range(64) if flips >> i & 1)
        out.append({"t": t, "event": "move", "player": pos.to_move.value, "square": sq,
                    "flips": names})
        pos = pos.play(sq)
        t += 1.0
    return out


def board_after(squares: list[str]) -> str:
    pos = Position.start()
    for sq in squares:
        if not pos.legal_moves():
            pos = pos.pass_turn()
        pos = pos.play(sq)
    return pos.board_string()


class Hall:
    """A real in-memory hub store with helpers to play tables into it."""

    def __init__(self) -> None:
        self.store = HubStore(":memory:")
        self._seq: dict[tuple[int, str], int] = {}

    def event(self, table: int, game: str, event: dict[str, Any], received: float) -> None:
        key = (table, game)
        self.store.announce(table, game)  # as the table's state would
        self._seq[key] = self._seq.get(key, 0) + 1
        added = self.store.add_event(EventMessage(table, game, self._seq[key], event), received)
        assert added.value == "stored"

    def state(self, table: int, received: float, *, game: str = "g1", round: int | None = 1,
              black: str = "", white: str = "", board: str = START, service: str = "playing",
              mode: str = "tournament", to_move: str | None = "black",
              clock: ClockState | None = None, flags: list[dict[str, Any]] | None = None,
              result: GameResult | None = None, online: bool = True) -> TableState:
        s = TableState(table, game, round, black or f"Black {table}", white or f"White {table}",
                       mode, service, board, to_move, clock, flags or [], result,
                       self._seq.get((table, game), 0))
        self.store.set_state(s, encode_state(s), received)
        if not online:
            self.store.set_online(table, False, received)
        return s


def serve_hub(hall: Hall, gate: Gate, director: Any = None, event_name: str = ""
              ) -> tuple[EmbeddedServer, Served]:
    """The hub's pages on the hall's store behind ``gate``, served on a free port of
    127.0.0.1 from a thread of their own with the listeners running, as ``kaeshi hub``
    serves them: for tests that talk to it over real sockets (with ``director``, a
    tournament's rounds and results)."""
    app = build_app(hall.store, FakeBus(), director,
                    HubWebSettings(TOKEN, delay=0.0, event_name=event_name))
    app.state.use_gate(gate)
    server = EmbeddedServer(app, "127.0.0.1", 0, gate=gate,
                            before_stop=app.state.close_streams)

    async def start() -> None:
        await server.start()
        app.state.listen()

    return server, Served(start, server.stop)
