"""The web server over real sockets, with a facade backed by the real arbiter and clock."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
from collections.abc import AsyncIterator

import pytest
from test_web_support import TOKEN, SimulatedGame

from controller.arbiter import Mode
from controller.records import read_ggf_text
from controller.squares import Color
from controller.web import WebServer, for_view
from controller.web.auth import COOKIE

Response = tuple[int, dict[str, str], bytes]


@contextlib.asynccontextmanager
async def serving(game: SimulatedGame, token: str | None = TOKEN) -> AsyncIterator[WebServer]:
    server = WebServer(game, "127.0.0.1", 0, token)
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


async def fetch(
    server: WebServer,
    path: str,
    method: str = "GET",
    headers: dict[str, str] | None = None,
    body: bytes = b"",
    raw: bytes | None = None,
) -> Response:
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    if raw is None:
        head = {"Host": "localhost", "Content-Length": str(len(body)), **(headers or {})}
        lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in head.items()]
        raw = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
    writer.write(raw)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 5)
    writer.close()
    head_text, _, payload = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head_text.decode("latin-1").split("\r\n")
    hdrs = {}
    for line in header_lines:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return int(status_line.split()[1]), hdrs, payload


def bearer(token: str = TOKEN) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def run(coro_fn, *args):  # noqa: ANN001, ANN201 - tiny test helper
    return asyncio.run(coro_fn(*args))


def flagged_game(mode: Mode) -> SimulatedGame:
    game = SimulatedGame(mode)
    game.start_clock()
    game.play("f5", forget=("e5",))
    return game


# ----------------------------------------------------------------------- pages
def test_web_player_page_is_self_contained() -> None:
    async def go() -> None:
        async with serving(SimulatedGame()) as srv:
            status, hdrs, body = await fetch(srv, "/")
            assert status == 200 and hdrs["content-type"].startswith("text/html")
            page = body.decode()
            assert 'data-view="player"' in page
            assert not re.search(r"(src|href)=\"(https?:)?//", page)  # no CDN, nothing remote
            assert "default-src 'self'" in hdrs["content-security-policy"]
            for asset in ("/static/app.js", "/static/style.css"):
                status, hdrs, body = await fetch(srv, asset)
                assert status == 200 and body
                assert b"http://" not in body and b"https://" not in body
            assert (await fetch(srv, "/static/../server.py"))[0] == 404
            assert (await fetch(srv, "/nope"))[0] == 404
            assert (await fetch(srv, "/", method="DELETE"))[0] == 405

    run(go)


def test_web_malformed_requests_get_clear_errors() -> None:
    async def go() -> None:
        async with serving(SimulatedGame()) as srv:
            status, _, body = await fetch(srv, "", raw=b"NONSENSE\r\n\r\n")
            assert status == 400 and b"malformed request line" in body
            status, _, body = await fetch(srv, "/api/state?view=judge")
            assert status == 400 and b"unknown view" in body
            big = {"Content-Length": str(10**7)}
            status, _, body = await fetch(srv, "/api/arbiter/pause", "POST", big)
            assert status == 413
            # the server is still serving
            assert (await fetch(srv, "/api/state"))[0] == 200

    run(go)


# ------------------------------------------------------------ what each view shows
@pytest.mark.parametrize("mode", [Mode.TOURNAMENT, Mode.RECORD])
def test_web_player_view_carries_no_advice_outside_home(mode: Mode) -> None:
    game = flagged_game(mode)
    assert game.snapshot("player")["irregularities"]  # the facade would leak ...

    async def go() -> None:
        async with serving(game) as srv:
            status, _, body = await fetch(srv, "/api/state?view=player")
            assert status == 200
            text = body.decode()
            snap = json.loads(text)
            assert [m["square"] for m in snap["moves"]] == ["f5"]
            for word in ("forgotten", "irregularit", "e5", "flips", "legal", "position", "overlay"):
                assert word not in text, word  # ... the server does not
            assert snap["to_move"] == "white"  # from the clock, not the rules engine
            assert snap["counts"] == {"black": 3, "white": 2}  # as on the board, e5 unturned

    run(go)


def test_web_player_to_move_never_reveals_a_forced_pass() -> None:
    snap = {
        "mode": "tournament",
        "to_move": "black",  # white has no legal move: black moves again
        "clocks": {"running": "white", "black": 1.0, "white": 2.0},
        "moves": [],
        "events": [],
    }
    assert for_view(snap, "player")["to_move"] == "white"


def test_web_player_counts_are_what_stands_on_the_board() -> None:
    board = "-" * 27 + "Ox" + "-" * 6 + "XO?" + "-" * 26
    snap = {"mode": "tournament", "board": board, "counts": {"black": 4, "white": 1}}
    assert for_view(snap, "player")["counts"] == {"black": 2, "white": 2}
    assert for_view({**snap, "mode": "home"}, "player")["counts"] == {"black": 4, "white": 1}


def test_web_home_player_sees_flags_and_arbiter_always_does() -> None:
    async def go() -> None:
        async with serving(flagged_game(Mode.HOME)) as srv:
            snap = json.loads((await fetch(srv, "/api/state?view=player"))[2])
            assert snap["irregularities"][0]["kind"] == "forgotten_flip"
            assert snap["overlay"]["e5"]["pattern"] == "slow_blink"
        async with serving(flagged_game(Mode.TOURNAMENT)) as srv:
            assert (await fetch(srv, "/api/state?view=arbiter"))[0] == 403
            snap = json.loads((await fetch(srv, "/api/state?view=arbiter", headers=bearer()))[2])
            assert snap["irregularities"][0]["squares"] == ["e5"]
            assert snap["overlay"]["e5"]["pattern"] == "slow_blink"
        async with serving(flagged_game(Mode.RECORD)) as srv:
            text = (await fetch(srv, "/api/state?view=arbiter", headers=bearer()))[2].decode()
            assert "forgotten" not in text  # record mode: flags go to the record only

    run(go)


# ----------------------------------------------------------------------- arbiter
def test_web_arbiter_login_by_form_query_and_cookie() -> None:
    async def go() -> None:
        async with serving(SimulatedGame()) as srv:
            status, _, body = await fetch(srv, "/arbiter")
            assert status == 200 and b'name="token"' in body and b"data-view" not in body
            assert (await fetch(srv, "/arbiter?token=wrong"))[0] == 403
            form = {"Content-Type": "application/x-www-form-urlencoded"}
            status, _, body = await fetch(srv, "/arbiter/login", "POST", form, b"token=nope")
            assert status == 403 and b"Wrong arbiter token" in body
            status, hdrs, _ = await fetch(
                srv, "/arbiter/login", "POST", form, f"token={TOKEN}".encode()
            )
            assert status == 303 and hdrs["location"] == "/arbiter"
            cookie = hdrs["set-cookie"].split(";")[0]
            assert cookie.startswith(COOKIE + "=") and TOKEN not in cookie
            assert "HttpOnly" in hdrs["set-cookie"]
            status, hdrs, _ = await fetch(srv, f"/arbiter?token={TOKEN}")
            assert status == 303 and hdrs["set-cookie"].split(";")[0] == cookie
            status, _, body = await fetch(srv, "/arbiter", headers={"Cookie": cookie})
            assert status == 200 and b'data-view="arbiter"' in body
            forged = {"Cookie": f"{COOKIE}={TOKEN}"}
            assert b'data-view="arbiter"' not in (await fetch(srv, "/arbiter", headers=forged))[2]
            status, hdrs, _ = await fetch(srv, "/arbiter/logout", "POST")
            assert status == 303 and "Max-Age=0" in hdrs["set-cookie"]

    run(go)


def test_web_arbiter_view_off_without_a_token() -> None:
    async def go() -> None:
        async with serving(SimulatedGame(), token=None) as srv:
            status, _, body = await fetch(srv, "/arbiter")
            assert status == 403 and b"arbiter view is off" in body
            assert (await fetch(srv, "/arbiter?token="))[0] == 403
            assert (await fetch(srv, "/api/arbiter/pause", "POST", bearer("")))[0] == 403

    run(go)


def test_web_arbiter_actions_reach_the_clock() -> None:
    game = SimulatedGame(Mode.TOURNAMENT)
    game.start_clock()

    async def go() -> None:
        async with serving(game) as srv:
            assert (await fetch(srv, "/api/arbiter/pause", "POST"))[0] == 403
            assert (await fetch(srv, "/api/arbiter/pause", "POST", bearer("x")))[0] == 403
            assert not game.clock.paused
            status, _, body = await fetch(srv, "/api/arbiter/pause", "POST", bearer())
            assert status == 200 and json.loads(body)["ok"]
            assert game.clock.paused
            status, _, body = await fetch(srv, "/api/arbiter/pause", "POST", bearer())
            assert status == 400 and b"already paused" in body
            before = game.clock.remaining(Color.WHITE, 0)
            js = {**bearer(), "Content-Type": "application/json"}
            payload = json.dumps({"color": "white", "seconds": -30}).encode()
            assert (await fetch(srv, "/api/arbiter/adjust_time", "POST", js, payload))[0] == 200
            assert game.clock.remaining(Color.WHITE, 0) == pytest.approx(before - 30)
            for bad, why in [
                ({"color": "red", "seconds": 5}, b"not a colour"),
                ({"color": "black", "seconds": "5"}, b"must be a number"),
                ({"color": "black"}, b"must be a number"),
            ]:
                status, _, body = await fetch(
                    srv, "/api/arbiter/adjust_time", "POST", js, json.dumps(bad).encode()
                )
                assert status == 400 and why in body, body
            status, _, body = await fetch(srv, "/api/arbiter/adjust_time", "POST", js, b"{oops")
            assert status == 400 and b"not JSON" in body
            board = "-" * 27 + "OX" + "-" * 6 + "XZ" + "-" * 27
            payload = json.dumps({"board": board}).encode()
            status, _, body = await fetch(srv, "/api/arbiter/correct_position", "POST", js, payload)
            assert status == 400 and b"'Z' at e5" in body
            status, _, body = await fetch(srv, "/api/arbiter/accept_position", "POST", bearer())
            assert status == 400 and b"no flagged position" in body
            assert (await fetch(srv, "/api/arbiter/resume", "POST", bearer()))[0] == 200
            assert (await fetch(srv, "/api/arbiter/explode", "POST", bearer()))[0] == 404
            assert [a for a, _ in game.actions] == ["pause", "adjust_time", "resume"]

    run(go)


# ------------------------------------------------------------------ live updates
async def read_event(reader: asyncio.StreamReader) -> dict:
    while True:
        block = await asyncio.wait_for(reader.readuntil(b"\n\n"), 5)
        text = block.decode()
        if text.startswith("event: state"):
            return json.loads(text.split("data: ", 1)[1])


def test_web_event_stream_pushes_each_move() -> None:
    game = SimulatedGame(Mode.HOME)

    async def go() -> None:
        async with serving(game) as srv:
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
            writer.write(b"GET /events?view=player HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await reader.readuntil(b"\r\n\r\n")
            assert b"200 OK" in head and b"text/event-stream" in head
            first = await read_event(reader)
            assert first["moves"] == []
            game.start_clock()
            game.play("f5")
            while True:
                snap = await read_event(reader)
                if snap["moves"]:
                    break
            assert snap["moves"][0]["square"] == "f5"
            assert snap["board"][37] == "X"  # f5
            # stopping the server ends the stream instead of hanging
            await srv.stop()
            assert await asyncio.wait_for(reader.read(), 5) == b""
            writer.close()

    run(go)


def test_web_event_stream_for_arbiter_needs_the_token() -> None:
    async def go() -> None:
        async with serving(SimulatedGame()) as srv:
            assert (await fetch(srv, "/events?view=arbiter"))[0] == 403

    run(go)


def test_web_record_download_is_the_game_in_ggf() -> None:
    game = SimulatedGame(Mode.HOME)
    game.start_clock()
    game.play("f5")
    game.play("d6")

    async def go() -> None:
        async with serving(game) as srv:
            status, hdrs, body = await fetch(srv, "/record.ggf")
            assert status == 200
            assert 'attachment; filename="kaeshi.ggf"' == hdrs["content-disposition"]
            (record,) = read_ggf_text(body.decode())
            assert [m.square for m in record.moves] == ["f5", "d6"]

    run(go)


def test_web_silent_client_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    import controller.web.server as server_module

    monkeypatch.setattr(server_module, "REQUEST_TIMEOUT_SECONDS", 0.2)

    async def go() -> None:
        async with serving(SimulatedGame()) as srv:
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
            writer.write(b"GET / HTTP/1.1\r\n")  # ... and nothing more
            data = await asyncio.wait_for(reader.read(), 5)
            assert data.startswith(b"HTTP/1.1 408") and b"no complete request" in data
            writer.close()

    run(go)


def test_web_facade_failure_is_a_500_and_the_server_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = SimulatedGame()
    good = game.snapshot
    calls = []

    def flaky(view: str) -> dict:
        calls.append(view)
        if len(calls) == 1:
            raise RuntimeError("journal on fire")
        return good(view)  # type: ignore[arg-type]

    game.snapshot = flaky  # type: ignore[method-assign]

    async def go() -> None:
        async with serving(game) as srv:
            status, _, body = await fetch(srv, "/api/state")
            assert status == 500 and b"see the service log" in body
            assert b"journal on fire" not in body  # no internals to the browser
            assert (await fetch(srv, "/api/state"))[0] == 200

    run(go)
    assert "journal on fire" in caplog.text


def test_web_url_of_a_wildcard_bind_is_browsable() -> None:
    server = WebServer(SimulatedGame(), "0.0.0.0", 8080, TOKEN)
    assert server.url.startswith("http://") and server.url.endswith(":8080")
    assert "0.0.0.0" not in server.url
    assert WebServer(SimulatedGame(), "127.0.0.1", 81).url == "http://127.0.0.1:81"
