"""The service on the sensor board: the real firmware on a pseudo-terminal (SimBoard).

The board is driven by hand, the clock by the clock-button callback the GPIO clock
uses; the test checks the move is judged, the LEDs on the board show it (home mode),
and that pulling the cable is a state the game survives.
"""

from __future__ import annotations

import asyncio

import pytest

from controller.hall.simboard import SimBoard, SimBoardError
from controller.position import Position
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.states import State
from controller.squares import Color, parse_square


async def _until(predicate, timeout=8.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "condition not reached in time"
        await asyncio.sleep(0.02)


def test_service_on_the_simulated_sensor_board(tmp_path):
    try:
        sim = SimBoard(eeprom_write_us=0).start()
    except SimBoardError as exc:
        pytest.fail(f"the sensor-board simulator must build and start: {exc}")
    try:
        cfg = defaults().replace(
            **{
                "game.mode": "home",
                "source.kind": "hall",
                "source.device": sim.port,
                "journal.path": str(tmp_path / "journal.sqlite"),
                "games.folder": str(tmp_path / "games"),
                "web.enabled": False,
                "leds.driver": "board",
            }
        )
        service = Service(cfg)
        service.open()
        start = Position.start()

        async def scenario():
            sim.set_board("-" * 64)
            task = asyncio.create_task(service.run())
            await _until(lambda: service.table.states.state is State.WAITING_FOR_START)
            sim.set_board(start.board_string())
            await _until(lambda: service.table.states.state is State.PLAYING)
            service.intake.press(Color.WHITE)
            sim.place("f5", "black")
            sim.flip("e5")
            after = start.play("f5").board_string()
            await _until(lambda: service.table.core.arbiter.last_board == after)
            # The board reports each change once, settled: pressed right after it is
            # read, the flip is part of the move (no forgotten flip).
            service.intake.press(Color.BLACK)
            await _until(lambda: len(service.table.core.arbiter.moves) == 1)
            # home mode: the last move is lit on the board itself
            await _until(lambda: sim.leds()[parse_square("f5")] != (0, 0, 0))
            sim.unplug()
            await _until(lambda: service.table.states.state is State.SENSOR_LOST)
            sim.replug()
            await _until(lambda: service.table.states.state is State.PLAYING)
            service.stop()
            await task

        asyncio.run(scenario())
        first = service.table.events[0]
        assert first["square"] == "f5" and first["flips"] == ["e5"]
        assert not [e for e in service.table.events if e["event"] == "irregularity"]
        # the sensor board's readings count at once
        assert service.table.core.arbiter.config.settled
    finally:
        sim.stop()
