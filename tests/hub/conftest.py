"""The hub's browser tests open one kind of hall: a live hub with its tables online."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

import pytest
from devtools import SCREENS, DevTools
from live_hub import LiveHall
from live_hub import open_hall as open_live_hall

HallOpener = Callable[..., AbstractContextManager[LiveHall]]


@pytest.fixture(scope="session")
def open_hall() -> HallOpener:
    """``with open_hall(folder, delay=, director=, states=) as (live, tables)``: a live
    hub in ``folder`` (the broadcast ``delay`` seconds behind, the ``director``'s event)
    with a table online for each of ``states`` (by default every table, playing round 1)
    having published its state; all of it closed at the end. Session-wide, so that a
    module's hall and a test's alike are opened by it."""
    return open_live_hall


@pytest.fixture(params=sorted(SCREENS))
def page(request: pytest.FixtureRequest, browser: DevTools) -> Iterator[DevTools]:
    """The module's Chromium at each of the two screens a person reads the hub on."""
    browser.navigate("about:blank")
    browser.viewport(*SCREENS[request.param])
    yield browser
