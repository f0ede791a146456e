"""Which source a service reads: the one the caller gave, or the configuration's.

A game is started before its source is opened (a replay's source needs the journal
to know where to resume), so what a game must know of its source (whether its boards
come debounced, how long a press waits for the frames after it) is answered here
from the configuration, before the source exists.
"""

from __future__ import annotations

import logging

from controller.arbiter.presswait import press_wait
from controller.service.config import Config
from controller.service.gametime import GameTime
from controller.service.recovery import JournalKeeper
from controller.service.replay_logs import ReplayLogs
from controller.service.sources import CameraSource, HallSource, LogSource, Source, camera_stable
from controller.service.table import Table

log = logging.getLogger("kaeshi.service")


class SourceChoice:
    """The service's source, and what a game must know of it before it is opened."""

    def __init__(self, config: Config, logs: ReplayLogs, table: Table, time: GameTime,
                 keeper: JournalKeeper, token: str, given: Source | None = None) -> None:
        self.config = config
        self.logs = logs
        self.table = table
        self.time = time
        self.keeper = keeper
        self.token = token
        #: The source handed over by the caller (a test's, the demo's board), if any.
        self.given = given

    def make(self) -> Source:
        if self.given is not None:
            return self.given
        c = self.config
        kind = c["source.kind"]
        if kind == "sim":
            return LogSource.from_file(self.logs.file or c["source.log"], c["source.speed"],
                                       self.keeper.resume_cursor(), count=self.logs.count,
                                       size=c["game.size"])
        if kind == "hall":
            return HallSource(c["source.device"], c["source.baud"],
                              self.table.official_position, size=c["game.size"])
        if kind == "browser":
            return self._browser_source()
        return CameraSource(c["source.camera"], c["source.fps"], c["source.camera_setup"],
                            keepalive=c["source.lost_after"] / 2, size=c["game.size"])

    def _browser_source(self) -> Source:
        from controller.browser.source import BrowserSource

        c = self.config
        size = (c["source.width"], c["source.height"])
        if c["source.camera_setup"]:
            size = _setup_size(c["source.camera_setup"], size)
        return BrowserSource(c["source.fps"], c["source.camera_setup"],
                             keepalive=c["source.lost_after"] / 2, network=c["source.network"],
                             sync_allowance=c["source.sync_allowance"],
                             hold_max=c["source.hold_max"], size=size,
                             game_size=c["game.size"],
                             monotonic=self.time.monotonic, device_key=device_key(self.token))

    def settled(self) -> bool:
        """Whether the source's boards come already debounced (``Source.settled``);
        the class is asked, since the source is not opened yet."""
        if self.given is not None:
            return self.given.settled
        kinds: dict[str, type[Source]] = {
            "sim": LogSource, "hall": HallSource, "camera": CameraSource,
        }
        kind = self.config["source.kind"]
        return False if kind == "browser" else kinds[kind].settled

    def press_wait(self) -> float:
        """Seconds a press waits for the camera's frames after it (the one rule of
        :mod:`controller.arbiter.presswait`); a replayed camera log waits as its header
        says it was watched (as ``kaeshi arbitrate`` judges it); other sources are
        judged at each press."""
        config = self.config
        if config["source.kind"] == "sim":
            header = self.logs.header()
            if header is None or header.fps is None:
                return 0.0
            return press_wait(header.fps, header.stable, config["source.press_wait_max"])
        if config["source.kind"] not in ("camera", "browser"):
            return 0.0
        fps = config["source.fps"]
        wait = press_wait(fps, camera_stable(fps), config["source.press_wait_max"])
        if config["source.kind"] == "browser":
            # a press and the frames are stamped by two devices, each synced to within
            # the allowance: the frames that show the board at the press come that much
            # later at worst
            wait += 2 * config["source.sync_allowance"]
        return wait


def _setup_size(path: str, default: tuple[int, int]) -> tuple[int, int]:
    """The frame size a camera set-up file was made for (the phone is asked for it)."""
    try:
        from controller.vision.calibration_file import load_calibration

        w, h = load_calibration(path, bare=True).setup.image_size
        return int(w), int(h)
    except Exception as exc:  # the source names a broken file when it reads it
        log.debug("camera set-up size not read: %s", exc)
        return default


def device_key(token: str) -> str:
    """The key in the camera and clock pages' addresses: derived from the arbiter's token,
    so it outlives a restart when the token is configured, and tells nothing of it."""
    import hashlib
    import hmac

    return hmac.new(token.encode("utf-8"), b"kaeshi phone pages", hashlib.sha256).hexdigest()[:16]
