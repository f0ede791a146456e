"""A phone as the camera, a tablet as the clock: what one table costs, and how many fit.

Tables run as ``kaeshi run`` does with ``source.kind = "browser"``, each on its own event
loop thread in this process; simulated phones stream a rendered game (JPEG frames) over
WebSockets on 127.0.0.1, simulated tablets press at the game's press times.

* frames per second one table sustains: the per-frame cost (decode + watcher) and the
  rate read when a phone offers 30 fps;
* press-to-judgement delay at 10 fps: from the tap to the move's event (the press wait,
  the inputs' network allowance and the work);
* bandwidth per table: the frames' bytes per second (320x240 and 640x480 at quality 85);
* CPU per table at 10 fps with 1, 2 and 4 tables on this machine, from the first frame
  to the last judgement: in one process (the simulated devices' own work included, so
  it is an upper bound), and as a club runs them, one ``kaeshi run`` process per table
  (each process's own CPU and memory, from ``/proc``; the devices outside it);
* how many tables a machine carries, estimated from the per-frame cost and from a table
  process's CPU, for this machine, a Raspberry Pi 4 and a laptop (the Pi's and the
  laptop's speed against this machine is an assumption, printed with the figure:
  nothing here ran on a Pi).
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import websockets

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "phone"))  # club_support: a table as a process

from service_scripts import scripted_log  # noqa: E402

from controller.browser.wire import encode_frame, encode_pong, encode_press  # noqa: E402
from controller.records.model import GameRecord  # noqa: E402
from controller.service.app import Service  # noqa: E402
from controller.service.config import defaults  # noqa: E402
from controller.synth.gamevideo import GameVideo  # noqa: E402
from controller.synth.replay import calibrate_synthetic, default_scene  # noqa: E402
from controller.vision.cv import cv2  # noqa: E402

#: How much slower a Raspberry Pi 4's core is than this machine's for this work, and a
#: laptop's: assumed (Cortex-A72 at 1.5 GHz against a current x86 core), not measured.
PI4_RATIO = 3.5
PI4_CORES = 4
LAPTOP_RATIO = 1.0
LAPTOP_CORES = 4
MOVES = ["f5", "d6", "c3", "d3", "c4", "f4"]


class Table:
    def __init__(self, tmp: Path, n: int, setup: Path, fps: int) -> None:
        cfg = defaults().replace(**{
            "game.mode": "tournament", "source.kind": "browser", "source.fps": fps,
            "source.camera_setup": str(setup), "source.lost_after": 5.0,
            "journal.path": str(tmp / f"t{n}.sqlite"), "games.folder": str(tmp / f"g{n}"),
            "web.host": "127.0.0.1", "web.port": 0, "web.https": "off",
            "web.token": "bench-arbiter-token-0123",
        })
        self.service = Service(cfg, exit_when_done=False)
        self.judged: list[float] = []
        self.service.on_step = lambda events: self.judged.extend(
            time.monotonic() for e in events if e.event == "move")
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.service.on_ready = lambda _s: ready.set()
        self.thread = threading.Thread(target=lambda: self.loop.run_until_complete(
            self.service.run()), daemon=True)
        self.thread.start()
        ready.wait(20)
        assert self.service.outputs.web is not None
        self.ws = f"ws://127.0.0.1:{self.service.outputs.web.port}/ws"

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.service.stop)
        self.thread.join(15)
        if not self.thread.is_alive():
            self.loop.close()


async def device(url: str, offset: float) -> Any:
    ws = await websockets.connect(url, max_size=1 << 22)

    async def answer() -> None:
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] == "ping":
                await ws.send(encode_pong(msg["id"], (time.monotonic() + offset) * 1000.0))
    task = asyncio.create_task(answer())
    await asyncio.sleep(1.5)  # the clock sync's first pings
    return ws, task


class Devices:
    """A table's simulated phone and tablet, their clocks synchronised."""

    def __init__(self, cam: Any, clk: Any, tasks: list[asyncio.Task[None]]) -> None:
        self.cam, self.clk, self.tasks = cam, clk, tasks

    @classmethod
    async def open(cls, ws: str, key: str) -> Devices:
        cam, cam_task = await device(f"{ws}/camera?key={key}", 3.0)
        clk, clk_task = await device(f"{ws}/clock?key={key}", -2.0)
        return cls(cam, clk, [cam_task, clk_task])

    async def stream(self, frames: list[tuple[float, bytes]], presses: list[Any],
                     fps_offered: float | None = None) -> list[float]:
        """The game in real time (or frames as fast as ``fps_offered``); the taps' times."""
        loop = asyncio.get_running_loop()
        start = loop.time() + 0.1
        t0 = frames[0][0]
        tapped: list[float] = []
        due = sorted([(t - t0, 0, d) for t, d in frames]
                     + [(p.t - t0, 1, p.press) for p in presses], key=lambda x: x[0])
        seq = 0
        for at, kind, what in due:
            if fps_offered is None:
                await asyncio.sleep(max(0.0, start + at - loop.time()))
            seq += 1
            stamp = (time.monotonic() + (3.0 if kind == 0 else -2.0)) * 1000.0
            if kind == 0:
                await self.cam.send(encode_frame(stamp, seq, what))
                if fps_offered is not None:
                    await asyncio.sleep(1.0 / fps_offered)
            else:
                tapped.append(time.monotonic())
                await self.clk.send(encode_press(what, stamp, seq))
        return tapped

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await self.cam.close()
        await self.clk.close()


async def play(table: Table, frames: list[tuple[float, bytes]], presses: list[Any],
               fps_offered: float | None = None) -> list[float]:
    devices = await Devices.open(table.ws, table.service.intake.active.device_key)
    tapped = await devices.stream(frames, presses, fps_offered)
    await asyncio.sleep(2.0)
    await devices.close()
    return tapped


async def _in_this_process(tables: list[Table], frames: list[tuple[float, bytes]],
                           presses: list[Any]) -> tuple[float, float]:
    """This process's CPU seconds (tables and devices) over one game streamed to every
    table at once, and the wall time: from the first frame to the last judgement."""
    devices = await asyncio.gather(*(
        Devices.open(t.ws, t.service.intake.active.device_key) for t in tables))
    cpu0, wall0 = time.process_time(), time.monotonic()
    await asyncio.gather(*(d.stream(frames, presses) for d in devices))
    await asyncio.sleep(1.0)  # the last press's judgement
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    await asyncio.gather(*(d.close() for d in devices))
    return cpu, wall


async def _measured(tables: list[Any], frames: list[tuple[float, bytes]],
                    presses: list[Any]) -> tuple[list[float], float, list[float]]:
    """Each table process's CPU seconds over one game streamed to all at once, the wall
    time, and each process's memory at the end."""
    from club_support import cpu_seconds, rss_mib

    devices = await asyncio.gather(*(Devices.open(t.ws, t.key) for t in tables))
    cpu0, wall0 = [cpu_seconds(t.proc.pid) for t in tables], time.monotonic()
    await asyncio.gather(*(d.stream(frames, presses) for d in devices))
    await asyncio.sleep(1.0)  # the last press's judgement
    cpu = [cpu_seconds(t.proc.pid) - c for t, c in zip(tables, cpu0, strict=True)]
    wall = time.monotonic() - wall0
    rss = [rss_mib(t.proc.pid) for t in tables]
    await asyncio.gather(*(d.close() for d in devices))
    return cpu, wall, rss


def table_processes(tmp: Path, setup: Path, frames: list[tuple[float, bytes]],
                    presses: list[Any]) -> float:
    """CPU of each ``kaeshi run`` process while its phone streams at 10 fps, as a club
    runs its tables (one process each); the devices run here, outside what is counted.
    Returns the share of a core one table took, the most of the runs."""
    from club_support import start_table

    most = 0.0
    for n in (1, 2, 4):
        tables = [start_table(tmp / f"p{n}-{k}", k + 1, 10, setup) for k in range(n)]
        try:
            cpu, wall, rss = asyncio.run(_measured(tables, frames, presses))
        finally:
            for t in tables:
                t.stop()
        shares = [c / wall * 100 for c in cpu]
        print(f"{n} kaeshi run process(es) at 10 fps, 320x240: "
              f"{statistics.mean(shares):.1f} % of a core per table (each "
              f"{', '.join(f'{s:.1f}' for s in shares)} %; over {wall:.0f} s of play, "
              f"this machine, {os.cpu_count()} cores); {statistics.mean(rss):.0f} MiB of "
              f"memory each")
        most = max(most, statistics.mean(shares) / 100)
    return most


def encoded(frames: Any, quality: int = 85) -> list[tuple[float, bytes]]:
    out = []
    for f in frames:
        ok, data = cv2.imencode(".jpg", f.image, [cv2.IMWRITE_JPEG_QUALITY, quality])
        out.append((f.t, data.tobytes()))
    return out


def main() -> None:
    import logging

    logging.getLogger("kaeshi").setLevel(logging.ERROR)  # the figures, not the tables' news
    tmp = Path(tempfile.mkdtemp(prefix="kaeshi-bench-phone-"))
    log = scripted_log(GameRecord.from_squares(MOVES), repeats=4, step=0.1, think=0.9)
    presses = [o for o in log if o.press is not None]
    sizes: dict[str, float] = {}
    for w, h in ((320, 240), (640, 480)):
        scene = replace(default_scene(), width=w, height=h)
        jp = encoded(GameVideo(log, scene, 10, seed=7, moving_hands=True).frames())
        sizes[f"{w}x{h}"] = statistics.mean(len(d) for _, d in jp)
    scene = replace(default_scene(), width=320, height=240)
    setup = tmp / "camera.json"
    setup.write_text(json.dumps(calibrate_synthetic(scene, seed=7).to_dict()))
    frames = encoded(GameVideo(log, scene, 10, seed=7, tail=1.0, moving_hands=True).frames())

    for size, mean in sizes.items():
        print(f"bandwidth per table, {size} JPEG q85 at 10 fps: {mean * 10 / 1024:.0f} KiB/s "
              f"({mean / 1024:.1f} KiB a frame; the clock tablet adds < 1 KiB/s)")

    # the rate one table sustains: a phone offering 30 fps
    table = Table(tmp, 0, setup, 30)
    cpu0, wall0 = time.process_time(), time.monotonic()
    asyncio.run(play(table, frames * 2, [], fps_offered=30.0))
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    counts = dict(table.service.intake.active.counts)
    table.close()
    read_rate = counts["read"] / max(1e-9, wall - 3.5)
    per_frame = cpu / max(1, counts["read"])
    print(f"one phone sending as fast as it can, up to 30 fps: {counts['read']} of "
          f"{counts['received']} frames read, {read_rate:.1f} fps; {per_frame * 1000:.1f} ms CPU "
          f"a frame at 320x240 "
          f"(at most {1 / per_frame:.0f} fps on one core)")

    # press-to-judgement at 10 fps
    table = Table(tmp, 1, setup, 10)
    tapped = asyncio.run(play(table, frames, presses))
    judged = list(table.judged)
    table.close()
    moves = [p for p, o in zip(tapped, presses, strict=True) if o is not presses[0]]
    delays = [j - p for p, j in zip(moves, judged, strict=False)]
    if delays:
        print(f"press to judgement at 10 fps: median {statistics.median(delays) * 1000:.0f} ms, "
              f"max {max(delays) * 1000:.0f} ms over {len(delays)} moves (the press wait "
              f"0.6 s, the inputs' network allowance 0.5 s)")

    # CPU per table with several tables on this machine
    for n in (1, 2, 4):
        tables = [Table(tmp, 10 + 10 * n + k, setup, 10) for k in range(n)]
        cpu, wall = asyncio.run(_in_this_process(tables, frames, presses))
        lost = sum(t.service.intake.active.counts["dropped"] for t in tables)
        for t in tables:
            t.close()
        share = cpu / wall / n
        print(f"{n} table(s) at 10 fps in one process: {share * 100:.0f} % of a core per table "
              f"(this machine, {os.cpu_count()} cores), {lost} frames dropped")
    share = table_processes(tmp, setup, frames, presses)
    for what, cores_here in (("the per-frame cost", 1.0 / (per_frame * 10)),
                             ("a table process's CPU", 1.0 / share)):
        print(f"tables per machine at 10 fps from {what}: this machine ~"
              f"{cores_here * (os.cpu_count() or 1) * 0.7:.0f} ({os.cpu_count()} cores at "
              f"70 %); Raspberry Pi 4 ~{cores_here / PI4_RATIO * PI4_CORES * 0.7:.0f} "
              f"(assumed {PI4_RATIO}x slower a core, {PI4_CORES} cores); a 4-core laptop ~"
              f"{cores_here / LAPTOP_RATIO * LAPTOP_CORES * 0.7:.0f}")


if __name__ == "__main__":
    main()
