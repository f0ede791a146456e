"""The engine on the table's page: its panel in a real browser, the colour and level
the player picks, and the review page of a finished game."""

from __future__ import annotations

import asyncio
import urllib.error
import urllib.request

import pytest
from devtools import SCREENS
from home_table import Player, until
from test_engine_seat import _engine, _engine_move, _faulty, post_json

from controller.service.app import Service
from controller.squares import Color


def _text(element: str) -> str:
    return f"(document.getElementById('{element}') || {{}}).textContent || ''"


def test_the_page_names_the_engine_and_says_when_it_is_gone(tmp_path, browser, seat):
    marker = tmp_path / "starts"
    service, player = seat(**{"web.enabled": True, "engine.time": 0.3,
                              "engine.command": _faulty("crash", 1, marker)})

    async def scenario():
        task = asyncio.create_task(service.run())
        await until(lambda: bool(service.outputs.url))
        await asyncio.to_thread(browser.navigate, service.outputs.url + "/")
        await player.start()
        await player.own_move()
        await until(lambda: (_engine(service).get("move") or {}).get("stage") == "put")
        square = _engine(service)["move"]["square"]
        await asyncio.to_thread(
            browser.wait_for, f"{_text('engine-move')}.includes('put a white disc on "
            f"{square}')", 10)
        beside = await asyncio.to_thread(browser.js, _text("engine-say"))
        assert beside.startswith(f"Engine (White): put a white disc on {square}")
        # under the board, not far down the page
        gap = await asyncio.to_thread(
            browser.js, "document.getElementById('engine-say').getBoundingClientRect().top - "
            "document.getElementById('board').getBoundingClientRect().bottom")
        assert 0 <= gap < 80
        shown = await asyncio.to_thread(browser.js, _text("engine-status"))
        assert "Kaeshi" in shown and "plays white" in shown  # which engine is playing
        lit = await asyncio.to_thread(
            browser.js, f"document.querySelector('[data-sq=\"{square}\"]').outerHTML")
        assert lit  # the square is on the board the page draws
        await player.move(square, _engine(service)["move"]["flips"], Color.WHITE)
        await player.own_move()
        await _engine_move(player)  # crashed, started again, answered
        await player.own_move()  # crashes again: gone
        await asyncio.to_thread(browser.wait_for,
                                f"{_text('engine-status')}.includes('The engine is gone')", 15)
        await player.own_move()  # white by hand: the game goes on
        service.stop()
        await task

    asyncio.run(scenario())
    assert len(service.table.core.arbiter.moves) == 6
    assert browser.errors == []


def test_the_review_page_of_a_finished_game(tmp_path, data_dir, seat):
    from controller.records import load_games
    from controller.service.games import write_game_files

    game = load_games(data_dir / "games" / "wthor" / "WTH_2001.wtb")[0]
    write_game_files(game, "20260101-120000", tmp_path / "games")

    def get(url: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(url, timeout=60) as r:
                return r.status, r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode()

    def serve(mode: str, paths: list[str]) -> list[tuple[int, str]]:
        service, _ = seat(**{"web.enabled": True, "game.mode": mode,
                             "engine.plays": "none", "engine.level": 1,
                             "journal.path": str(tmp_path / f"{mode}.sqlite")})

        async def scenario():
            task = asyncio.create_task(service.run())
            await until(lambda: bool(service.outputs.url))
            out = [await asyncio.to_thread(get, service.outputs.url + p) for p in paths]
            service.stop()
            await task
            return out

        return asyncio.run(scenario())

    page, ggf, bad = serve("home", ["/review/20260101-120000", "/review/20260101-120000.ggf",
                                    "/review/..%2Fjournal"])
    assert page[0] == 200 and "<svg" in page[1] and "Biggest mistakes" in page[1]
    assert ggf[0] == 200 and "Reviewed by Kaeshi1" in ggf[1]
    assert bad[0] in (400, 404)
    (refused,) = serve("tournament", ["/review/20260101-120000"])
    assert refused[0] == 400 and "rule 21" in refused[1]


def test_the_player_picks_the_engines_colour_and_level_on_the_page(seat):
    service, player = seat(**{"web.enabled": True, "engine.plays": "none"})

    def post(body: dict) -> tuple[int, str]:
        return post_json(service.outputs.url, "/api/engine", body)

    async def scenario():
        task = asyncio.create_task(service.run())
        await until(lambda: bool(service.outputs.url))
        await player.start()
        await player.own_move()  # black
        await asyncio.sleep(0.3)
        assert _engine(service)["move"] is None  # nobody asked the engine to play
        assert (await asyncio.to_thread(post, {"plays": "purple"}))[0] == 400
        assert await asyncio.to_thread(post, {"plays": "white", "level": 3}) == (
            200, '{"ok":true}')
        square = await _engine_move(player)  # white's turn: it plays at once
        service.stop()
        await task
        return square

    square = asyncio.run(scenario())
    assert service.table.core.arbiter.moves[1].square == square
    assert service.outputs.engine.client.name == "Kaeshi3" and _engine(service)["level"] == 3
    assert _engine(service)["level_name"] == "club"  # the own engine's level by strength



async def _engine_move_put_right(service: Service, player: Player, browser,
                                 size: tuple[int, int]) -> tuple[str, str, list[str]]:
    """The engine's move carried out with a flip forgotten, pointed out and put right,
    with what the page says beside the board (and in the flags) at each step."""
    from controller.service.sources import Reading
    from controller.squares import parse_square

    said: list[str] = []

    async def read(expression: str) -> None:
        said.append(await asyncio.to_thread(browser.js, expression))

    task = asyncio.create_task(service.run())
    await until(lambda: bool(service.outputs.url))
    await asyncio.to_thread(browser.navigate, "about:blank")
    await asyncio.to_thread(browser.viewport, *size)
    await asyncio.to_thread(browser.navigate, service.outputs.url + "/")
    await player.start()
    await player.own_move()  # black
    await until(lambda: (_engine(service).get("move") or {}).get("stage") == "put")
    move = _engine(service)["move"]
    asked = service.outputs.engine.asked
    await asyncio.to_thread(browser.wait_for,
                            f"{_text('engine-say')}.startsWith('Engine (White): put')", 10)
    await read(_text("engine-say"))
    forgotten, kept = move["flips"][0], move["flips"][1:]
    await player.move(move["square"], kept, Color.WHITE)  # one flip forgotten
    player.source.queue.put_nowait(Reading(press=Color.BLACK))  # black points it out
    await until(lambda: service.table.core.arbiter.flow().stage == "pointed_out")
    await asyncio.to_thread(browser.wait_for,
                            f"{_text('engine-say')}.includes('not carried out')", 10)
    await read(_text("engine-say"))
    await read("document.querySelector('#irregularities .instruction').textContent")
    await asyncio.sleep(0.3)  # time for a (wrong) second request to go out
    assert service.outputs.engine.asked == asked
    player.board[parse_square(forgotten)] = Color.WHITE.symbol  # put right
    player.show()
    await until(lambda: service.table.core.arbiter.flow().stage == "put_right")
    player.source.queue.put_nowait(Reading(press=Color.WHITE))
    await until(lambda: service.table.core.arbiter.to_move is Color.BLACK
                 and service.table.core.arbiter.phase == "turn")
    await asyncio.to_thread(browser.wait_for, f"{_text('engine-say')}.includes('played')", 10)
    await read(_text("engine-say"))
    await read("document.body.innerText")
    await asyncio.sleep(0.3)
    assert service.outputs.engine.asked == asked  # no second engine move
    assert not await asyncio.to_thread(browser.scrolls_sideways)
    service.stop()
    await task
    return move["square"], forgotten, said


@pytest.mark.parametrize("size", list(SCREENS.values()), ids=list(SCREENS))
def test_an_engine_move_with_a_forgotten_flip_pointed_out_and_fixed_in_the_browser(
        seat, browser, size):
    """What the home player reads beside the board at each step of an engine move
    carried out with a flip forgotten, pointed out and put right: the move to carry
    out; what to fix (never a second engine move); the move done. The engine is asked
    once, and no pass is recorded."""
    service, player = seat(**{"web.enabled": True})
    square, forgotten, said = asyncio.run(
        _engine_move_put_right(service, player, browser, size))
    assert said[0].startswith(f"Engine (White): put a white disc on {square}, then turn ")
    assert said[1].startswith(f"The engine's move {square} was not carried out as shown. "
                              f"Pointed out: White must turn the disc on {forgotten}")
    assert said[2] == (f"Pointed out: White must turn the disc on {forgotten} to white, "
                       "then press White's clock.")
    assert said[3] == f"Engine (White): played {square}."
    assert "put a white disc" not in said[4]  # no second engine move on the page
    assert f"2. {square}" in said[4]  # the move stands as the engine's, numbered once
    assert f"Move 2 White did not turn the disc on {forgotten}. put right" in said[4]
    assert [m.square for m in service.table.core.arbiter.moves].count(None) == 0  # no pass
    assert browser.errors == []
