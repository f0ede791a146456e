"""A hub order the table holds while a fallen flag is being confirmed (the service's
actions wait for the flag's decision) is carried out, or refused with its reason, once
the decision is made; the table's state goes to the hub after it, not before."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.protocol import DownlinkCommand
from controller.table_link.link import HubLink
from controller.table_link.publisher import LinkSettings
from controller.web.facade import ActionError


class HeldActions:
    """The table's actions while a fall is unconfirmed: each waits for ``decided``."""

    def __init__(self) -> None:
        self.decided = asyncio.Event()
        self.done: list[str] = []

    async def _after_fall(self, name: str, refuse: bool) -> None:
        await self.decided.wait()
        if refuse:
            raise ActionError("the game is over")
        self.done.append(name)

    def pause(self) -> Any:
        return self._after_fall("pause", refuse=False)

    def resume(self) -> Any:
        return self._after_fall("resume", refuse=True)


def _link(tmp_path: Path, actions: HeldActions) -> tuple[HubLink, list[int]]:
    table = SimpleNamespace(config={"journal.path": str(tmp_path / "journal.sqlite")},
                            core=None, game=None)
    service = SimpleNamespace(table=table, facade=actions)
    link = HubLink(service, LinkSettings(BrokerSettings(), 1, "open"))  # type: ignore[arg-type]
    changes: list[int] = []
    link.changed = lambda: changes.append(len(actions.done))  # type: ignore[method-assign]
    return link, changes


def test_a_held_order_is_carried_out_once_the_flag_is_decided(tmp_path, caplog) -> None:
    actions = HeldActions()
    link, changes = _link(tmp_path, actions)

    async def scenario() -> None:
        link.execute(DownlinkCommand("pause", {}, id="a"))
        link.execute(DownlinkCommand("resume", {}, id="b"))
        await asyncio.sleep(0.01)
        assert actions.done == [] and changes == []  # nothing said before the decision
        actions.decided.set()
        while len(changes) < 2:
            await asyncio.sleep(0.001)

    with caplog.at_level(logging.WARNING, logger="kaeshi.hub"):
        asyncio.run(asyncio.wait_for(scenario(), 5))
    assert actions.done == ["pause"] and changes == [1, 1]
    assert "hub order resume not carried out: the game is over" in caplog.text
    assert not link._held_orders
