"""The hub's browser tests open one kind of hall: a live hub with its tables online."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import pytest
from live_hub import TABLES, LiveHub, Table, state

from controller.hall_protocol.protocol import TableState
from controller.hub.results import Director

LiveHall = tuple[LiveHub, dict[int, Table]]
HallOpener = Callable[..., AbstractContextManager[LiveHall]]


@contextmanager
def _open_hall(folder: Path, delay: float = 900.0, director: Director | None = None,
               states: dict[int, TableState] | None = None) -> Iterator[LiveHall]:
    live = LiveHub(folder, delay, director)
    if states is None:
        states = {n: state(n) for n in range(1, TABLES + 1)}
    tables: dict[int, Table] = {}
    try:
        for n in states:
            tables[n] = Table(live.broker, n)
        for t in tables.values():
            assert t.ready.wait(10), f"table {t.n} could not subscribe to its downlink"
            t.online()
            t.publish(states[t.n])
        yield live, tables
    finally:
        for t in tables.values():
            t.close()
        live.close()


@pytest.fixture(scope="session")
def open_hall() -> HallOpener:
    """``with open_hall(folder, delay=, director=, states=) as (live, tables)``: a live
    hub in ``folder`` (the broadcast ``delay`` seconds behind, the ``director``'s event)
    with a table online for each of ``states`` (by default every table, playing round 1)
    having published its state; all of it closed at the end. Session-wide, so that a
    module's hall and a test's alike are opened by it."""
    return _open_hall
