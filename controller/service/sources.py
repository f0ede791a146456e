"""Where readings come from: the sensor board, the camera, or a replayed log.

Every source yields the same few items — a board reading, a clock press, the
link going down or coming back, the end of a replay — so the service never knows
which sensor feeds it. Times of live sensors are *not* taken from the source: the
service stamps every reading with its own clock when it arrives, so all times in a
game share one time base, across sources and across restarts. A replayed log is
the exception: its readings carry the log's own times (``Reading.t``), so a replay
is the recorded game to the millisecond, and a replay killed and resumed ends
exactly as the uninterrupted one.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import AsyncIterator, Callable, Iterable, Iterator, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from controller.arbiter.readings import HOLD
from controller.boardsize import STANDARD
from controller.errors import KaeshiError
from controller.observation import Observation, read_observations
from controller.squares import Color

if TYPE_CHECKING:
    from controller.vision.watching.watcher import BoardWatcher

log = logging.getLogger("kaeshi.service")


@dataclass(frozen=True, slots=True)
class Reading:
    """A board reading or a clock press. ``cursor`` marks a replayable source's position;
    ``t`` is a replay's own time for it; ``at`` the service's monotonic clock when it
    happened, for a live input that knows (a clock button's edge). With neither, the
    service stamps it on arrival."""

    board: str | None = None
    press: Color | None = None
    cursor: int | None = None
    t: float | None = None
    at: float | None = None


@dataclass(frozen=True, slots=True)
class LinkChange:
    up: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class Notice:
    """What the arbiter should hear from the source that is neither a board nor a link
    change: the camera's picture moved as if the camera did, and the grid was kept."""

    detail: str


@dataclass(frozen=True, slots=True)
class SourceEnd:
    """A replay has nothing more to give."""


SourceItem = Reading | LinkChange | Notice | SourceEnd


class Source(Protocol):
    name: str
    #: True when silence itself means the sensor is gone (a streaming camera).
    watchdog: bool
    #: True when every board it gives is already debounced (the sensor board), so the
    #: arbiter counts each reading as it arrives; False for raw frames, which count
    #: once a second frame agrees or they stood a moment.
    settled: bool
    #: Real seconds by which an input may arrive after the instant it is stamped with.
    #: A flag is declared only this long after its fall, so a press stamped before zero
    #: is never beaten by the flag (0: stamped on arrival, or handed over in time order).
    @property
    def latency(self) -> float: ...

    def items(self) -> AsyncIterator[SourceItem]: ...

    async def close(self) -> None: ...


#: Longest real wait between two replayed readings, in seconds. A log may hold a
#: long gap (a break, or a damaged time stamp far in the future); the replay waits
#: at most this long for it, and the readings still carry the log's times, so the
#: clocks are charged as recorded.
MAX_REPLAY_WAIT = 5.0


class LogSource:
    """Replays an observation log in real time, ``speed`` times faster.

    ``start`` skips the readings already taken in before a restart, so a resumed
    game sees each reading of the log once; the position is kept, so a retry after a
    failure continues where the replay was, never from the start again. Gaps are
    replayed as they are, up to :data:`MAX_REPLAY_WAIT` each, so the clocks and the
    arbiter see the players' real rhythm. A log given as a file is streamed, never
    held in memory whole.
    """

    name = "sim"
    watchdog = False
    settled = False  # a log's frames may misread, as the simulator's do
    latency = 0.0  # readings are handed over in time order: see ``pending``

    def __init__(
        self, observations: Iterable[Observation] | Path, speed: float = 1.0, start: int = 0,
        count: int | None = None, size: int = STANDARD,
    ) -> None:
        if speed <= 0:
            raise ValueError(f"replay speed must be positive, not {speed}")
        self.observations = observations
        self.size = size  # of the board the log's readings show
        self.speed = speed
        self.start = max(0, start)  # index of the next reading to give
        if count is None and not isinstance(observations, Path):
            count = len(observations) if isinstance(observations, Sized) else None
        self.count = count
        self._closed = False
        #: The log time of the next reading, not yet handed over (None: none is left).
        #: Readings come in time order, so nothing stamped before it can still come:
        #: a flag that fell before it waits for it, one that fell after needs no wait.
        self.pending: float | None = None

    @classmethod
    def from_file(cls, path: str | Path, speed: float = 1.0, start: int = 0,
                  count: int | None = None, size: int = STANDARD) -> LogSource:
        return cls(Path(path), speed, start, count, size)

    def _stream(self) -> Iterator[Observation]:
        if not isinstance(self.observations, Path):
            yield from self.observations
            return
        try:
            with open(self.observations, encoding="utf-8") as f:
                yield from read_observations(f, self.size)
        except (OSError, UnicodeDecodeError) as exc:
            raise KaeshiError(f"observation log {self.observations}: {exc}") from None

    async def items(self) -> AsyncIterator[SourceItem]:
        size = f"{self.count} observations" if self.count is not None else "an observation log"
        yield LinkChange(True, f"replaying {size}")
        loop = asyncio.get_running_loop()
        began: float | None = None
        t0 = 0.0
        for index, obs in enumerate(itertools.islice(self._stream(), self.start, None),
                                    self.start):
            if self._closed:
                return
            self.pending = obs.t
            if began is None:
                began, t0 = loop.time(), obs.t
            due = began + (obs.t - t0) / self.speed
            delay = due - loop.time()
            if delay > MAX_REPLAY_WAIT:
                began -= delay - MAX_REPLAY_WAIT  # cut the gap; later readings keep pace
                delay = MAX_REPLAY_WAIT
            if delay > 0:
                await asyncio.sleep(delay)
            self.start = index + 1
            yield Reading(obs.board, obs.press, index, obs.t)
        self.pending = None
        yield SourceEnd()

    async def close(self) -> None:
        self._closed = True
        self.pending = None


class HallSource:
    """The Hall-sensor board behind its host driver (serial; a pty in simulation).

    The firmware debounces every square before it reports a board, and the driver
    passes on only boards that changed, so each board that arrives is already a
    settled reading that will not be repeated. It is handed on once, and the arbiter
    is told (``settled``) to count it at once: a disc turned just before the clock
    press is part of the move.

    The driver is imported only here and only when this source is chosen, so the
    rest of the service runs on machines without pyserial's device access.
    """

    name = "hall"
    watchdog = False
    settled = True
    latency = 0.0  # stamped on arrival

    def __init__(
        self, device: str, baud: int, official_position: Callable[[], Any] | None = None,
        size: int = STANDARD,
    ) -> None:
        self.device = device
        self.baud = baud
        self.size = size  # of the game: a smaller one is played on the board's middle
        #: The arbiter's position, so the driver can explain a board changed while unplugged.
        self.official_position = official_position
        self._link: Any = None

    async def items(self) -> AsyncIterator[SourceItem]:
        from controller.hall import host  # the driver edge, loaded on demand
        from controller.hall.link import LinkState

        down = (LinkState.DISCONNECTED, LinkState.CLOSED, LinkState.PROTOCOL_MISMATCH)
        if self._link is not None:
            await self._link.close()
        from controller.hall.window import OffBoard

        self._link = host.open_link(self.device, self.baud, game_size=self.size,
                                    official_position=self.official_position)
        async for item in self._link.items():
            if isinstance(item, Observation):
                yield Reading(item.board, item.press)
            elif isinstance(item, OffBoard):
                yield Notice(item.detail)
            else:
                yield LinkChange(item.state not in down, f"{item.state.value}: {item.message}")
                if item.state in (LinkState.CLOSED, LinkState.PROTOCOL_MISMATCH):
                    raise OSError(f"sensor board on {self.device}: {item.message}")

    def set_leds(self, assignments: Any) -> None:
        if self._link is not None:
            self._link.set_leds(assignments)

    async def close(self) -> None:
        if self._link is not None:
            await self._link.close()


def camera_stable(fps: float) -> int:
    """Frames a square must read the same before the camera's watcher reports it.

    The arbiter itself takes a reading only once a second frame agrees, or once it
    stood ``HOLD`` seconds. Where a frame is short enough that a one-frame misread
    cannot stand that long (with room to spare), the watcher leaves that to the
    arbiter and reports each reading at once. A slower camera settles its squares in
    the watcher as well.
    """
    return 1 if 2.0 / fps <= HOLD else 2


class CameraSource:
    """The camera over the board: frames -> the vision package's watcher -> readings.

    ``camera`` is a device index (``0``), ``picamera`` for the Pi camera, or a video
    file (replayed at its own pace, then the source ends). The set-up (board position
    in the image and colour model) comes from ``kaeshi calibrate camera``'s file, or,
    without one, is estimated from the first frame (the board must be in full view).
    The watcher reports a board when it changes and again on the next frame while it
    holds; each report is handed on once, and the arbiter takes a square once two
    frames agree (see :meth:`_stable`). A still board is reported again every
    ``keepalive`` seconds, so silence means the camera (or the board) is gone.
    """

    name = "camera"
    watchdog = True
    settled = False
    latency = 0.0  # stamped on arrival (its presses come from the GPIO clock)

    def __init__(self, camera: str, fps: int, setup_path: str = "",
                 keepalive: float = 1.0, size: int = STANDARD) -> None:
        self.camera = camera
        self.size = size  # the game's board: the set-up must have been made on one
        self.fps = fps
        self.setup_path = setup_path
        self._setup: Any = None  # as loaded from ``setup_path``
        self.keepalive = keepalive
        self._frames: Any = None
        self._closed = False

    def _open(self) -> tuple[Any, Any]:
        """Blocking: open the frame source and the watcher (in a worker thread)."""
        from controller.vision import capture  # the driver edge, loaded on demand

        cam = self.camera.strip()
        if cam.isascii() and cam.isdigit():
            frames = capture.open_source(camera=int(cam), fps=self.fps)
        elif cam.lower() == "picamera":
            frames = capture.open_source(picamera=True, fps=self.fps)
        else:
            frames = capture.open_source(video=cam, fps=self.fps)
        return frames, frames.frames()

    def _watcher(self, image: Any) -> BoardWatcher:
        from controller.vision.calibration_file import load_for_game, refused_note
        from controller.vision.pipeline import auto_setup
        from controller.vision.watching.watcher import BoardWatcher

        if self.setup_path:
            cal = load_for_game(self.setup_path, self.size)
            if cal.refused:
                log.warning("%s", refused_note(self.setup_path))
            setup = self._setup = cal.setup
        else:
            setup = auto_setup(image, n=self.size)
        return BoardWatcher.on_setup(setup, stable=self._stable(), keepalive=self.keepalive)

    def _keep_turn(self, watcher: BoardWatcher) -> None:
        """Keep in the set-up file the quarter turn the game settled (see
        :mod:`controller.vision.watching.turn_in_play`); a file that cannot be written leaves
        the game read the settled way, and the next start settles it again."""
        from controller.vision.calibration_file import CalibrationError, save_settled_turn

        if not self.setup_path or self._setup is None:
            return
        try:
            save_settled_turn(self.setup_path, watcher.settled_setup(self._setup))
        except CalibrationError as exc:
            log.warning("the game settled which way round the board is, but it could not "
                        "be kept: %s", exc)
            return
        log.info("the game settled which way round the board is; kept in %s", self.setup_path)

    def _stable(self) -> int:
        return camera_stable(self.fps)

    async def items(self) -> AsyncIterator[SourceItem]:
        loop = asyncio.get_running_loop()
        self._closed = False
        source, frames = await loop.run_in_executor(None, self._open)
        self._frames = source
        live = bool(getattr(source, "live", False))
        from controller.vision.watching.watcher import KEPT_GRID

        watcher: BoardWatcher | None = None
        told = 0  # the watcher's messages already passed on
        turn_kept = False
        period = 1.0 / self.fps
        last = float("-inf")
        seen = True
        delivering = False  # "up" only once a frame came: an open that fails is no link
        try:
            while not self._closed:
                frame = await loop.run_in_executor(None, next, frames, None)
                if frame is None:
                    if live:
                        raise OSError(f"camera {self.camera} stopped delivering frames")
                    yield SourceEnd()
                    return
                if not delivering:
                    delivering = True
                    yield LinkChange(True, f"camera {self.camera} open")
                if live and frame.t - last < period:
                    continue  # keep the camera's buffer drained, read at ``fps``
                last = frame.t
                if watcher is None:
                    watcher = await loop.run_in_executor(None, self._watcher, frame.image)
                obs = await loop.run_in_executor(None, watcher.feed, frame.t, frame.image)
                for note in watcher.stats.messages[told:]:
                    if KEPT_GRID in note:
                        yield Notice(f"camera: {note.split(': ', 1)[-1]}; look at the "
                                     "camera and the board, and calibrate again if it moved")
                told = len(watcher.stats.messages)
                if watcher.turn_settled and not turn_kept:
                    turn_kept = True
                    await loop.run_in_executor(None, self._keep_turn, watcher)
                if watcher.board_seen != seen:
                    seen = watcher.board_seen
                    yield LinkChange(seen, "the board is back in view" if seen
                                     else "the board is not in view")
                for late in watcher.take_late():  # held while the turn was unsettled
                    yield Reading(late.board)
                if obs is not None:
                    yield Reading(obs.board)
                elif not live:
                    await asyncio.sleep(0)
        finally:
            source.close()

    async def close(self) -> None:
        self._closed = True
