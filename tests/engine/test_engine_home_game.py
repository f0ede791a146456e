"""A whole home game against Kaeshi's own engine at its default level, on the simulated
sensor board (the real firmware on a pseudo-terminal) with the clock running: the
engine is never declared gone, every answer comes within its deadline, and every
engine move is lit on the board before it is carried out."""

from __future__ import annotations

import asyncio
import time

import pytest
from home_table import until
from test_engine_seat import _engine

from controller.engine.own import DEFAULT_LEVEL
from controller.hall.simboard import SimBoard, SimBoardError
from controller.position import Position
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.states import State
from controller.squares import Color, parse_square

#: A short time per move keeps the test quick; the rule under test is the defaults'
#: (the deadline is the time per move plus its grace), whatever the time.
SECONDS = 0.5


def test_a_whole_home_game_against_the_own_engine_at_its_defaults(tmp_path):
    assert defaults()["engine.level"] == DEFAULT_LEVEL
    try:
        sim = SimBoard(eeprom_write_us=0).start()
    except SimBoardError as exc:
        pytest.fail(f"the sensor-board simulator must build and start: {exc}")
    cfg = defaults().replace(**{
        "game.mode": "home", "source.kind": "hall", "source.device": sim.port,
        "journal.path": str(tmp_path / "journal.sqlite"),
        "games.folder": str(tmp_path / "games"), "web.enabled": False,
        "leds.driver": "board", "engine.plays": "white", "engine.time": SECONDS,
    })
    service = Service(cfg)
    service.open()
    asked: list[tuple[float, float, float | None]] = []  # (took, deadline, engine's own)
    lit: list[bool] = []

    def timing(client):
        choose = client.choose

        def timed(game):
            deadline = client.spec.wait(client.spec.budget(game))
            ready = client.status == "ready"  # a start has its own deadline, not counted
            began = time.monotonic()
            move = choose(game)
            if ready:
                asked.append((time.monotonic() - began, deadline, move and move.seconds))
            return move

        client.choose = timed

    async def play(board: str, color: Color) -> None:
        """Lay out the board after a move (or none: a pass) and press the mover's clock."""
        n = len(service.table.core.arbiter.moves)
        if board != service.table.core.arbiter.last_board:
            sim.set_board(board)
            await until(lambda: service.table.core.arbiter.last_board == board)
        service.intake.press(color)
        table = service.table
        await until(lambda: len(table.core.arbiter.moves) > n or table.core.game_over)

    async def scenario():
        sim.set_board("-" * 64)
        task = asyncio.create_task(service.run())
        await until(lambda: service.table.states.state is State.WAITING_FOR_START)
        sim.set_board(Position.start().board_string())
        await until(lambda: service.table.states.state is State.PLAYING)
        service.intake.press(Color.WHITE)  # white starts black's clock
        timing(service.outputs.engine.client)
        while not service.table.core.game_over:
            pos = service.table.core.arbiter.position
            if pos.to_move is Color.BLACK:  # the player: the first legal move, or a pass
                squares = pos.legal_squares()
                after = pos.play(squares[0]) if squares else pos
                await play(after.board_string(), Color.BLACK)
                continue
            await until(lambda: (_engine(service).get("move") or {}).get("stage")
                         in ("put", "press") or service.table.core.game_over, timeout=30)
            move = _engine(service).get("move")
            if move is None:
                continue
            if move["square"] is not None:
                await until(lambda sq=move["square"]: sim.leds()[parse_square(sq)]
                             != (0, 0, 0))
                lit.append(True)
            after = pos if move["square"] is None else pos.play(move["square"])
            await play(after.board_string(), Color.WHITE)
        service.stop()
        await task

    try:
        asyncio.run(scenario())
    finally:
        sim.stop()
    client = service.outputs.engine.client
    moves = service.table.core.arbiter.moves
    whites = [m for m in moves if m.player is Color.WHITE and m.square]
    assert service.table.core.game_over and len(whites) >= 20 and len(lit) == len(whites)
    assert client.spec.level == DEFAULT_LEVEL and client.name.startswith("Kaeshi")
    assert client.problem is None and client.failures == 0 and not client.gone
    assert len(asked) >= len(whites) - 1  # all but the first, which started the engine
    for took, deadline, own in asked:
        assert took < deadline
        # the engine's own account: it answered within the time per move
        assert own is not None and own <= SECONDS
    assert not [e for e in service.table.events if e["event"] == "irregularity"]
    # the clock ran for the engine too
    assert service.table.core.clocks(service.time.now())["white"] < cfg["clock.main"]
