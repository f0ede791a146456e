"""What the operator sees of a simulated hall: it is brought up and taken down as one, its
pages' addresses are said (the arbiter's token only on a terminal), and with ``--web``
it stays up until Ctrl-C. Shared by ``kaeshi hub simulate`` for a round and for an
event."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Protocol

from controller.errors import KaeshiError
from controller.hub.sim_summary import SimulateOptions
from controller.terminal import tell_terminal


class _Started(Protocol):
    def start(self) -> None: ...


class _Process(Protocol):
    def poll(self) -> int | None: ...


class Hall(Protocol):
    """What bringing a simulated hall up and down needs of it
    (:class:`controller.hub.simulate.Hall`)."""

    folder: Path
    token: str

    @property
    def broker(self) -> _Started: ...
    @property
    def hub(self) -> _Process | None: ...

    def prepare(self) -> None: ...
    def start_hub(self) -> None: ...
    def start_tables(self, groups: list[list[int]]) -> None: ...
    def stop(self) -> None: ...
    def web_url(self) -> str | None: ...


def default_groups(tables: int, processes: int = 0) -> list[list[int]]:
    per = max(1, -(-tables // processes)) if processes > 0 else 25
    numbers = list(range(1, tables + 1))
    return [numbers[i:i + per] for i in range(0, tables, per)]


@contextlib.contextmanager
def running(hall: Hall, options: SimulateOptions, tables: int,
            say: Callable[[str], None]) -> Iterator[float]:
    """The hall brought up as an operator does (broker, hub, the pages' addresses with
    ``--web``, then ``tables`` tables) and stopped on the way out; yields the instant
    it started, for the figures."""
    hall.prepare()
    started = time.monotonic()
    hall.broker.start()
    try:
        hall.start_hub()
        if options.web:
            _announce_pages(hall, say)
        hall.start_tables(default_groups(tables, options.processes))
        yield started
    finally:
        hall.stop()


def page_url(hall: Hall, timeout: float = 30.0) -> str:
    """The hub's pages' address once they are up; an error naming its log if they never
    come up (or the hub has exited)."""
    deadline = time.monotonic() + timeout
    while (url := hall.web_url()) is None:
        if time.monotonic() > deadline or (hall.hub is not None and hall.hub.poll() is not None):
            raise KaeshiError(f"the hub's pages did not come up: see {hall.folder / 'hub.log'}")
        time.sleep(0.1)
    return url


def show_until_interrupted(text: str, say: Callable[[str], None]) -> None:
    """With ``--web``: the summary, then the pages stay up for a browser until Ctrl-C."""
    say(text)
    say("the hub's pages stay up until Ctrl-C")
    _until_interrupted()


def _announce_pages(hall: Hall, say: Callable[[str], None], timeout: float = 30.0) -> None:
    """The broadcast's and the dashboard's addresses; the arbiter's token only on a
    terminal (it opens the dashboard), else where it is kept."""
    try:
        url = page_url(hall, timeout)
    except KaeshiError as exc:
        say(str(exc))
        return
    say(f"broadcast: {url}/")
    say(f"dashboard: {url}/arbiter")
    if not tell_terminal(f"arbiter token: {hall.token}  ({url}/arbiter?token={hall.token})"):
        say(f"arbiter token: [web] token in {hall.folder / 'hub.toml'}")


def _until_interrupted() -> None:
    """Wait for Ctrl-C or SIGTERM (the caller then stops the hall)."""
    done = threading.Event()
    old = {sig: signal.signal(sig, lambda *_: done.set())
           for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        while not done.wait(0.5):
            pass
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
