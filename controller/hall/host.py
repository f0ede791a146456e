"""The sensor board for an asyncio service: the driver's thread behind async calls.

``open_link(device, baud)`` returns at once; ``items()`` connects (raising a
:class:`~controller.hall.errors.HallError` naming the port if no board answers) and
then yields :class:`~controller.observation.Observation` and
:class:`~controller.hall.link.LinkStatus` objects as they happen. With ``game_size``
smaller than the sensor grid the game is played on the grid's middle: boards are
handed on as the game's, LED pictures and the official position translated the
other way, and a disc outside the game is named (:class:`~controller.hall.window.OffBoard`).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from controller.hall import messages as m
from controller.hall.driver import HallBoard, serial_opener
from controller.hall.leds import MAX_BRIGHTNESS, LedAssignments
from controller.hall.link import LinkState, LinkStatus
from controller.hall.window import GameWindow, OffBoard, grid_size
from controller.observation import Observation

_FINAL = (LinkState.CLOSED, LinkState.PROTOCOL_MISMATCH)


class HallLink:
    def __init__(self, board: HallBoard, window: GameWindow | None = None) -> None:
        self.board = board
        self.window = window or GameWindow(grid_size().n)
        self._closed = False
        self._off: tuple[str, ...] = ()

    async def items(self) -> AsyncIterator[Observation | LinkStatus | OffBoard]:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.board.open)
        while not self._closed:
            item = await loop.run_in_executor(None, self.board.get, 0.1)
            if item is None:
                continue
            if isinstance(item, Observation) and item.board is not None \
                    and not self.window.whole:
                board, off = self.window.game_board(item.board)
                if off.squares != self._off:
                    self._off = off.squares
                    yield off
                item = Observation(item.t, board=board)
            yield item
            if isinstance(item, LinkStatus) and item.state in _FINAL:
                return

    def set_leds(self, assignments: LedAssignments,
                 brightness: float = MAX_BRIGHTNESS) -> None:
        """Queue an LED picture of the game's squares; returns at once (see
        :meth:`HallBoard.set_leds`)."""
        grid = {self.window.grid_square(sq): cell for sq, cell in assignments.items()}
        self.board.set_leds(grid, brightness)

    async def close(self) -> None:
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(None, self.board.close)


def open_link(device: str, baud: int = m.BAUD, game_size: int | None = None,
              **options: Any) -> HallLink:
    """A link to the board on ``device`` for a game of ``game_size`` (default: the whole
    sensor grid); other ``options`` go to :class:`HallBoard`."""
    options.setdefault("opener", serial_opener(baud))
    window = GameWindow(game_size or grid_size().n)
    official = options.get("official_position")
    if official is not None and not window.whole:
        def on_grid() -> Any:
            position = official()
            return None if position is None else window.grid_position(position)
        options["official_position"] = on_grid
    return HallLink(HallBoard(device, **options), window)
