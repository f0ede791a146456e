"""A whole game from a phone's frames and a tablet's presses, over WebSockets.

The devices' clocks are seconds away from the service's and their messages arrive
50-300 ms late, in order; frames and presses are judged at their own mapped times,
so the arbiter says of the streamed game what it says of the log judged directly.
"""

from __future__ import annotations

import time

from fake_devices import jpegs, play_game
from phone_support import LiveTable, content, game_log, scene, setup_file, truth

from controller.synth.gamevideo import GameVideo


def _play(table: LiveTable, fps: int, offsets: tuple[float, float],
          jitter: tuple[float, float]) -> None:
    log = game_log()
    frames = jpegs(GameVideo(log, scene(), fps, seed=7, tail=1.5, moving_hands=True).frames())
    play_game(table.url.replace("http", "ws"), frames, [o for o in log if o.press is not None],
              offsets, jitter, key=table.key)


def test_a_streamed_game_is_judged_as_its_log(tmp_path):
    """(At 15 fps too: the browser test.)"""
    fps = 10
    table = LiveTable(tmp_path, fps, setup_file(tmp_path, scene()))
    try:
        _play(table, fps, offsets=(6.5, -4.2), jitter=(0.05, 0.3))
        time.sleep(1.5)  # the last press waits for its frames and the network
        got = content(table.events())
    finally:
        table.close()
    assert got == truth(game_log())

