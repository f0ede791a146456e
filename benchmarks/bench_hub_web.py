"""Hub web figures for a hall of 200 tables: what one rebuild of each page's data costs.

The dashboard and the spectators' snapshot are built once per change (or second) and
shared by every open page, so these times bound the hub's web CPU, whatever the number
of viewers. Games are random legal games, stored in the hub's real (in-memory) store.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable

from controller.hall_protocol.protocol import ClockState, EventMessage, TableState, encode_state
from controller.hub.store import HubStore
from controller.hub.web.live import Views
from controller.position import Position

TABLES = 200
T0 = 1_700_000_000.0
DELAY = 900.0


def _hall(rng: random.Random) -> HubStore:
    store = HubStore(":memory:")
    for table in range(1, TABLES + 1):
        pos, seq, t = Position.start(), 0, T0
        while not pos.is_game_over():
            legal = pos.legal_squares()
            if not legal:
                event = {"t": t - T0, "event": "pass", "player": pos.to_move.value}
                pos = pos.pass_turn()
            else:
                sq = rng.choice(legal)
                event = {"t": t - T0, "event": "move", "player": pos.to_move.value,
                         "square": sq, "flips": []}
                pos = pos.play(sq)
            for ev in (event, {"t": t - T0, "event": "clock", "black": 600.0, "white": 600.0,
                               "running": pos.to_move.value}):
                seq += 1
                store.add_event(EventMessage(table, "g", seq, ev), t)
            t += rng.uniform(2, 20)
        state = TableState(table, "g", 1, f"Black {table}", f"White {table}", "tournament",
                           "playing", pos.board_string(), pos.to_move.value,
                           ClockState(300_000, 200_000, pos.to_move.value, t), [], None, seq)
        store.set_state(state, encode_state(state), t)
    return store


def _time(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        runs.append((time.perf_counter() - started) * 1000)
    return statistics.median(runs), max(runs)


def main() -> None:
    store = _hall(random.Random(14))
    now = T0 + DELAY + 600  # ten minutes of every game are visible to spectators
    views = Views(store, None, None, lambda: now, DELAY, 60.0)
    events = store.count_events()
    print(f"hall: {TABLES} tables, {events} stored events")
    started = time.perf_counter()
    views.spectator()
    print(f"spectator snapshot, first build: {(time.perf_counter() - started) * 1000:.0f} ms")
    for name, fn, repeat in (
        ("dashboard snapshot", views.arbiter, 20),
        ("spectator snapshot, next builds", views.spectator, 20),
        ("all-games feed (delayed records)", views.delayed_records, 3),
        ("whole-event export (records)", views.records, 3),
    ):
        median, worst = _time(fn, repeat)
        print(f"{name}: median {median:.1f} ms, max {worst:.1f} ms")
    size = {name: len(json.dumps(fn(), separators=(",", ":"))) / 1024
            for name, fn in (("dashboard", views.arbiter), ("spectator", views.spectator))}
    print(f"dashboard JSON: {size['dashboard']:.0f} kB; spectator JSON: "
          f"{size['spectator']:.0f} kB (its stream sends only the tables that changed)")
    store.close()


if __name__ == "__main__":
    main()
