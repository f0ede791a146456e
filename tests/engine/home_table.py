"""A home table on a service, fed by hand: its configuration, the player at it, and
waiting on the service (what the engine's service tests share)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hand_source import QueueSource

from controller.position import Position
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.sources import Reading
from controller.squares import Color, parse_square, squares_of


def home_config(tmp: Path, **extra):
    """A home game against the engine (white, level 1) on a hall board, its files in
    ``tmp``; ``extra`` settings over these."""
    values = {
        "game.mode": "home", "source.kind": "hall", "leds.driver": "web",
        "journal.path": str(tmp / "journal.sqlite"), "games.folder": str(tmp / "games"),
        "web.enabled": False, "web.host": "127.0.0.1", "web.port": 0,
        "engine.plays": "white", "engine.level": 1, "engine.time": 10.0,
    }
    values.update(extra)
    return defaults().replace(**values)


async def until(predicate, timeout=15.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.02)


class Player:
    """Hands over the board: puts a disc, turns discs, presses the clock."""

    def __init__(self, service: Service, source: QueueSource) -> None:
        self.service, self.source = service, source
        self.board = list(Position.start().board_string())

    def show(self) -> None:
        for _ in range(2):  # a raw source: a reading counts once a second agrees
            self.source.queue.put_nowait(Reading(board="".join(self.board)))

    async def start(self) -> None:
        self.show()
        self.source.queue.put_nowait(Reading(press=Color.WHITE))
        await until(lambda: self.service.table.core.started)

    async def move(self, square: str, flips: list[str], color: Color) -> None:
        n = len(self.service.table.core.arbiter.moves)
        self.board[parse_square(square)] = color.symbol
        self.show()
        for sq in flips:
            self.board[parse_square(sq)] = color.symbol
        self.show()
        self.source.queue.put_nowait(Reading(press=color))
        await until(lambda: len(self.service.table.core.arbiter.moves) > n)

    async def own_move(self) -> None:
        """The side to move plays its first legal move, correctly."""
        pos = self.service.table.core.arbiter.position
        sq = pos.legal_squares()[0]
        await self.move(sq, squares_of(pos.flips(sq)), pos.to_move)

