"""The arbiter hears when the camera may have moved: the watcher kept its grid though
the picture changed as if the camera moved, and the service says so on the page, in
the log and in the journal, while the game goes on as read."""

from __future__ import annotations

import asyncio
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from controller.service.app import Service
from controller.service.config import defaults
from controller.service.journal import Journal
from controller.service.sources import CameraSource, Notice, Reading
from controller.vision.watching.watcher import KEPT_GRID

START = "-" * 27 + "OX------XO" + "-" * 27
AFTER_F5 = "-" * 27 + "OX------XX-------X" + "-" * 19  # black f5 turns e5


class _Frames:
    live = False

    def close(self) -> None:
        pass


class _Watcher:
    """A watcher that reads a fixed story and, at the third frame, keeps its grid."""

    def __init__(self) -> None:
        self.stats = SimpleNamespace(messages=[])
        self.turn_settled = False
        self.board_seen = True
        self.n = 0

    def feed(self, t: float, image: Any) -> Any:
        self.n += 1
        if self.n == 3:
            self.stats.messages.append(f"t={t:.2f}: the picture changed as if the camera "
                                       f"moved, but a grid fitted again reads the board no "
                                       f"better: {KEPT_GRID}")
        return SimpleNamespace(board=START)

    def take_late(self) -> list[Any]:
        return []


def test_the_camera_source_passes_a_kept_grid_on_as_a_notice(monkeypatch) -> None:
    source = CameraSource("video.mp4", fps=10)
    frames = [SimpleNamespace(t=i / 10, image=None) for i in range(5)]
    monkeypatch.setattr(source, "_open", lambda: (_Frames(), iter(frames)))
    monkeypatch.setattr(source, "_watcher", lambda image: _Watcher())

    async def collect() -> list[Any]:
        return [item async for item in source.items()]

    items = asyncio.run(collect())
    notices = [i for i in items if isinstance(i, Notice)]
    assert len(notices) == 1  # told once, when it happened
    assert "the camera may have moved" in notices[0].detail
    assert "calibrate again" in notices[0].detail
    assert sum(isinstance(i, Reading) for i in items) == 5  # every frame still read


class _Fed:
    name = "test"
    watchdog = False
    settled = True
    latency = 0.0

    def __init__(self, items: list[Any]) -> None:
        self.items_ = items

    async def items(self):
        for item in self.items_:
            yield item
            await asyncio.sleep(0)
        while True:
            await asyncio.sleep(3600)

    async def close(self) -> None:
        pass


def test_the_service_tells_the_arbiter_and_plays_on(tmp_path: Path) -> None:
    cfg = defaults().replace(**{
        "game.mode": "tournament", "source.kind": "hall", "web.enabled": False,
        "journal.path": str(tmp_path / "j.sqlite"), "games.folder": str(tmp_path / "games"),
        "clock.enabled": False})
    told = "camera: the grid was kept (the camera may have moved); look at the camera"
    source = _Fed([Reading(board=START), Notice(told), Reading(board=AFTER_F5),
                   Reading(board=AFTER_F5)])
    service = Service(cfg, source=source)
    service.open()

    async def scenario() -> None:
        task = asyncio.create_task(service.run())
        for _ in range(500):
            if service.table.core is not None and service.table.core.arbiter.last_board == AFTER_F5:
                break
            await asyncio.sleep(0.01)
        service.stop()
        await task

    asyncio.run(asyncio.wait_for(scenario(), 30))
    assert service.table.message == told
    assert service.facade.snapshot("arbiter")["message"] == told
    journal = Journal(tmp_path / "j.sqlite", writer=False)
    game = journal.games()[-1]
    notes = [e.data for e in journal.entries(game.id, ("note",))]
    assert {"notice": told} in notes
    assert service.table.core is not None and service.table.core.arbiter.last_board == AFTER_F5
