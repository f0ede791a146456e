"""The engine in the running service: it plays its colour at a home table, the page
says when it is gone, and in a tournament it is never started nor consulted."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from hand_source import QueueSource
from home_table import Player, until

from controller.position import Position
from controller.service.app import Service
from controller.service.journal import Journal
from controller.service.sources import Reading
from controller.squares import Color, parse_square
from controller.web.facade import ActionError

FAULTS = Path(__file__).with_name("engine_faults.py")


def _faulty(mode: str, after: int, marker: Path) -> str:
    return f"{sys.executable} {FAULTS} nboard {mode} {after} {marker}"


def post_json(url: str, path: str, body: dict, timeout: float = 10) -> tuple[int, str]:
    """POST ``body`` to the table's page as its own script does (same origin)."""
    req = urllib.request.Request(
        f"{url}{path}", data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Origin": url}, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _engine(service: Service) -> dict:
    return service.facade.snapshot("player").get("engine") or {}


async def _engine_move(player: Player) -> str:
    """Wait for the engine's instruction and carry it out as the LEDs show it."""
    service = player.service
    await until(lambda: (_engine(service).get("move") or {}).get("stage") == "put")
    move = _engine(service)["move"]
    assert service.outputs.led_plan[move["square"]].rgb == (255, 255, 255)  # the square to put
    await player.move(move["square"], move["flips"], Color.WHITE)
    return move["square"]


def test_the_engine_plays_white_at_a_home_table(seat):
    service, player = seat()

    async def scenario():
        task = asyncio.create_task(service.run())
        await player.start()
        played = []
        for _ in range(3):
            await player.own_move()  # black
            played.append(await _engine_move(player))
        hints = await service.facade.ask_hints(heat=True)  # black asks for every move's score
        assert set(hints["scores"]) == set(service.table.core.arbiter.position.legal_squares())
        assert _engine(service)["hints"]["heat"] is True
        service.stop()
        await task
        return played

    played = asyncio.run(scenario())
    whites = [m.square for m in service.table.core.arbiter.moves if m.player is Color.WHITE]
    assert whites == played
    assert service.outputs.engine.client.name.startswith("Kaeshi")
    assert service.table.core.clocks(service.time.now())["white"] < 1200.0  # white's clock ran too


@pytest.mark.parametrize("mode", ["hang", "crash", "garbage"])
def test_an_engine_failing_mid_game_leaves_the_game_going(tmp_path, seat, mode):
    marker = tmp_path / "starts"
    service, player = seat(**{"engine.command": _faulty(mode, 2, marker),
                              "engine.time": 0.3})
    cfg = service.config

    async def scenario():
        task = asyncio.create_task(service.run())
        await player.start()
        for _ in range(2):
            await player.own_move()
            await _engine_move(player)
        await player.own_move()
        # the engine fails, is started again, answers once more (its count starts over)...
        await _engine_move(player)
        await player.own_move()
        await _engine_move(player)
        await player.own_move()
        # ... and fails again: now it is gone, and the page says so
        await until(lambda: _engine(service).get("status") == "gone"
                     and service.table.message.startswith("engine: "))
        snap = service.facade.snapshot("player")
        assert snap["engine"]["gone"] and snap["engine"]["problem"]
        assert "engine" in snap["message"]
        # the player plays white's moves by hand, and the game goes on
        for _ in range(4):
            await player.own_move()
        service.stop()
        await task

    asyncio.run(scenario())
    assert marker.read_text().count("started") == 2
    moves = service.table.core.arbiter.moves
    assert len(moves) == 13 and all(m.square for m in moves)
    # nothing lost: every move is in the journal, and a resume rebuilds them all
    journal = Journal(tmp_path / "journal.sqlite")
    assert sum(e.data["event"] == "move"
               for e in journal.entries(service.table.game.id, ("event",))) == 13
    journal.close()
    resumed = Service(cfg.replace(**{"engine.plays": "none"}), source=QueueSource())
    resumed.open()
    assert [m.square for m in resumed.table.core.arbiter.moves] == [m.square for m in moves]


@pytest.mark.parametrize("mode", ["tournament", "record"])
def test_no_engine_is_started_or_consulted_outside_home(tmp_path, seat, mode):
    marker = tmp_path / "starts"
    service, player = seat(**{"game.mode": mode, "web.enabled": True,
                              "engine.command": _faulty("hang", 99, marker)})

    async def scenario():
        task = asyncio.create_task(service.run())
        await player.start()
        for _ in range(6):  # both sides by hand: white never gets an engine move
            await player.own_move()
        with pytest.raises(ActionError, match="rule 21"):
            await service.facade.ask_hints(heat=False)
        status, body = await asyncio.to_thread(post_json, service.outputs.url, "/api/hint",
                                              {"heat": True}, 5)
        service.stop()
        await task
        return status, body

    status, body = asyncio.run(scenario())
    assert status == 400 and "rule 21" in body
    assert service.outputs.engine is None and not marker.exists()  # never even started
    for view in ("player", "arbiter"):
        snap = service.facade.snapshot(view)
        assert "engine" not in snap
        assert "hints" not in json.dumps(snap)
    assert len(service.table.core.arbiter.moves) == 6


def test_the_engine_playing_black_opens_the_game(seat):
    """Black moves first: the engine is asked as soon as the start position stands."""
    service, player = seat(**{"engine.plays": "black"})

    async def scenario():
        task = asyncio.create_task(service.run())
        await player.start()
        await until(lambda: (_engine(service).get("move") or {}).get("stage") == "put")
        move = _engine(service)["move"]
        await player.move(move["square"], move["flips"], Color.BLACK)
        service.stop()
        await task
        return move["square"]

    first = asyncio.run(scenario())
    assert service.table.core.arbiter.moves[0].square == first
    assert service.table.core.arbiter.moves[0].player is Color.BLACK


def test_a_handicap_game_against_the_engine_at_a_home_table(seat):
    """Two corner discs for black: white (the engine) moves first from that start."""
    service, player = seat(**{"game.handicap": 2})
    player.board = list(Position.handicap(2).board_string())

    async def scenario():
        task = asyncio.create_task(service.run())
        player.show()
        player.source.queue.put_nowait(Reading(press=Color.BLACK))  # black's press starts white
        await until(lambda: service.table.core.started)
        first = await _engine_move(player)
        await player.own_move()
        await _engine_move(player)
        service.stop()
        await task
        return first

    first = asyncio.run(scenario())
    moves = service.table.core.arbiter.moves
    assert [m.player for m in moves] == [Color.WHITE, Color.BLACK, Color.WHITE]
    assert moves[0].square == first and Position.handicap(2).is_legal(first)
    assert service.table.core.record().start == Position.handicap(2)
    resumed = Service(service.config.replace(**{"engine.plays": "none"}), source=QueueSource())
    resumed.open()
    assert resumed.table.core.arbiter.position == service.table.core.arbiter.position



def test_a_forgotten_flip_on_the_engines_move_pointed_out_and_fixed_asks_no_second_move(
        seat):
    """The engine's move carried out with a flip forgotten: once the opponent points it
    out, the page shows what to fix (not a new engine move), and after the fix and the
    press the game goes on with black to move, the engine asked once for that move."""
    service, player = seat()
    source = player.source
    seen: list[str] = []

    async def scenario():
        task = asyncio.create_task(service.run())
        await player.start()
        await player.own_move()  # black
        await until(lambda: (_engine(service).get("move") or {}).get("stage") == "put")
        move = _engine(service)["move"]
        seen.append(move["text"])
        asked = service.outputs.engine.asked
        assert move["flips"], "the engine's first reply turns a disc"
        forgotten, kept = move["flips"][0], move["flips"][1:]
        await player.move(move["square"], kept, Color.WHITE)  # one flip forgotten
        n = len(service.table.core.arbiter.moves)
        source.queue.put_nowait(Reading(press=Color.BLACK))  # black points it out
        await until(lambda: service.table.core.arbiter.flow().stage == "pointed_out")
        await asyncio.sleep(0.3)  # time for a (wrong) second request to go out
        shown = _engine(service)["move"]
        seen.append(shown["text"])
        assert shown["stage"] == "faulty" and shown["square"] == move["square"]
        assert service.outputs.engine.asked == asked
        player.board[parse_square(forgotten)] = Color.WHITE.symbol  # put right
        player.show()
        await until(lambda: service.table.core.arbiter.flow().stage == "put_right")
        source.queue.put_nowait(Reading(press=Color.WHITE))
        await until(lambda: service.table.core.arbiter.to_move is Color.BLACK
                     and service.table.core.arbiter.phase == "turn")
        await asyncio.sleep(0.3)
        assert service.outputs.engine.asked == asked
        assert _engine(service)["move"] is None
        seen.append(_engine(service)["done"]["text"])
        assert len(service.table.core.arbiter.moves) == n
        service.stop()
        await task

    asyncio.run(scenario())
    square = service.table.core.arbiter.moves[-1].square
    assert [m.square for m in service.table.core.arbiter.moves].count(None) == 0  # no pass
    assert seen[0].startswith(f"Engine (White): put a white disc on {square}, then turn ")
    assert seen[1].startswith(f"The engine's move {square} was not carried out as shown. "
                              "Pointed out: White must turn the disc on ")
    assert seen[2] == f"Engine (White): played {square}."
    assert "corrected" in service.table.core.arbiter.moves[-1].comment


def test_the_engines_square_wins_over_the_legal_moves_on_the_leds_and_the_page(seat):
    """Legal moves shown: the engine's square is lit as the square to put, not as one
    legal move among others, on the board's LEDs and on the player's page alike."""
    service, player = seat(**{"leds.show_legal": True})

    async def scenario():
        task = asyncio.create_task(service.run())
        await player.start()
        await player.own_move()  # black; white (the engine) to move, its moves all legal
        await until(lambda: (_engine(service).get("move") or {}).get("stage") == "put")
        square = _engine(service)["move"]["square"]
        legal = service.table.core.arbiter.position.legal_squares()
        assert square in legal and len(legal) > 1
        await until(lambda: service.outputs.led_plan is not None
                     and service.outputs.led_plan[square].rgb == (255, 255, 255))
        plan = service.outputs.led_plan
        others = [sq for sq in legal if sq != square]
        assert all(plan[sq].rgb == (0, 255, 60) for sq in others)  # the rest stay legal marks
        page = service.facade.snapshot("player")["overlay"]
        assert page[square]["rgb"] == [255, 255, 255]
        assert all(page[sq]["rgb"] == [0, 255, 60] for sq in others)
        service.stop()
        await task

    asyncio.run(scenario())
