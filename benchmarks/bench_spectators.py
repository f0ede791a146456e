"""How many spectators streaming the broadcast one hub serves, with its CPU and memory.

The hub's pages run in a process of their own (the real app and server, a store of
``TABLES`` tables, one move a second somewhere in the hall, no delay), as ``kaeshi
hub`` serves them. Spectators are event-stream clients on loopback addresses
127.0.x.y (so no client address reaches the per-address cap); each message's delay
is its arrival time minus the snapshot's own ``now`` (one machine, one clock). For
each audience size: the p99 of that delay, and the hub process's CPU share and
resident memory over the measured seconds. Figures, never assertions.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

TABLES = 50
AUDIENCES = (100, 250, 500, 1000)
SECONDS = 6.0
NOW = re.compile(rb'"now":([0-9.]+)')


def serve(port_file: str) -> None:
    """The hub's pages over a small hall (run in its own process)."""
    from controller.hall_protocol.protocol import EventMessage, TableState, encode_state
    from controller.hub.store import HubStore
    from controller.hub.web import HubWebSettings, build_app
    from controller.position import Position
    from controller.web.embed import EmbeddedServer
    from controller.web.gate import Gate

    store = HubStore(":memory:")
    rng = random.Random(3)
    positions = {}
    seqs = {}
    now = time.time()
    for table in range(1, TABLES + 1):
        s = TableState(table, "g", 1, f"Black {table}", f"White {table}", "tournament",
                       "playing", Position.start().board_string(), "black", None)
        store.set_state(s, encode_state(s), now)
        positions[table], seqs[table] = Position.start(), 0

    def play() -> None:  # one move a second somewhere in the hall
        t = 0.0
        while True:
            table = rng.randint(1, TABLES)
            pos = positions[table]
            legal = pos.legal_squares()
            if not legal:
                positions[table] = Position.start()
                continue
            sq = rng.choice(legal)
            seqs[table] += 1
            t += 1.0
            store.add_event(EventMessage(table, "g", seqs[table], {
                "t": t, "event": "move", "player": pos.to_move.value, "square": sq,
                "flips": []}), time.time())
            positions[table] = pos.play(sq)
            time.sleep(1.0)

    app = build_app(store, _Bus(), None, HubWebSettings("bench-arbiter-token-2026", delay=0.0))
    gate = Gate(4 * max(AUDIENCES), per_client=64)
    app.state.use_gate(gate)

    async def run() -> None:
        server = EmbeddedServer(app, "127.0.0.1", 0, gate=gate,
                                before_stop=app.state.close_streams)
        await server.start()
        app.state.listen()
        Path(port_file).write_text(str(server.port))
        threading.Thread(target=play, daemon=True).start()
        await asyncio.Event().wait()

    asyncio.run(run())


class _Bus:
    def subscribe(self, callback: object) -> object:
        return lambda: None

    def send(self, table: int, command: object) -> None:
        pass


async def _spectator(port: int, n: int, delays: list[float], stop: asyncio.Event) -> None:
    source = f"127.0.{1 + n // 200}.{1 + n % 200}"
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port,
                                                      local_addr=(source, 0))
    except OSError:
        return
    writer.write(b"GET /events/broadcast HTTP/1.1\r\nHost: hall\r\n\r\n")
    try:
        while not stop.is_set():
            line = await asyncio.wait_for(reader.readline(), 5)
            if not line:
                return
            if line.startswith(b"data: "):
                m = NOW.search(line, 0, 200)
                if m:
                    delays.append(time.time() - float(m.group(1)))
    except (TimeoutError, OSError, asyncio.IncompleteReadError):
        pass
    finally:
        writer.close()


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


async def _audience(port: int, pid: int, n: int) -> str:
    delays: list[float] = []
    stop = asyncio.Event()
    tasks = [asyncio.create_task(_spectator(port, i, delays, stop)) for i in range(n)]
    await asyncio.sleep(2.0)  # everyone connected and had the first (full) message
    delays.clear()
    cpu0, t0 = _cpu(pid), time.monotonic()
    await asyncio.sleep(SECONDS)
    cpu = (_cpu(pid) - cpu0) / (time.monotonic() - t0)
    got = sorted(delays)
    stop.set()
    for t in tasks:
        t.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    if not got:
        return f"{n:5d} spectators: no message arrived"
    p99 = got[min(len(got) - 1, int(len(got) * 0.99))]
    return (f"{n:5d} spectators: p99 {p99 * 1000:.0f} ms, median "
            f"{got[len(got) // 2] * 1000:.0f} ms over {len(got)} messages; hub CPU "
            f"{cpu * 100:.0f}% of a core, {_rss_mb(pid):.0f} MB resident")


def main() -> None:
    import resource
    import tempfile

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, 8192)), hard))
    with tempfile.TemporaryDirectory() as tmp:
        port_file = Path(tmp) / "port"
        proc = subprocess.Popen([sys.executable, __file__, "--serve", str(port_file)],
                                cwd=Path(__file__).resolve().parents[1])
        try:
            end = time.monotonic() + 30
            while not port_file.exists() or not port_file.read_text():
                if time.monotonic() > end or proc.poll() is not None:
                    raise RuntimeError("the hub's pages did not start")
                time.sleep(0.1)
            port = int(port_file.read_text())
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                pass
            print(f"hub pages: {TABLES} tables, a move a second; spectators on "
                  f"/events/broadcast, {SECONDS:.0f} s each (a message per change, at "
                  "most one a second)")
            for n in AUDIENCES:
                print(asyncio.run(_audience(port, proc.pid, n)), flush=True)
        finally:
            proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
            if proc.poll() is None:
                proc.kill()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2])
    else:
        main()
