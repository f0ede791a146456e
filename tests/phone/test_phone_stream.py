"""A whole game from a phone's frames and a tablet's presses, over WebSockets.

The devices' clocks are seconds away from the service's and their messages arrive
50-300 ms late, in order; frames and presses are judged at their own mapped times,
so the arbiter says of the streamed game what it says of the log judged directly.
"""

from __future__ import annotations

import asyncio
import time

import pytest
from fake_devices import FakePhone, FakeTablet, jpegs
from phone_support import LiveTable, content, game_log, scene, setup_file, truth

from controller.synth.gamevideo import GameVideo


def _play(table: LiveTable, fps: int, offsets: tuple[float, float],
          jitter: tuple[float, float], drop: tuple[float, float] | None = None) -> None:
    log = game_log()
    the_scene = scene()
    frames = jpegs(GameVideo(log, the_scene, fps, seed=7, tail=1.5, moving_hands=True).frames())
    presses = [o for o in log if o.press is not None]
    ws = table.url.replace("http", "ws")

    async def main() -> None:
        phone = FakePhone(ws + "/ws/camera", offsets[0], jitter, seed=1)
        tablet = FakeTablet(ws + "/ws/clock", offsets[1], jitter, seed=2)
        await phone.open()
        await tablet.open()
        await phone.synced()
        await tablet.synced()
        loop = asyncio.get_running_loop()
        start = loop.time() + 0.2
        t0 = frames[0][0]
        due = sorted([(t - t0, "frame", data) for t, data in frames]
                     + [(p.t - t0, "press", p.press) for p in presses], key=lambda d: d[0])
        for at, kind, what in due:
            await asyncio.sleep(max(0.0, start + at - loop.time()))
            if kind == "press":
                tablet.press(what)
            elif drop is None or not drop[0] <= at < drop[1]:
                phone.frame(what)
        await phone.close()
        await tablet.close()

    asyncio.run(main())


@pytest.mark.parametrize("fps", [10, 15])
def test_a_streamed_game_is_judged_as_its_log(tmp_path, fps):
    table = LiveTable(tmp_path, fps, setup_file(tmp_path, scene()))
    try:
        _play(table, fps, offsets=(6.5, -4.2), jitter=(0.05, 0.3))
        time.sleep(1.5)  # the last press waits for its frames and the network
        got = content(table.events())
    finally:
        table.close()
    assert got == truth(game_log())
