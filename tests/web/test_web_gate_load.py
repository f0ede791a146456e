"""Both web servers survive their clients (on 127.0.0.1 only, bounded).

Five hundred hostile connections — idle, half-sent, and never reading what they asked
for — from 25 loopback addresses (127.0.0.2-26; Linux routes all of 127/8 to the
loopback), re-opened as soon as the server closes them. Meanwhile an ordinary client
(127.0.0.50) and the arbiter (127.0.0.60, logged in before) get their pages, the log
grows by a few lines, and the server's connections stay below its cap.
"""

from __future__ import annotations

import contextlib
import http.client
import logging
import os
import socket
import threading
import time
from collections.abc import Iterator

from hub_web_support import TOKEN, Hall, serve_hub
from served import Served
from web_support import SimulatedGame

from controller.hub.web.arbiter_access import HUB_COOKIE
from controller.web import WebServer
from controller.web.auth import COOKIE
from controller.web.gate import Gate

HOSTILE = 500
ADDRESSES = [f"127.0.0.{n}" for n in range(2, 27)]
ORDINARY, ARBITER = "127.0.0.50", "127.0.0.60"


def get(port: int, path: str, source: str, cookie: str = "") -> tuple[int, bytes, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5,
                                      source_address=(source, 0))
    try:
        conn.request("GET", path, headers={"Cookie": cookie} if cookie else {})
        r = conn.getresponse()
        return r.status, r.read(), dict(r.getheaders())
    finally:
        conn.close()


def login(port: int, cookie_name: str) -> str:
    status, _, headers = get(port, f"/arbiter?token={TOKEN}", ARBITER)
    assert status == 303
    return next(v for k, v in headers.items() if k.lower() == "set-cookie").split(";")[0] \
        if cookie_name else ""


def _hostile_socket(port: int, n: int) -> socket.socket | None:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)  # a reader that reads nothing
    s.bind((ADDRESSES[n % len(ADDRESSES)], 0))
    s.settimeout(1.0)
    try:
        s.connect(("127.0.0.1", port))
        kind = n % 3
        if kind == 1:  # half a request, never finished
            s.sendall(b"GET / HTTP/1.1\r\nHost: hall\r\nX-Slow: ")
        elif kind == 2:  # asks again and again, reads nothing
            s.sendall(b"GET /static/app.js HTTP/1.1\r\nHost: hall\r\n\r\n" * 8
                      if port else b"")
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    return s


@contextlib.contextmanager
def flood(port: int, pages: list[str]) -> Iterator[dict[str, int]]:
    """500 hostile connections, each re-opened once the server closes it."""
    counts = {"opened": 0}
    socks: dict[int, socket.socket | None] = {}
    stop = threading.Event()
    request = b"".join(f"GET {p} HTTP/1.1\r\nHost: hall\r\n\r\n".encode() for p in pages)

    def open_one(n: int) -> None:
        s = _hostile_socket(port, n)
        if s is not None and n % 3 == 2:
            with contextlib.suppress(OSError):
                s.send(request)
        socks[n] = s
        counts["opened"] += 1

    for n in range(HOSTILE):
        open_one(n)

    def reopen() -> None:
        while not stop.is_set():
            for n, s in list(socks.items()):
                if s is None:
                    open_one(n)
                    continue
                if n % 3 == 2:
                    continue  # never reads: cannot tell
                try:
                    if s.recv(1, socket.MSG_PEEK) == b"":
                        s.close()
                        open_one(n)
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    s.close()
                    open_one(n)
            stop.wait(0.2)

    t = threading.Thread(target=reopen, daemon=True)
    t.start()
    try:
        yield counts
    finally:
        stop.set()
        t.join(5)
        for s in socks.values():
            if s is not None:
                s.close()


class LogLines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage()[:200])


@contextlib.contextmanager
def counted_log() -> Iterator[LogLines]:
    handler = LogLines()
    root = logging.getLogger()
    old = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        yield handler
    finally:
        root.removeHandler(handler)
        root.setLevel(old)


def fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def exercise(port: int, gate: Gate, ordinary: list[str], arbiter: str, cookie: str,
             hostile_pages: list[str]) -> None:
    with counted_log() as log, flood(port, hostile_pages) as counts:
        time.sleep(0.5)
        for _ in range(3):
            for page in ordinary:
                status, _, _ = get(port, page, ORDINARY)
                assert status == 200, page
            status, _, _ = get(port, arbiter, ARBITER, cookie)  # 403 to anyone else
            assert status == 200, arbiter
            time.sleep(0.3)
        assert gate.open_count() <= gate.total
        assert fds() < 0.9 * _limit()
        assert counts["opened"] >= HOSTILE
    assert len(log.lines) <= 5, log.lines
    assert not any("Traceback" in line or "Too many open files" in line for line in log.lines)


def _limit() -> int:
    import resource

    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def test_the_table_page_answers_its_players_and_arbiter_under_500_hostile_connections(
) -> None:
    server = WebServer(SimulatedGame(), "127.0.0.1", 0, TOKEN)  # type: ignore[arg-type]
    served = Served(server.start, server.stop)
    try:
        cookie = login(server.port, COOKIE)
        assert cookie.startswith(COOKIE + "=")
        exercise(server.port, server.gate, ["/", "/api/state", "/static/app.js"],
                 "/api/state?view=arbiter", cookie, ["/events"] * 2)
        status, _, _ = get(server.port, "/", ORDINARY)  # and after: served as ever
        assert status == 200
    finally:
        served.close()


def test_the_hub_answers_spectators_and_the_arbiter_under_500_hostile_connections() -> None:
    hall = Hall()
    for n in (1, 2, 3):
        hall.state(n, 1_764_670_000.0, game=f"g{n}")
    # a small hub: the cap is reached, so the reserve and the eviction are what serve
    gate = Gate(300, per_client=16, reserve=8)
    server, served = serve_hub(hall, gate)
    try:
        cookie = login(server.port, HUB_COOKIE)
        assert cookie.startswith(HUB_COOKIE + "=")
        exercise(server.port, gate, ["/", "/api/broadcast", "/feed/games.ggf"],
                 "/api/dashboard", cookie, ["/events/broadcast", "/api/broadcast"])
        # the broadcast is a cacheable snapshot: a proxy asks "still this one?"
        status, body, headers = get(server.port, "/api/broadcast", ORDINARY)
        etag = headers["etag"]
        assert status == 200 and "public" in headers["cache-control"]
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=5)
        conn.request("GET", "/api/broadcast", headers={"If-None-Match": etag})
        r = conn.getresponse()
        assert r.status in (200, 304) and (r.status == 200 or r.read() == b"")
        conn.close()
    finally:
        served.close()
