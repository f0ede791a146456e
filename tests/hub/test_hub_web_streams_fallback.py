"""A spectator whose live stream the hub refuses (its address holds all the live pages
it may) still sees the hall: the page polls the cacheable snapshot (headless Chromium)."""

from __future__ import annotations

import socket
import time

from devtools import DevTools
from hub_web_support import Hall, serve_hub

from controller.web.gate import STREAMS_PER_CLIENT, Gate


def test_a_refused_stream_falls_back_to_the_snapshot(tmp_path) -> None:
    hall = Hall()
    for n in (1, 2):
        hall.state(n, 1_764_670_000.0, game=f"g{n}", black=f"Player {n}")
    gate = Gate(64)
    server, served = serve_hub(hall, gate)
    held: list[socket.socket] = []
    browser = DevTools(tmp_path / "profile")
    try:
        for _ in range(STREAMS_PER_CLIENT):  # this address's live pages, all taken
            s = socket.create_connection(("127.0.0.1", server.port))
            s.sendall(b"GET /events/broadcast HTTP/1.1\r\nHost: hall\r\n\r\n")
            held.append(s)
        end = time.monotonic() + 10
        while gate.stream_room("127.0.0.1"):
            assert time.monotonic() < end, "the held streams did not open"
            time.sleep(0.05)
        browser.open(f"http://127.0.0.1:{server.port}/")
        browser.wait_for("document.getElementById('conn').textContent"
                         ".includes('every 2 s')", timeout=15)
        assert "Player 1" in browser.text() and "Player 2" in browser.text()
        assert not browser.errors
    finally:
        browser.close()
        for s in held:
            s.close()
        served.close()
