"""The hall at 200 tables: move -> hub latency, hub CPU and memory, broker load, catch-up.

A private Mosquitto (the hall's config and ACL), ``kaeshi hub`` in its own process
and 200 real table services in 8 processes, each replaying a real WTHOR game through
the physical-play simulator. All tables reach the broker through one relay, so the
benchmark can cut the whole hall's network and time the catch-up. Figures:

- move -> hub: from the table journaling a move to the hub storing it (same machine
  clock), median and p99, over every move of the round outside the outage;
- hub CPU (share of one core over the round) and peak memory (VmHWM);
- broker messages per second (its ``$SYS`` counters: received + sent);
- catch-up: after every table was cut off for the outage, the seconds until the hub
  holds everything the tables journaled until the network came back, and until it is
  live again (no event arrives more than 1 s late); latencies above leave out the
  moves journaled from the cut until then.

``KAESHI_BENCH_QUICK=1`` scales the outage from 60 s down to 10 s and says so.

Then a hostile-table run: a hall of ``HOSTILE_TABLES`` real tables, one of whose
passwords floods the hub at 10,000 messages a second for 10 s (new game ids, gaps,
junk; ``controller.hub.hostile``). Figures: the other tables' move -> hub latency
during the flood and the 2 s after it, the hub's peak memory and its log lines, what
the hub dropped, and whether any invented game reached the public broadcast or feed.
- move -> dashboard: from the table journaling a move to the arbiter dashboard's SSE
  stream first showing that table's move count (a client of the hub's real pages);
  hub -> dashboard: the part of it from the hub storing the move (the hub's own share,
  apart from the 200 loaded table services').
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from controller.hall_protocol.mqtt import make_client
from controller.hub.hostile import BOGUS
from controller.hub.sim_operator import default_groups
from controller.hub.simulate import Hall

TABLES = 200
#: Replay speed: the 200 table services all run on this one machine, so their own work
#: (arbiter, synced journal) grows with it; a real hall plays at 1x on 200 Pis.
SPEED = 2.0
QUICK_SPEED = 4.0
HOSTILE_TABLES = 40
HOSTILE_RATE = 10_000.0
HOSTILE_SECONDS = 10.0


def _hub_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _hub_peak_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _broker_messages(hall: Hall) -> float:
    """received + sent, from the broker's retained $SYS counters."""
    got: queue.Queue = queue.Queue()
    c = make_client(hall.broker.hub_settings(), f"bench-sys-{time.monotonic_ns()}",
                    clean_session=True)
    c.on_message = lambda cl, u, m: got.put((m.topic, float(m.payload or 0)))
    c.on_connect = lambda cl, *a: cl.subscribe([("$SYS/broker/messages/received", 0),
                                                ("$SYS/broker/messages/sent", 0)])
    c.connect("127.0.0.1", hall.broker.port)
    c.loop_start()
    values: dict[str, float] = {}
    with contextlib.suppress(queue.Empty):
        while len(values) < 2:
            t, v = got.get(timeout=15)
            values[t] = v
    c.disconnect()
    c.loop_stop()
    return sum(values.values())


def _hub_counts(hall: Hall) -> dict[int, int]:
    with contextlib.closing(sqlite3.connect(hall.folder / "hub.sqlite", timeout=10)) as db:
        return dict(db.execute("SELECT tbl, SUM(last_seq) FROM games GROUP BY tbl"))


def _latencies(hall: Hall, skip: tuple[float, float]) -> list[float]:
    with contextlib.closing(sqlite3.connect(hall.folder / "hub.sqlite", timeout=10)) as db:
        rows = db.execute("SELECT received - wall, wall FROM events WHERE wall IS NOT NULL "
                          "AND event LIKE '%\"event\":\"move\"%'").fetchall()
    return [lat for lat, wall in rows if not skip[0] <= wall <= skip[1]]


class DashboardWatch:
    """Follows the arbiter dashboard's SSE stream; notes when each move count first shows."""

    def __init__(self, url: str, token: str) -> None:
        self.seen: dict[tuple[int, str, int], float] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(url, token), daemon=True)
        self._thread.start()

    def _run(self, url: str, token: str) -> None:
        import httpx

        headers = {"authorization": f"Bearer {token}"}
        while not self._stop.is_set():
            try:
                with httpx.stream("GET", f"{url}/events/dashboard", headers=headers,
                                  timeout=None) as r:
                    for line in r.iter_lines():
                        if self._stop.is_set():
                            return
                        if line.startswith("data: "):
                            self._note(json.loads(line[6:]), time.time())
            except (httpx.HTTPError, ValueError):
                time.sleep(0.5)

    def _note(self, data: object, now: float) -> None:
        cards = data.get("tables", []) if isinstance(data, dict) else data
        for c in cards if isinstance(cards, list) else []:
            if isinstance(c, dict) and c.get("game") and isinstance(c.get("moves"), int):
                self.seen.setdefault((c["table"], c["game"], c["moves"]), now)

    def stop(self) -> None:
        self._stop.set()


def _dashboard_latencies(hall: Hall, seen: dict[tuple[int, str, int], float],
                         skip: tuple[float, float]) -> list[float]:
    out = []
    for n in range(1, TABLES + 1):
        path = hall.table_dir(n) / "journal.sqlite"
        with contextlib.closing(sqlite3.connect(path, timeout=10)) as db:
            rows = db.execute("SELECT game, wall FROM entries WHERE kind='event' AND "
                              "data LIKE '%\"event\":\"move\"%' ORDER BY seq").fetchall()
        count: dict[str, int] = {}
        for game, wall in rows:
            count[game] = count.get(game, 0) + 1
            shown = seen.get((n, game, count[game]))
            if shown is not None and not skip[0] <= wall <= skip[1]:
                out.append(shown - wall)
    return out


def _hub_dashboard_latencies(hall: Hall, seen: dict[tuple[int, str, int], float],
                             skip: tuple[float, float]) -> list[float]:
    with contextlib.closing(sqlite3.connect(hall.folder / "hub.sqlite", timeout=10)) as db:
        rows = db.execute("SELECT tbl, game, received, wall FROM events WHERE wall IS NOT "
                          "NULL AND event LIKE '%\"event\":\"move\"%' "
                          "ORDER BY tbl, game, seq").fetchall()
    out = []
    count: dict[tuple[int, str], int] = {}
    for table, game, received, wall in rows:
        n = count[(table, game)] = count.get((table, game), 0) + 1
        shown = seen.get((table, game, n))
        if shown is not None and not skip[0] <= wall <= skip[1]:
            out.append(shown - received)
    return out


def _live_again(hall: Hall, cut: float, back: float) -> float:
    """Seconds after the network came back until the hub was live again: the last
    moment it received an event journaled after the cut more than 1 s late."""
    with contextlib.closing(sqlite3.connect(hall.folder / "hub.sqlite", timeout=10)) as db:
        row = db.execute("SELECT MAX(received) FROM events WHERE wall >= ? AND "
                         "received - wall > 1.0", (cut,)).fetchone()
    return max(0.0, (row[0] or back) - back)


def _figures(name: str, lat: list[float], which: str = "moves outside the outage") -> str:
    if len(lat) < 2:
        return f"{name}: not measured"
    q = statistics.quantiles(lat, n=100)
    return (f"{name}: median {statistics.median(lat) * 1000:.1f} ms, p99 {q[98] * 1000:.1f} ms "
            f"({len(lat)} {which})")


def main() -> None:
    quick = os.environ.get("KAESHI_BENCH_QUICK") == "1"
    outage = 10.0 if quick else 60.0
    speed = QUICK_SPEED if quick else SPEED
    with tempfile.TemporaryDirectory(prefix="kaeshi-bench-hub-") as folder:
        hall = Hall(folder, TABLES, speed, errors=0.02, proxy_all=True, web=True)
        hall.prepare()
        hall.broker.start()
        watch: DashboardWatch | None = None
        try:
            hall.start_hub()
            time.sleep(1.0)
            assert hall.hub is not None
            pid = hall.hub.pid
            url = None
            for _ in range(100):
                url = hall.web_url()
                if url:
                    break
                time.sleep(0.1)
            watch = DashboardWatch(url, hall.token) if url else None
            cpu0, t0 = _hub_cpu(pid), time.monotonic()
            msgs0 = _broker_messages(hall)
            m0 = time.monotonic()
            hall.start_tables(default_groups(TABLES, 8))
            # let the round run, then cut the whole hall off the broker
            end = time.monotonic() + 60
            while time.monotonic() < end and sum(_hub_counts(hall).values()) < TABLES * 25:
                time.sleep(1.0)
            assert hall.proxy is not None
            hall.proxy.cut()
            cut_wall = time.time()
            time.sleep(outage - 2.0)
            journaled = {n: len(hall.journal_events(n)[0]) for n in range(1, TABLES + 1)}
            time.sleep(max(0.0, outage - (time.time() - cut_wall)))
            hall.proxy.restore()
            back = time.monotonic()
            back_wall = time.time()
            while time.monotonic() - back < 600:
                counts = _hub_counts(hall)
                if all(counts.get(n, 0) >= c for n, c in journaled.items()):
                    break
                time.sleep(0.1)
            backlog = time.monotonic() - back
            result = hall.wait_complete(timeout=900)
            cpu1, t1 = _hub_cpu(pid), time.monotonic()
            peak = _hub_peak_mb(pid)
            msgs1 = _broker_messages(hall)
            m1 = time.monotonic()
            budget = _over_budget(url, hall.token) if url else "not read"
        finally:
            if watch is not None:
                watch.stop()
            hall.stop()
        live = _live_again(hall, cut_wall, back_wall)
        skip = (cut_wall - 1.0, back_wall + live)
        lat = _latencies(hall, skip)
        shown = _dashboard_latencies(hall, watch.seen, skip) if watch else []
        stored = _hub_dashboard_latencies(hall, watch.seen, skip) if watch else []
        lost, doubled = result.lost_and_doubled()
        print(f"tables: {TABLES} at {speed:g}x replay speed, "
              f"{sum(t.moves for t in result.tables)} moves, "
              f"{sum(t.journal for t in result.tables)} events; lost {lost}, doubled "
              f"{doubled}, tables equal to journal {sum(t.equal for t in result.tables)}")
        print(_figures("move -> hub latency", lat))
        print(_figures("move -> dashboard latency (arbiter SSE stream)", shown))
        print(_figures("hub -> dashboard latency (stored -> shown)", stored))
        print(f"hub CPU: {(cpu1 - cpu0) / (t1 - t0) * 100:.1f}% of one core; "
              f"peak memory {peak:.0f} MB; tables over their message budget: {budget}")
        print(f"broker: {(msgs1 - msgs0) / (m1 - m0):.0f} messages/s (received + sent, "
              f"$SYS counters, over {m1 - m0:.0f} s)")
        scaled = " (quick mode: outage scaled down from 60 s)" if quick else ""
        print(f"catch-up after a {outage:.0f} s outage of all {TABLES} tables{scaled}: "
              f"{backlog:.1f} s until the hub held every event journaled during it, "
              f"{live:.1f} s until every new event arrived within 1 s again")
    hostile()


def _over_budget(url: str, token: str) -> str:
    """How many tables the hub found over their message budget (none, in a sound hall)."""
    import httpx

    cards = httpx.get(f"{url}/api/dashboard", timeout=30,
                      headers={"authorization": f"Bearer {token}"}).json()["tables"]
    over = [c for c in cards if c.get("trouble", {}).get("counts", {}).get("flood")]
    muted = sum(c["trouble"]["counts"].get("muted", 0) for c in over)
    return f"{len(over)} (unheard {muted} times)"


def _flood(hall: Hall, broker_only: bool) -> tuple[float, float, int]:
    """The hostile client's run: (wall time started, ended, messages sent)."""
    start = time.time()
    run = subprocess.run(
        [sys.executable, "-m", "controller.hub.hostile", "--port", str(hall.broker.port),
         "--table", str(HOSTILE_TABLES), "--password",
         hall.broker.passwords[str(HOSTILE_TABLES)], "--event", hall.event,
         "--rate", str(HOSTILE_RATE), "--seconds", str(HOSTILE_SECONDS),
         *(["--broker-only"] if broker_only else [])],
        capture_output=True, text=True, timeout=300, check=True)
    return start, time.time(), int(json.loads(run.stdout)["sent"])


def hostile() -> None:
    """The hostile-table run (see the module docstring)."""
    import httpx

    speed = QUICK_SPEED
    with tempfile.TemporaryDirectory(prefix="kaeshi-bench-hostile-") as folder:
        hall = Hall(folder, HOSTILE_TABLES, speed, errors=0.02, web=True, seed=5)
        hall.prepare()
        hall.broker.start()
        try:
            hall.start_hub()
            hall.start_tables(default_groups(HOSTILE_TABLES, 2))
            end = time.monotonic() + 120
            while (url := hall.web_url()) is None or min(
                    hall.journal_events(n)[1] for n in range(1, HOSTILE_TABLES)) < 6:
                if time.monotonic() > end:
                    print("hostile table: the hall did not start")
                    return
                time.sleep(0.5)
            assert hall.hub is not None
            pid = hall.hub.pid
            control = _flood(hall, broker_only=True)
            time.sleep(2.0)
            cpu0, t0 = _hub_cpu(pid), time.monotonic()
            start, flooded, sent = _flood(hall, broker_only=False)
            cpu1, t1 = _hub_cpu(pid), time.monotonic()
            result = hall.wait_complete(timeout=600)
            peak = _hub_peak_mb(pid)
            time.sleep(1.5)
            auth = {"authorization": f"Bearer {hall.token}"}
            broadcast = httpx.get(f"{url}/api/broadcast", timeout=30).text
            feed = httpx.get(f"{url}/feed/games.json", timeout=60).text
            cards = {c["table"]: c for c in httpx.get(
                f"{url}/api/dashboard", headers=auth, timeout=30).json()["tables"]}
        finally:
            hall.stop()
        others = tuple(range(1, HOSTILE_TABLES))
        with contextlib.closing(sqlite3.connect(hall.folder / "hub.sqlite")) as db:
            rows = db.execute(
                "SELECT tbl, received - wall, wall FROM events WHERE wall IS NOT NULL AND "
                "event LIKE '%\"event\":\"move\"%'").fetchall()
        def window(a: float, b: float) -> list[float]:
            return [lat for t, lat, wall in rows if t in others and a <= wall <= b]

        during = window(start, flooded + 2)
        machine = window(control[0], control[1] + 2)
        outside = [lat for t, lat, wall in rows if t in others
                   and not start - 1 <= wall <= flooded + 2
                   and not control[0] - 1 <= wall <= control[1] + 2]
        lost, doubled = result.lost_and_doubled()
        trouble = cards.get(HOSTILE_TABLES, {}).get("trouble", {}).get("counts", {})
        log_lines = (hall.folder / "hub.log").read_text(errors="replace").count("\n")
        print(f"hostile table: table {HOSTILE_TABLES}'s password sent {sent} messages in "
              f"{HOSTILE_SECONDS:.0f} s ({sent / HOSTILE_SECONDS:.0f}/s) into a hall of "
              f"{HOSTILE_TABLES} tables at {speed:g}x; lost {lost}, doubled {doubled}, "
              f"tables equal to journal {sum(t.equal for t in result.tables)}")
        print(_figures("  others' move -> hub during the flood (+2 s)", during, "moves"))
        print(_figures("  others' move -> hub while the same flood went to the broker only "
                       "(refused by its ACL: the machine's share)", machine, "moves"))
        print(_figures("  others' move -> hub outside both", outside, "moves"))
        print(f"  hub: {(cpu1 - cpu0) / (t1 - t0) * 100:.0f}% of one core during the flood, "
              f"peak memory {peak:.0f} MB, {log_lines} log lines; dropped unread "
              f"{trouble.get('flood', 0)}, refused {trouble.get('refused', 0)}, junk "
              f"{trouble.get('junk', 0)}, gaps {trouble.get('gap', 0)}; invented games on "
              f"the broadcast/feed: {broadcast.count(BOGUS)}/{feed.count(BOGUS)}")


if __name__ == "__main__":
    main()
