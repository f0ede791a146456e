"""The engine's service tests sit at one kind of table: a home game, fed by hand."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hand_source import QueueSource
from home_table import Player, home_config

from controller.service.app import Service

Seat = Callable[..., tuple[Service, Player]]


@pytest.fixture
def seat(tmp_path: Path) -> Seat:
    """``seat(**settings)``: the service of :func:`home_table.home_config` in ``tmp_path``
    with ``settings`` over it, opened on a hand-fed source, and the player at it."""

    def open_seat(**settings: Any) -> tuple[Service, Player]:
        source = QueueSource()
        service = Service(home_config(tmp_path, **settings), source=source)
        service.open()
        return service, Player(service, source)

    return open_seat
