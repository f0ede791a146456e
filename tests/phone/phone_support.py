"""A browser-sourced table for the phone tests: a short game, its video, the service.

The game is a scripted log (one forgotten flip included), filmed by the synthetic
renderer in small frames; the service runs on its own event loop thread with
``source.kind = "browser"``, its web server on a free port of 127.0.0.1. What the
arbiter says of the log judged directly is the truth the tests compare with.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from service_scripts import scripted_log

from controller.arbiter import ArbiterConfig, arbitrate
from controller.events import Event
from controller.observation import Observation
from controller.records.model import GameRecord
from controller.service.app import Service
from controller.service.config import defaults

MOVES = ["f5", "d6", "c3", "d3"]
FORGOTTEN_AT = 3  # c3: the mover leaves a disc unturned, the opponent points it out


def game_log() -> list[Observation]:
    """A short game at a person's pace: frames a tenth of a second apart, a press
    0.2 s after the hand left, the next hand 0.9 s after it."""
    log = scripted_log(GameRecord.from_squares(MOVES), forgotten_at=FORGOTTEN_AT,
                       repeats=4, step=0.1, think=0.9)
    lead = 1.5  # the camera films the start position first (the page is opening)
    return [replace(o, t=round(o.t + lead, 3)) for o in log]


def content(events: list[Event] | list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Moves and irregularities, without their times (those are the devices') and the
    move number the service adds for people to read."""
    out = []
    for e in events:
        d = e if isinstance(e, dict) else e.to_dict()
        if d["event"] in ("move", "irregularity"):
            out.append({k: v for k, v in d.items() if k not in ("t", "time", "comment", "n")})
    return out


def truth(log: list[Observation]) -> list[dict[str, Any]]:
    return content(arbitrate(log, ArbiterConfig()))


def scene() -> object:
    from controller.synth.replay import default_scene

    return replace(default_scene(), width=320, height=240)


def setup_file(tmp: Path, the_scene: object) -> Path:
    from controller.synth.replay import calibrate_synthetic

    path = tmp / "camera.json"
    path.write_text(json.dumps(calibrate_synthetic(the_scene, seed=7).to_dict()))
    return path


class LiveTable:
    """``kaeshi run`` with a browser source, on its own loop thread."""

    def __init__(self, tmp: Path, fps: int, setup: Path, **options: Any) -> None:
        tmp.mkdir(parents=True, exist_ok=True)
        cfg = defaults().replace(**{
            "game.mode": "tournament",
            "source.kind": "browser",
            "source.fps": fps,
            "source.camera_setup": str(setup),
            "source.lost_after": 3.0,
            "journal.path": str(tmp / "journal.sqlite"),
            "games.folder": str(tmp / "games"),
            "web.host": "127.0.0.1",
            "web.port": 0,
            "web.token": "phone-test-arbiter-token",
            "web.https": "off",
            **options,
        })
        self.service = Service(cfg, exit_when_done=False)
        self.loop = asyncio.new_event_loop()
        self.ready = threading.Event()
        self.service.on_ready = lambda _s: self.ready.set()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        if not self.ready.wait(20):
            raise RuntimeError("the service did not come up")

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        self.loop.run_until_complete(self.service.run())

    @property
    def url(self) -> str:
        web = self.service.outputs.web
        assert web is not None
        return f"http://127.0.0.1:{web.port}"

    @property
    def key(self) -> str:
        """The device key the pages' addresses carry."""
        return str(self.source.device_key)

    @property
    def source(self) -> Any:
        return self.service.intake.active

    def on_loop(self, fn: Callable[[], Any]) -> Any:
        async def call() -> Any:
            return fn()

        return asyncio.run_coroutine_threadsafe(call(), self.loop).result(10)

    def events(self) -> list[dict[str, Any]]:
        return self.on_loop(lambda: list(self.service.table.events))

    def close(self) -> None:
        self.loop.call_soon_threadsafe(self.service.stop)
        self.thread.join(15)
        if not self.thread.is_alive():
            self.loop.close()
