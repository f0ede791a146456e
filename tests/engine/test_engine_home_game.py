"""A whole home game against Kaeshi's own engine at its default level, on the clock:
the engine is never declared gone and every answer comes within its deadline."""

from __future__ import annotations

import asyncio
import time

from hand_source import QueueSource
from test_engine_service import Player, _config, _engine, _until

from controller.engine.own import DEFAULT_LEVEL
from controller.service.app import Service
from controller.service.config import defaults
from controller.squares import Color

#: A short time per move keeps the test quick; the rule under test is the defaults'
#: (the deadline is the time per move plus its grace), whatever the time.
SECONDS = 0.5


def test_a_whole_home_game_against_the_own_engine_at_its_defaults(tmp_path):
    assert defaults()["engine.level"] == DEFAULT_LEVEL
    cfg = _config(tmp_path, **{"engine.level": defaults()["engine.level"],
                               "engine.time": SECONDS})
    source = QueueSource()
    service = Service(cfg, source=source)
    service.open()
    player = Player(service, source)
    asked: list[tuple[float, float, float | None]] = []  # (took, deadline, engine's own)

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

    async def scenario():
        task = asyncio.create_task(service.run())
        await player.start()  # black moves first: the engine has not been asked yet
        timing(service.outputs.engine.client)
        while not service.core.game_over:
            pos = service.core.arbiter.position
            n = len(service.core.arbiter.moves)
            if pos.to_move is Color.BLACK:
                if pos.legal_moves():
                    await player.own_move()
                else:  # black must pass: a press without a move
                    source.queue.put_nowait(player_press(Color.BLACK))
                    await _until(lambda n=n: len(service.core.arbiter.moves) > n
                                 or service.core.game_over)
                continue
            await _until(lambda: _engine(service).get("move") is not None
                         or service.core.game_over, timeout=30)
            move = _engine(service).get("move")
            if move is None:
                continue
            if move["square"] is None:  # the engine passes: press its clock
                source.queue.put_nowait(player_press(Color.WHITE))
                await _until(lambda n=n: len(service.core.arbiter.moves) > n
                             or service.core.game_over)
            else:
                await player.move(move["square"], move["flips"], Color.WHITE)
        service.stop()
        await task

    asyncio.run(scenario())
    client = service.outputs.engine.client
    moves = service.core.arbiter.moves
    whites = [m for m in moves if m.player is Color.WHITE]
    assert service.core.game_over and len(whites) >= 20
    assert client.problem is None and client.failures == 0 and not client.gone
    assert len(asked) >= len([m for m in whites if m.square]) - 1
    for took, deadline, own in asked:
        assert took < deadline
        # the engine's own account: it answered within the time per move
        assert own is not None and own <= SECONDS
    # the clock ran for the engine too
    assert service.core.clocks(service.now())["white"] < cfg["clock.main"]


def player_press(color: Color):
    from controller.service.sources import Reading

    return Reading(press=color)
