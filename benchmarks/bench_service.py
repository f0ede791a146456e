"""Service load: CPU and memory at 100 Hz sensor frames, board-to-output latency, flag fall.

The whole service runs — journal (synced), arbiter, clock, LED planning and the web
page — fed by a replayed log of 100 frames a second in real time: a still board
between moves, hands over the board while discs are turned, a clock press per move.
Latency is measured from a reading's arrival to the LED driver's command and to the
web page's live update reaching a connected browser (an event-stream client).

The peak resident memory is that of the ``kaeshi run`` process alone, read from its
``/proc/<pid>/status`` (``VmHWM``, the high-water mark of its own address space)
while it runs. Not ``wait4``'s ``ru_maxrss``: on Linux a child keeps the high-water
mark of the process it was forked from across ``exec``, and this benchmark forks
from a process that has NumPy and OpenCV loaded.

The flag-fall error is the time from a flag's true fall (the instant the clock model
computes from the presses) to the ``game_over`` event: its time stamp in the record,
and the moment the outputs are updated (real time) with no other input arriving.
Then the race at zero: replays in which every press comes 1 ms before the presser's
fall (each must count) or 1 ms after it (each must lose on time), at several speeds.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from controller.observation import Observation, write_observations
from controller.position import Position
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.sources import LogSource, SourceEnd, SourceItem

FRAME = 0.01  # 100 Hz
SECONDS = 20.0


def frames_for(seconds: float, seed: int = 7) -> list[Observation]:
    """A legal random game at 100 Hz: 1.6 s still, 0.4 s of hands, a press, per move."""
    rng = random.Random(seed)
    obs: list[Observation] = []
    t = 0.0
    pos = Position.start()

    def emit(board: str, n: int) -> None:
        nonlocal t
        for _ in range(n):
            obs.append(Observation(round(t, 3), board=board))
            t += FRAME

    emit(pos.board_string(), 50)
    obs.append(Observation(round(t, 3), press=pos.to_move.opponent))
    while t < seconds and not pos.is_game_over():
        emit(pos.board_string(), 160)
        if not pos.legal_moves():
            obs.append(Observation(round(t, 3), press=pos.to_move))
            pos = pos.pass_turn()
            continue
        sq = rng.choice(pos.legal_squares())
        after = pos.play(sq)
        hand = list(after.board_string())
        for i in rng.sample(range(64), 6):
            hand[i] = "?"
        emit("".join(hand), 30)
        emit(after.board_string(), 10)
        obs.append(Observation(round(t, 3), press=pos.to_move))
        pos = after
    return obs


class RecordingLeds:
    """An LED driver that notes when each command is issued."""

    def __init__(self) -> None:
        self.shown: list[float] = []

    async def show(self, plan: object) -> None:
        self.shown.append(time.monotonic())


async def _sse_client(url: str, received: list[tuple[int, float]]) -> None:
    host, port = url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    writer.write(f"GET /events?view=player HTTP/1.1\r\nHost: {host}\r\n\r\n".encode())
    await writer.drain()
    import json

    while True:
        line = await reader.readline()
        if not line:
            return
        if line.startswith(b"data:"):
            try:
                version = json.loads(line[5:])["version"]
            except (ValueError, KeyError):
                continue
            received.append((int(version), time.monotonic()))


async def _run(service: Service) -> tuple[list[tuple[int, float]], float, float]:
    received: list[tuple[int, float]] = []
    task = asyncio.create_task(service.run())
    while not service.outputs.url:
        await asyncio.sleep(0.01)
    client = asyncio.create_task(_sse_client(service.outputs.url, received))
    cpu0, wall0 = time.process_time(), time.monotonic()
    await task
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    client.cancel()
    return received, cpu, wall


def main() -> None:
    logging.getLogger("kaeshi").setLevel(logging.ERROR)
    log = frames_for(SECONDS)
    with tempfile.TemporaryDirectory() as tmp:
        config = defaults().replace(**{
            "game.mode": "home",
            "source.kind": "sim",
            "journal.path": str(Path(tmp) / "journal.sqlite"),
            "games.folder": str(Path(tmp) / "games"),
            "web.host": "127.0.0.1",
            "web.port": 0,
            "log.level": "warning",
        })
        service = Service(config, source=LogSource(log, speed=1.0))
        leds = RecordingLeds()
        versions: dict[int, float] = {}

        def on_step(events: list[object]) -> None:
            if service.last_arrival is not None:
                versions[service.table.notifier.version] = service.last_arrival

        service.on_step = on_step
        service.open()
        service.outputs.leds = leds  # the LED command is the driver call; see RecordingLeds
        received, cpu, wall = asyncio.run(_run(service))
        arrivals = [a for a, _ in service.outputs.latencies]
    led_ms = sorted(1000 * (shown - a) for a, shown in _pair(arrivals, leds.shown))
    web_ms = sorted(1000 * (t - versions[v]) for v, t in received if v in versions)
    frames = sum(1 for o in log if o.board is not None)
    print(f"   frames fed: {frames} at 100 Hz over {wall:.1f} s, "
          f"{sum(1 for o in log if o.press)} presses")
    print(f"   in-process service loop: {100 * cpu / wall:.1f} % of one core")
    share, pwall, rss_mb = whole_process(log)
    print(f"   `kaeshi run` process (start-up included): {share:.1f} % of one core over "
          f"{pwall:.1f} s (goal <= 15 %), peak resident memory {rss_mb:.0f} MB "
          "(goal <= 60 MB)")
    if led_ms:
        print(f"   board change -> LED command: median {statistics.median(led_ms):.1f} ms, "
              f"p95 {_p95(led_ms):.1f} ms over {len(led_ms)} changes")
    if web_ms:
        print(f"   board change -> web page update: median {statistics.median(web_ms):.1f} ms, "
              f"p95 {_p95(web_ms):.1f} ms over {len(web_ms)} updates")
    record_ms, shown_ms = flag_fall()
    print(f"   flag fall -> game_over in the record: max {max(record_ms):.3f} ms "
          f"over {len(record_ms)} falls (goal 0)")
    print(f"   flag fall -> shown on the outputs: median {statistics.median(shown_ms):.1f} ms, "
          f"max {max(shown_ms):.1f} ms (goal <= 20 ms)")
    erased, presses, saved, late = presses_at_zero()
    print(f"   in-time presses erased: {erased} of {presses} (1 ms before zero, "
          f"replay speeds {', '.join(str(s) for s in RACE_SPEEDS)}; goal 0)")
    print(f"   late presses that saved the player: {saved} of {late} (1 ms after zero; goal 0)")


def whole_process(log: list[Observation]) -> tuple[float, float, float]:
    """``kaeshi run`` as its own process on the same log: CPU share, wall time, peak RSS."""
    with tempfile.TemporaryDirectory() as tmp:
        log_path = Path(tmp) / "log.jsonl"
        with open(log_path, "w", encoding="utf-8") as f:
            write_observations(log, f)
        cfg = Path(tmp) / "kaeshi.toml"
        cfg.write_text(
            f'[game]\nmode = "home"\n[source]\nkind = "sim"\nlog = "{log_path}"\n'
            f'[journal]\npath = "{Path(tmp) / "j.sqlite"}"\n'
            f'[games]\nfolder = "{Path(tmp) / "games"}"\n'
            '[web]\nhost = "127.0.0.1"\nport = 0\n[leds]\ndriver = "web"\n'
            '[log]\nlevel = "error"\n'
        )
        started = time.monotonic()
        proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config",
                                 str(cfg)], cwd=Path(__file__).resolve().parent.parent)
        status_file = Path(f"/proc/{proc.pid}/status")
        peak_kb = 0
        while True:  # VmHWM only grows: its last reading before the exit is the peak
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak_kb = max(peak_kb, _vm_hwm_kb(status_file))
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        if proc.returncode:
            raise SystemExit(f"kaeshi run failed with exit code {proc.returncode}")
    cpu = usage.ru_utime + usage.ru_stime  # CPU time is the child's own, unlike ru_maxrss
    return 100 * cpu / wall, wall, peak_kb / 1024


def _vm_hwm_kb(status: Path) -> int:
    """The process's peak resident set (kB) from its ``/proc`` status; 0 once it is gone."""
    try:
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


class _Quiet(LogSource):
    """The log, then silence: only the fall timer can end the game."""

    async def items(self) -> AsyncIterator[SourceItem]:
        async for item in super().items():
            if isinstance(item, SourceEnd):
                break
            yield item
        await asyncio.Event().wait()


def flag_fall(trials: int = 8, scale: float = 20.0) -> tuple[list[float], list[float]]:
    """Black's flag falls 10 game seconds after white's starting press; nothing else comes.

    The game runs ``scale`` times faster than real time so a trial takes half a second;
    the display error is measured in real time, which the scale does not change (the
    timer's own latency is what is measured).
    """
    record_ms: list[float] = []
    shown_ms: list[float] = []
    board = Position.start().board_string()
    for trial in range(trials):
        press_t = 0.1 + 0.0137 * trial  # not on any polling grid
        log = [Observation(0.0, board=board), Observation(0.05, board=board),
               Observation(press_t, press=Position.start().to_move.opponent)]
        with tempfile.TemporaryDirectory() as tmp:
            config = defaults().replace(**{
                "game.mode": "home", "source.kind": "sim", "clock.main": 10,
                "journal.path": str(Path(tmp) / "journal.sqlite"),
                "games.folder": str(Path(tmp) / "games"), "web.enabled": False,
            })
            service = Service(config, source=_Quiet(log, speed=scale), time_scale=scale)
            got: list[tuple[float, float, float]] = []

            def on_step(events: list[object], service: Service = service,
                        got: list[tuple[float, float, float]] = got,
                        press_t: float = press_t) -> None:
                for e in events:
                    if getattr(e, "event", None) is not None and e.event.value == "game_over":
                        fall = press_t + 10.0
                        clock = service.time
                        real_fall = clock._m0 + (fall - clock._base) / clock._scale
                        got.append((e.t, fall, time.monotonic() - real_fall))
                        service.stop()

            service.on_step = on_step
            service.open()
            asyncio.run(asyncio.wait_for(service.run(), 30))
        (t, fall, late) = got[0]
        record_ms.append(1000 * abs(t - fall))
        shown_ms.append(1000 * late)
    return record_ms, shown_ms


RACE_SPEEDS = (20, 100, 400)


def presses_at_zero(presses: int = 100) -> tuple[int, int, int, int]:
    """Replays decided by a millisecond: (in-time presses erased, in-time presses,
    late presses that counted, late presses), over :data:`RACE_SPEEDS`.

    In-time: each side presses 1 ms before its own fall, ``presses`` times a game
    (main 10 s, increment 1 s); a press erased shows as a lost move or a time-out.
    Late: games whose deciding press comes 1 ms after the fall.
    """
    erased = saved = late_total = total = 0
    for speed in RACE_SPEEDS:
        log, fall, _ = _race_log(presses, early=0.001)
        events = _replay(log, speed)
        over = [e for e in events if e["event"] == "game_over"]
        counted = sum(1 for o in log[3:] if not over or o.t < over[0]["t"])
        erased += presses - counted + sum(1 for e in over if e["t"] < fall - 1e-9)
        total += presses
        for n in range(10):
            log, fall, running = _race_log(n % 4, early=0.001)
            log.append(Observation(round(fall + 0.001, 6), press=running))
            events = _replay(log, speed)
            over = [e for e in events if e["event"] == "game_over"]
            saved += not (over and abs(over[0]["t"] - fall) < 1e-9)
            late_total += 1
    return erased, total, saved, late_total


def _race_log(presses: int, early: float) -> tuple[list[Observation], float, Any]:
    """Start, white's press, then ``presses`` presses each ``early`` before the
    presser's fall; returns the log, the fall that stands after it and whose it is."""
    from controller.clock import GameClock, TimeControl
    from controller.squares import Color

    board = Position.start().board_string()
    clock = GameClock(TimeControl(10.0, 1.0))
    log = [Observation(0.0, board=board), Observation(0.05, board=board),
           Observation(0.1, press=Color.WHITE)]
    clock.press(Color.WHITE, 0.1)
    for _ in range(presses):
        side = clock.running
        t = round(clock.fall_time() - early, 6)
        log.append(Observation(t, press=side))
        clock.press(side, t)
    return log, clock.fall_time(), clock.running


def _replay(log: list[Observation], speed: float) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        config = defaults().replace(**{
            "game.mode": "home", "source.kind": "sim", "source.speed": float(speed),
            "clock.main": 10, "clock.increment": 1,
            "journal.path": str(Path(tmp) / "journal.sqlite"),
            "games.folder": str(Path(tmp) / "games"), "web.enabled": False,
        })
        service = Service(config, source=LogSource(log, speed=speed))
        service.open()
        asyncio.run(asyncio.wait_for(service.run(), 120))
        return [dict(e) for e in service.table.events]


def _pair(arrivals: list[float], shown: list[float]) -> list[tuple[float, float]]:
    """Match each LED command to the latest arrival before it."""
    out = []
    i = 0
    for s in shown:
        while i + 1 < len(arrivals) and arrivals[i + 1] <= s:
            i += 1
        if arrivals and arrivals[i] <= s:
            out.append((arrivals[i], s))
    return out


def _p95(values: list[float]) -> float:
    return values[min(len(values) - 1, int(0.95 * len(values)))]


if __name__ == "__main__":
    main()
