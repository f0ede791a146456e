"""Rule 21 end to end: during a tournament game nothing a player can reach gives a hint.

The real service plays a real game (fed reading by reading); black forgets to turn a
disc at move 3 and white points it out. After every press the test fetches every URL
a player (or spectator) can reach, keeps an event stream open all game, and watches the
players' LEDs. The arbiter's channel must show the flag at once; the players' must show
no trace of it until the game is over, when the record becomes everyone's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from hand_source import QueueSource
from service_scripts import scripted_log

from controller.service.app import Service
from controller.service.config import defaults
from controller.service.demo import load_one_game
from controller.service.sources import Reading

TOKEN = "tournament-arbiter-7Qx2"
FORGOTTEN_AT = 3
#: What would tell a player about an irregularity, a ruling or the rules' view of the game.
MARKERS = ("forgotten", "irregular", "over_flip", "wrong_color", "illegal", "extra_disc",
           "removed_disc", "shifted", "C[", '"comment"', '"flips"', '"legal"', '"position"',
           '"overlay"', '"flags"', "corrected", "set by the arbiter")
#: Reachable by anyone, whatever the game: they must not change while it runs.
STATIC = ("/", "/index.html", "/static/app.js", "/static/style.css", "/arbiter")
#: Reachable by anyone, following the game.
LIVE = ("/api/state", "/api/state?view=player", "/record.ggf", "/record.ggf?view=player")


def traces(text: str) -> list[str]:
    return [m for m in MARKERS if m in text]


async def until(predicate: Callable[[], bool]) -> None:
    for _ in range(5000):
        if predicate():
            return
        await asyncio.sleep(0.002)
    raise AssertionError("the service did not get there")


@pytest.fixture(scope="module")
def real_game(data_dir: Path) -> Any:
    return load_one_game(data_dir / "games" / "wthor" / "WTH_2001.wtb", 0)


def test_web_tournament_leaks_nothing_to_players_until_the_game_is_over(
    tmp_path: Path, real_game: Any
) -> None:
    log = scripted_log(real_game, forgotten_at=FORGOTTEN_AT)
    config = defaults().replace(**{
        "game.mode": "tournament", "source.kind": "hall", "leds.driver": "web",
        "journal.path": str(tmp_path / "journal.sqlite"), "games.folder": str(tmp_path / "g"),
        "web.enabled": True, "web.host": "127.0.0.1", "web.port": 0, "web.token": TOKEN,
    })
    source = QueueSource()
    service = Service(config, source=source)
    service.open()
    stream: list[dict[str, Any]] = []
    polls: list[dict[str, Any]] = []

    async def follow_stream(client: httpx.AsyncClient) -> None:
        async with client.stream("GET", "/events?view=player") as r:
            assert r.status_code == 200
            async for line in r.aiter_lines():
                if line.startswith("data: "):
                    stream.append({"text": line, "state": json.loads(line[6:])["state"]})

    async def poll(client: httpx.AsyncClient, static: dict[str, bytes]) -> None:
        seen = {path: (await client.get(path)).text for path in LIVE}
        state = json.loads(seen["/api/state"])["state"]
        for path in STATIC:
            assert (await client.get(path)).content == static[path], path
        assert (await client.get("/api/state?view=arbiter")).status_code == 403
        assert (await client.get("/record.ggf?view=arbiter")).status_code == 403
        arbiter = await client.get("/api/state?view=arbiter",
                                   headers={"Authorization": f"Bearer {TOKEN}"})
        polls.append({
            "state": state, "player": seen, "leds": dict(service.outputs.leds.plan),
            "moves": len(json.loads(seen["/api/state"])["moves"]),
            "arbiter_flag": any(f["kind"] == "forgotten_flip"
                                for f in arbiter.json()["irregularities"]),
        })

    async def scenario() -> None:
        run = asyncio.create_task(service.run())
        await until(lambda: service.outputs.url != "")
        async with httpx.AsyncClient(base_url=service.outputs.url, timeout=10) as client:
            static = {path: (await client.get(path)).content for path in STATIC}
            reader = asyncio.create_task(follow_stream(client))
            for obs in log:
                source.queue.put_nowait(Reading(board=obs.board, press=obs.press))
                await until(source.queue.empty)
                if obs.press is not None:
                    await poll(client, static)
            await until(lambda: len(stream) > 0 and stream[-1]["state"] == "game_over")
            reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reader
        service.stop()
        await run

    asyncio.run(scenario())

    # the game was played through, and the players' view followed it
    assert service.table.core is not None and service.table.core.game_over
    assert polls[-1]["state"] == "game_over"
    assert max(p["moves"] for p in polls) == len(real_game.moves)
    # the arbiter's channel had the flag at once, at the press that left the disc unturned
    flagged = next(i for i, p in enumerate(polls) if p["arbiter_flag"])
    assert polls[flagged]["moves"] == FORGOTTEN_AT
    # the players' had no trace of it (nor of anything advisory) while the game ran ...
    running = [p for p in polls if p["state"] != "game_over"]
    assert len(running) > FORGOTTEN_AT + 50
    for p in running:
        for path, text in p["player"].items():
            assert not traces(text), (path, traces(text), p["moves"])
        assert p["leds"] == {}, p["moves"]
    live = [m for m in stream if m["state"] != "game_over"]
    assert len(live) > 50
    for message in live:
        assert not traces(message["text"]), traces(message["text"])
    # ... and once the game is over the record is everyone's, the arbiter's notes included
    final = polls[-1]["player"]["/record.ggf"]
    assert "C[Irregular move (rule 5): Black did not turn" in final
    assert polls[-1]["leds"] == {}
