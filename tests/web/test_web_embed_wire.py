"""The page's server on a real socket: uvicorn on the running loop, raw HTTP/1.1 at it."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import socket
from collections.abc import AsyncIterator

import pytest
from web_support import TOKEN, SimulatedGame

from controller.arbiter import Mode
from controller.squares import Color
from controller.web import WebServer

Response = tuple[int, dict[str, str], bytes]


@contextlib.asynccontextmanager
async def serving(game: SimulatedGame, **options: object) -> AsyncIterator[WebServer]:
    server = WebServer(game, "127.0.0.1", 0, TOKEN, **options)  # type: ignore[arg-type]
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def parse(data: bytes) -> Response:
    head_text, _, payload = data.partition(b"\r\n\r\n")
    status_line, *header_lines = head_text.decode("latin-1").split("\r\n")
    hdrs = {}
    for line in header_lines:
        k, _, v = line.partition(":")
        hdrs[k.strip().lower()] = v.strip()
    return int(status_line.split()[1]), hdrs, payload


async def exchange(server: WebServer, raw: bytes) -> bytes:
    """Send ``raw`` and read until the server closes the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    writer.write(raw)
    await writer.drain()
    data = await asyncio.wait_for(reader.read(), 10)
    writer.close()
    return data


def request(method: str, path: str, headers: dict[str, str] | None = None,
            body: bytes = b"") -> bytes:
    head = {"Host": "localhost", "Connection": "close", "Content-Length": str(len(body)),
            **(headers or {})}
    lines = [f"{method} {path} HTTP/1.1"] + [f"{k}: {v}" for k, v in head.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode() + body


def run(coro_fn, *args):  # noqa: ANN001, ANN201 - tiny test helper
    return asyncio.run(coro_fn(*args))


def test_web_wire_serves_pages_and_keeps_connections_alive() -> None:
    async def go() -> None:
        async with serving(SimulatedGame()) as srv:
            status, hdrs, body = parse(await exchange(srv, request("GET", "/")))
            assert status == 200 and b'data-view="player"' in body
            assert "server" not in hdrs and hdrs["x-content-type-options"] == "nosniff"
            # two requests on one connection (HTTP/1.1 keep-alive)
            reader, writer = await asyncio.open_connection("127.0.0.1", srv.port)
            for _ in range(2):
                writer.write(b"GET /api/state HTTP/1.1\r\nHost: x\r\n\r\n")
                head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
                assert head.startswith(b"HTTP/1.1 200")
                length = int(parse(head)[1]["content-length"])
                assert json.loads(await reader.readexactly(length))["mode"] == "home"
            writer.close()

    run(go)


def test_web_wire_malformed_requests_get_400_and_the_server_goes_on() -> None:
    game = SimulatedGame(Mode.TOURNAMENT)
    game.start_clock()

    async def go() -> None:
        async with serving(game) as srv:
            assert parse(await exchange(srv, b"NONSENSE\r\n\r\n"))[0] == 400
            # two different lengths: which body is meant? Neither is taken.
            raw = (b"POST /api/arbiter/pause HTTP/1.1\r\nHost: x\r\n"
                   b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
                   b"Content-Length: 0\r\nContent-Length: 5\r\n\r\nhello")
            assert parse(await exchange(srv, raw))[0] == 400
            # a head that goes on and on is not buffered for ever
            endless = b"GET / HTTP/1.1\r\nHost: x\r\n" + b"X-Pad: aaaaaaaaaa\r\n" * 4000
            assert parse(await exchange(srv, endless))[0] == 400
            big = request("POST", "/api/arbiter/pause",
                          {"Authorization": f"Bearer {TOKEN}", "Content-Length": str(10**7)})
            assert parse(await exchange(srv, big))[0] == 413
            assert not game.clock.paused and game.actions == []
            assert parse(await exchange(srv, request("GET", "/api/state")))[0] == 200

    run(go)


def test_web_wire_reads_chunked_bodies() -> None:
    game = SimulatedGame(Mode.TOURNAMENT)
    game.start_clock()
    payload = json.dumps({"color": "white", "seconds": -30}).encode()
    chunks = b"".join(b"%x\r\n%s\r\n" % (len(payload[i:i + 7]), payload[i:i + 7])
                      for i in range(0, len(payload), 7)) + b"0\r\n\r\n"
    raw = (b"POST /api/arbiter/adjust_time HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
           b"Authorization: Bearer " + TOKEN.encode() + b"\r\n"
           b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
    before = game.clock.remaining(Color.WHITE, 0)

    async def go() -> None:
        async with serving(game) as srv:
            status, _, body = parse(await exchange(srv, raw))
            assert status == 200, body

    run(go)
    assert game.clock.remaining(Color.WHITE, 0) == pytest.approx(before - 30)


def test_web_wire_silent_and_slow_clients_are_dropped(caplog: pytest.LogCaptureFixture) -> None:
    async def go() -> None:
        async with serving(SimulatedGame(), request_timeout=0.2) as srv:
            data = await exchange(srv, b"GET / HTTP/1.1\r\n")  # ... and nothing more
            assert data.startswith(b"HTTP/1.1 408") and b"no complete request" in data
            assert (await exchange(srv, b"")).startswith(b"HTTP/1.1 408")  # nothing at all
            # a body that never comes: the connection is closed, nothing is acted on
            half = request("POST", "/api/arbiter/pause", {"Authorization": f"Bearer {TOKEN}",
                                                          "Content-Type": "application/json",
                                                          "Content-Length": "100"}, b"{")
            assert await exchange(srv, half) == b""
            assert parse(await exchange(srv, request("GET", "/api/state")))[0] == 200

    with caplog.at_level(logging.ERROR):
        run(go)
    assert "Traceback" not in caplog.text and "failed" not in caplog.text


async def read_event(reader: asyncio.StreamReader) -> dict:
    while True:
        block = await asyncio.wait_for(reader.readuntil(b"\n\n"), 5)
        text = block.decode()
        if "event: state" in text:
            return json.loads(text.split("data: ", 1)[1].split("\r\n", 1)[0])


def test_web_wire_event_stream_pushes_each_move_and_ends_on_stop() -> None:
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
            await asyncio.wait_for(srv.stop(), 10)
            rest = await asyncio.wait_for(reader.read(), 5)
            assert b"event: state" not in rest
            writer.close()

    run(go)


def test_web_wire_event_stream_for_arbiter_needs_the_token() -> None:
    async def go() -> None:
        async with serving(SimulatedGame()) as srv:
            assert parse(await exchange(srv, request("GET", "/events?view=arbiter")))[0] == 403

    run(go)


def test_web_wire_busy_port_is_a_clear_error() -> None:
    async def go() -> None:
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen()
            port = taken.getsockname()[1]
            server = WebServer(SimulatedGame(), "127.0.0.1", port, TOKEN)
            with pytest.raises(OSError, match=f"web page: cannot listen on 127.0.0.1:{port}"):
                await server.start()
            await server.stop()  # nothing started: nothing to do

    run(go)
