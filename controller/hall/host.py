"""The sensor board for an asyncio service: the driver's thread behind async calls.

``open_link(device, baud)`` returns at once; ``items()`` connects (raising a
:class:`~controller.hall.errors.HallError` naming the port if no board answers) and
then yields :class:`~controller.observation.Observation` and
:class:`~controller.hall.link.LinkStatus` objects as they happen.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

from controller.hall import messages as m
from controller.hall.driver import HallBoard, serial_opener
from controller.hall.leds import MAX_BRIGHTNESS, LedAssignments
from controller.hall.link import LinkState, LinkStatus
from controller.observation import Observation

_FINAL = (LinkState.CLOSED, LinkState.PROTOCOL_MISMATCH)


class HallLink:
    def __init__(self, board: HallBoard) -> None:
        self.board = board
        self._closed = False

    async def items(self) -> AsyncIterator[Observation | LinkStatus]:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, self.board.open)
        while not self._closed:
            item = await loop.run_in_executor(None, self.board.get, 0.1)
            if item is None:
                continue
            yield item
            if isinstance(item, LinkStatus) and item.state in _FINAL:
                return

    def set_leds(self, assignments: LedAssignments,
                 brightness: float = MAX_BRIGHTNESS) -> None:
        """Queue an LED picture; returns at once (see :meth:`HallBoard.set_leds`)."""
        self.board.set_leds(assignments, brightness)

    async def close(self) -> None:
        self._closed = True
        await asyncio.get_running_loop().run_in_executor(None, self.board.close)


def open_link(device: str, baud: int = m.BAUD, **options: Any) -> HallLink:
    """A link to the board on ``device``; ``options`` go to :class:`HallBoard`."""
    options.setdefault("opener", serial_opener(baud))
    return HallLink(HallBoard(device, **options))
