"""The camera page's frames, read into board readings: the browser source's view.

Frames come in stamped on the service's clock (the source mapped each from the phone's
capture instant); here they wait in a bounded queue, are decoded and read by the same
:class:`~controller.vision.watching.watcher.BoardWatcher` as a Pi camera's, looked at
for what the person must fix (:mod:`controller.browser.health`), and their readings
pushed into the source's :class:`~controller.browser.order.InputOrder`. A gap in the
frames (a reload, a locked screen, the board out of view) is bridged here so that no
move made in it is lost or invented. What the view has to say (the camera up or down,
a nudge, an exposure jump) goes back through the :class:`ViewHost` it is given, so this
module never imports the source that owns it.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from typing import Any, Protocol

from controller.boardsize import STANDARD, board_size
from controller.browser.flow import CameraFlow
from controller.browser.health import Advice, FrameLook, look_at
from controller.browser.order import InputOrder
from controller.browser.wire import FrameMsg
from controller.service.sources import LinkChange, Notice, Reading, SourceItem, camera_stable

log = logging.getLogger("kaeshi.service")

#: Frames waiting to be read beyond this are dropped, oldest first (the reader is slow,
#: or a backlog too long).
MAX_QUEUED_FRAMES = 300  # a page's backlog after a dropped socket (20 s at 15 fps)
#: Frame periods without a frame that make a gap in the view (a reload, a locked screen).
GAP_FRAMES = 4
#: Frames after a gap whose line is handed on even if the watcher saw no change.
AFTER_GAP = 3


def unseen(size: int = STANDARD) -> str:
    """What the camera saw while it saw nothing: every square unknown."""
    return "?" * board_size(size).squares


class ViewHost(Protocol):
    """What the view asks of the source that owns it."""

    def trouble(self, text: str, kind: str | None = None) -> None: ...
    def tell(self, item: SourceItem) -> None: ...
    def poke(self) -> None: ...
    def flow_changed(self) -> None: ...


class CameraView:
    """The frames' queue, the watcher, and the gaps in the view (see the module)."""

    def __init__(self, host: ViewHost, order: InputOrder, flow: CameraFlow, fps: int,
                 mono: Callable[[], float], setup_path: str = "",
                 keepalive: float = 1.0, game_size: int = STANDARD) -> None:
        self.host = host
        self.game_size = game_size  # the board's: the set-up must have been made on one
        self.order = order
        self.flow = flow
        self.fps = fps
        self.mono = mono
        self.setup_path = setup_path
        self.keepalive = keepalive
        self.watcher: Any = None
        self.look: FrameLook | None = None
        self.advice: Advice = Advice()
        #: Frames received, read, dropped (queue full), and refused before the sync.
        self.counts = {"received": 0, "read": 0, "dropped": 0, "unsynced": 0}
        self.first_frame_at: float | None = None
        #: The camera page's frames reach the arbiter (a LinkChange said so).
        self.up = False
        self._frames: asyncio.Queue[tuple[float, FrameMsg]] | None = None
        self._told = 0
        self._after_gap = 0
        #: A gap in the view being bridged: (last frame before, first after, frames since).
        self._gap: tuple[float, float, int] | None = None
        self._seen = True

    def open(self) -> None:
        """A fresh queue, on the loop that will read it."""
        self._frames = asyncio.Queue()

    def offer(self, at: float, msg: FrameMsg) -> None:
        """A frame stamped ``at`` on the service's clock, to be read in turn."""
        assert self._frames is not None
        if self._frames.qsize() >= MAX_QUEUED_FRAMES:
            self._frames.get_nowait()
            self.counts["dropped"] += 1
            self.host.trouble("frames dropped: the service reads frames slower than they come")
        if self.first_frame_at is None:
            self.first_frame_at = at
        self._frames.put_nowait((at, msg))

    def down(self, why: str) -> None:
        """The camera's frames stopped reaching the arbiter; said once."""
        if self.up:
            self.up = False
            self.host.tell(LinkChange(False, why))
            self.host.poke()

    # ------------------------------------------------------------- reading
    async def run(self) -> None:
        """Read the queued frames, one at a time, until cancelled."""
        assert self._frames is not None
        loop = asyncio.get_running_loop()
        while True:
            at, msg = await self._frames.get()
            if at < (self.order.camera_mark or -math.inf):
                continue  # a frame from before the last one read (a reloaded page's)
            image = await loop.run_in_executor(None, _decode, msg.jpeg)
            if image is None:
                self.host.trouble("frame: the JPEG could not be decoded")
                continue
            if self.watcher is None:
                self.watcher = await loop.run_in_executor(None, self._watcher, image)
            await self._read(loop, at, image)
            self.host.poke()

    async def _read(self, loop: asyncio.AbstractEventLoop, at: float, image: Any) -> None:
        mark = self.order.camera_mark
        gap = (self._gap is None and mark is not None
               and at - mark > GAP_FRAMES / self.fps)
        obs = await loop.run_in_executor(None, self.watcher.feed, at, image)
        self.counts["read"] += 1
        gap = gap and self.watcher.board_seen  # a frame with no board shows nothing
        if gap and mark is not None:
            self._after_gap = AFTER_GAP
            self._gap = (mark, at, 0)
        if obs is None and self._after_gap and self.watcher.last_line:
            obs = _line(at, self.watcher.last_line)
        self._after_gap = max(0, self._after_gap - 1)
        bridging = self._gap is not None
        if self._gap is not None and self.watcher.board_seen:
            start, end, seen = self._gap
            line = self.watcher.last_line or ""
            if seen + 1 >= AFTER_GAP or (seen >= 1 and "?" not in line):
                self._bridge(start, end, line)
                self._gap = None
            else:
                self._gap = (start, end, seen + 1)
        was_blurred = self.look is not None and self.look.blurred
        self.look = look_at(image, self.watcher, self.look)
        if self.look.blurred and not was_blurred:
            self.host.trouble("camera: a frame out of focus (the phone's autofocus hunting); "
                              "the arbiter waits for frames that agree")
        self.advice = self.look.advice
        self.flow.frame(self.advice.board, bool(self.advice.fix))
        self.host.flow_changed()
        self._news()
        for late in self.watcher.take_late():
            self.order.push(late.t, Reading(board=late.board), self.mono())
        if obs is not None:
            self.order.push(at, Reading(board=obs.board), self.mono())
        if (not bridging or self._gap is None) and self.watcher.board_seen:
            # a frame with no board in view (the phone knocked, the lens covered) is
            # no view: presses and the arbiter wait for the board as for a gap
            self.order.camera_read(at, self.mono())

    def _bridge(self, mark: float, at: float, line: str) -> None:
        """The view was gone from ``mark`` to ``at`` (a reload, a locked screen): what lay
        on the board meanwhile is unknown. A press made in the gap is judged on the first
        view after it, as if taken at the press (the arbiter held its judgement for it);
        the clock keeps the press's own time."""
        self.host.trouble(f"camera: no frames for {at - mark:.1f} s (page reloaded, hidden "
                          "or cut off); judgement waited for the view")
        now = self.mono()
        self.order.push(mark + 0.5 / self.fps, Reading(board=unseen(self.game_size)), now)
        if not line:
            return
        for pressed in self.order.presses_between(mark, at):
            for k in (1, 2):  # two readings that agree: a board the arbiter takes
                self.order.push(pressed + k * 1e-3, Reading(board=line), now)

    def _news(self) -> None:
        """What the last frame changed that people are told: the camera up, the grid
        fitted again or kept, the exposure jumping, the board in or out of view."""
        from controller.vision.watching.watcher import KEPT_GRID

        watcher, tell = self.watcher, self.host.tell
        if not self.up:
            self.up = True
            tell(LinkChange(True, "the camera page streams"))
        for note in watcher.stats.messages[self._told:]:
            if KEPT_GRID in note:
                tell(Notice(f"camera: {note.split(': ', 1)[-1]}; look at the phone and "
                            "the board"))
            elif "the grid was fitted again" in note:
                tell(Notice(f"camera: {note.split(': ', 1)[-1]} (the phone was nudged?)"))
        self._told = len(watcher.stats.messages)
        if self.look is not None and self.look.exposure_jump:
            tell(Notice("camera: the exposure changed (light or the phone's automatic "
                        "exposure); the game goes on as read"))
        if watcher.board_seen != self._seen:
            self._seen = watcher.board_seen
            tell(LinkChange(self._seen, "the board is back in view" if self._seen
                            else "the board is not in view"))

    def _watcher(self, image: Any) -> Any:
        from controller.vision.calibration_file import load_for_game, refused_note
        from controller.vision.pipeline import auto_setup
        from controller.vision.watching.watcher import BoardWatcher

        if self.setup_path:
            cal = load_for_game(self.setup_path, self.game_size)
            if cal.refused:
                log.warning("%s", refused_note(self.setup_path))
            setup = cal.setup
        else:
            setup = auto_setup(image, n=self.game_size)
        return BoardWatcher.on_setup(setup, stable=camera_stable(self.fps),
                                     keepalive=self.keepalive)


def _line(at: float, board: str) -> Any:
    from controller.observation import Observation

    return Observation(at, board=board)


def _decode(jpeg: bytes) -> Any:
    import numpy as np

    from controller.vision.cv import cv2

    return cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
