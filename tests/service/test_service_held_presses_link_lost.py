"""A lost board link is a state: the service says why, and holds the clock's presses.

The failing port is a real pseudo-terminal whose speed cannot be set, as under an
emulator that lacks the ioctl (Errno 38): pyserial's own code runs and fails.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import serial_faults
from hand_source import SettledQueueSource

from controller.position import Position
from controller.service import intake
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.journal import Journal
from controller.service.sources import LinkChange, Reading
from controller.service.states import State
from controller.squares import Color


@pytest.fixture
def unconfigurable_port(monkeypatch: pytest.MonkeyPatch):
    yield from serial_faults.unconfigurable_port(monkeypatch)


def _config(tmp: Path, **extra: Any):
    values = {
        "game.mode": "home", "source.kind": "hall",
        "journal.path": str(tmp / "journal.sqlite"), "games.folder": str(tmp / "games"),
        "web.enabled": False, "display.terminal": False,
    }
    values.update(extra)
    return defaults().replace(**values)


async def _until(predicate, timeout: float = 8.0) -> None:
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.01)


def test_a_port_that_fails_to_configure_is_reported_and_no_press_is_judged(
        tmp_path: Path, unconfigurable_port: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(intake, "RETRY_SECONDS", 0.01)
    service = Service(_config(tmp_path, **{"source.device": unconfigurable_port}))
    service.open()

    async def scenario() -> None:
        task = asyncio.create_task(service.run())
        await _until(lambda: service.table.states.state is State.SENSOR_LOST)
        for color in (Color.WHITE, Color.BLACK, Color.WHITE, Color.BLACK):
            service.intake.press(color)  # the players keep pressing, as in the demo
            await asyncio.sleep(0.05)  # retries of the port run meanwhile
        service.stop()
        await task

    asyncio.run(scenario())
    assert service.table.states.state is State.SENSOR_LOST  # no press brought it "back"
    expected = (f"cannot configure the sensor board port {unconfigurable_port} at 250000 "
                "baud: Function not implemented (errno 38)")
    assert expected in service.table.message
    assert "4 clock presses held until the board is seen again" in service.table.message
    assert service.table.events == []  # no illegal_pass, nothing judged against an unseen board
    assert not service.table.core.arbiter.moves
    journal = Journal(tmp_path / "journal.sqlite")
    try:
        inputs = [e.data for e in journal.entries(service.table.game.id, ("input",))]
        notes = [e.data for e in journal.entries(service.table.game.id, ("note",))]
    finally:
        journal.close()
    assert not [i for i in inputs if "press" in i.get("obs", {})]
    downs = [n for n in notes if n.get("link") == "down"]
    assert len(downs) == 1 and expected in downs[0]["detail"]  # said once, not per retry
    assert [n["held_press"] for n in notes if "held_press" in n] == ["white", "black"] * 2


def _f5() -> str:
    return Position.start().play("f5").board_string()


def _queued_service(tmp: Path) -> tuple[Service, SettledQueueSource]:
    source = SettledQueueSource()
    service = Service(_config(tmp), source=source)
    service.open()
    return service, source


async def _white_starts_then_the_link_goes(
        service: Service, source: SettledQueueSource, why: str) -> asyncio.Task[int]:
    """The opening both held-press stories share: the start position is seen, white starts
    the clock, then the link drops; returns the running service's task, now in SENSOR_LOST."""
    task = asyncio.create_task(service.run())
    source.queue.put_nowait(Reading(board=Position.start().board_string()))
    await _until(lambda: service.table.states.state in (State.PLAYING, State.WAITING_FOR_START))
    service.intake.press(Color.WHITE)
    await _until(lambda: service.table.core.started)
    source.queue.put_nowait(LinkChange(False, why))
    await _until(lambda: service.table.states.state is State.SENSOR_LOST)
    return task


def test_held_presses_are_judged_once_the_board_is_seen_again(tmp_path: Path) -> None:
    """White starts the clock, the cable goes, black plays f5 and presses: the press is
    held; the board after the link's return shows f5, and then the press ends the move."""
    service, source = _queued_service(tmp_path)

    async def scenario() -> None:
        task = await _white_starts_then_the_link_goes(
            service, source, "disconnected: no data for 1 s")
        service.intake.press(Color.BLACK)
        await asyncio.sleep(0.05)
        assert not service.table.core.arbiter.moves and service.table.events == []
        assert "1 clock press held" in service.table.message
        source.queue.put_nowait(LinkChange(True, "reconnected: sensor board back"))
        source.queue.put_nowait(Reading(board=_f5()))
        await _until(lambda: len(service.table.core.arbiter.moves) == 1)
        service.stop()
        await task

    asyncio.run(scenario())
    assert service.table.states.state is State.PLAYING
    assert [(e["event"], e.get("square")) for e in service.table.events] == [("move", "f5")]
    assert len(service.intake.held_presses) == 0
    clocks = service.table.core.clocks(service.table.core.t)
    assert clocks["running"] == "white"  # black's held press ended black's move


def test_a_press_after_the_return_releases_the_held_ones_first(tmp_path: Path) -> None:
    """Back with the board unchanged (no board follows): the held press is judged, against
    the board now seen, before the next press — it was made first."""
    service, source = _queued_service(tmp_path)

    async def scenario() -> None:
        task = await _white_starts_then_the_link_goes(service, source, "disconnected")
        source.queue.put_nowait(Reading(press=Color.BLACK))  # a press from the source too
        await asyncio.sleep(0.05)
        assert len(service.intake.held_presses) == 1 and service.table.events == []
        source.queue.put_nowait(LinkChange(True, "reconnected: board unchanged"))
        await _until(lambda: service.table.states.state is State.PLAYING)
        service.intake.press(Color.WHITE)
        await _until(lambda: len(service.table.events) >= 1)
        service.stop()
        await task

    asyncio.run(scenario())
    assert len(service.intake.held_presses) == 0
    # black pressed without a move (the board came back unchanged): judged as black's
    assert [(e["event"], e.get("player"), e.get("kind")) for e in service.table.events[:2]] == [
        ("pass", "black", None), ("irregularity", "black", "illegal_pass")]
