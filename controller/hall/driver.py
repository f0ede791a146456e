"""Host driver for the Hall-sensor board: observations in, LED commands out.

One I/O thread owns the port. It parses frames, turns board changes into
:class:`~controller.observation.Observation` objects and link events into
:class:`~controller.hall.link.LinkStatus` objects (both on one queue, in the order
they happened: :mod:`~controller.hall.reports`), sends commands one at a time and
re-sends each on the same SEQ until the board acknowledges it (100 ms, 5 re-sends:
:mod:`~controller.hall.command_queue`). When the link goes, it keeps reopening the
port; when the link comes back it compares the board with the one it last reported
and either replays the legal moves that explain the difference or flags the change
(:mod:`~controller.hall.reconnect`), so nothing that happened on the table is
silently lost.

Observation times are the host clock (``clock``, monotonic by default) when the
frame arrived: the clock buttons are read by the host too, and the arbiter compares
the two. The board's own uptime is only used to notice that it restarted and to time
the sensors' settling after a (re)connection, which a host reading late must not cut
short.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Protocol

from controller.hall import messages as m
from controller.hall.command_queue import IDENTITY_WAIT, CommandQueue, command_name
from controller.hall.errors import CommandFailed, HallError, LinkLost, ProtocolMismatch
from controller.hall.frames import (
    AckMsg,
    BoardMsg,
    DeviceMsg,
    FrameParser,
    IdentityMsg,
    PayloadError,
    RawMsg,
    decode,
)
from controller.hall.leds import MAX_BRIGHTNESS, LedAssignments, led_payload
from controller.hall.link import LinkState, LinkStats, LinkStatus
from controller.hall.reconnect import SETTLE_TIME, Reconnection
from controller.hall.reports import Item, RawReadings, Reports
from controller.position import Position

__all__ = [
    "HANDSHAKE_TIMEOUT", "IDENTITY_WAIT", "REOPEN_INTERVAL", "SETTLE_TIME", "SILENCE_TIMEOUT",
    "HallBoard", "Item", "LinkStats", "Transport", "serial_opener",
]

log = logging.getLogger("kaeshi.hall")

#: No byte for this long means the link is gone (four heartbeats missed).
SILENCE_TIMEOUT = 1.0
#: Pause between attempts to reopen a lost port.
REOPEN_INTERVAL = 0.1
#: A board that has just been opened may be restarting (the Mega resets on open).
HANDSHAKE_TIMEOUT = 3.0


class Transport(Protocol):
    def read(self) -> bytes: ...
    def write(self, data: bytes) -> None: ...
    def close(self) -> None: ...


def serial_opener(baud: int = m.BAUD) -> Callable[[str], Transport]:
    """Open real serial ports (pyserial is imported only when one is opened)."""

    def opener(port: str) -> Transport:
        from controller.hall.port import SerialTransport

        return SerialTransport(port, baud)

    return opener


class HallBoard:
    """The sensor board on ``port``. Use as a context manager, or open()/close().

    ``official_position`` may return the arbiter's current position: after a lost
    link, the board found on reconnection is explained from it (with the side to
    move known) rather than from the last board seen. It is called from the driver's
    thread, so it should just hand over an immutable snapshot (a ``Position`` is one).
    """

    def __init__(
        self,
        port: str,
        *,
        rate_hz: int = 0,
        clock: Callable[[], float] = time.monotonic,
        opener: Callable[[str], Transport] | None = None,
        official_position: Callable[[], Position | None] | None = None,
        silence_timeout: float = SILENCE_TIMEOUT,
    ) -> None:
        self.port = port
        self.rate_hz = rate_hz
        self._clock = clock
        self._opener = opener or serial_opener()
        self._silence_timeout = silence_timeout
        self.stats = LinkStats()
        self.identity: IdentityMsg | None = None
        self._reports = Reports(clock)
        self._reconnection = Reconnection(self._reports, official_position)
        self._raw = RawReadings(port)
        self._commands = CommandQueue(port, self.stats)
        self._mode = m.Mode.BOARD
        self._transport: Transport | None = None
        self._parser = FrameParser()
        self._phase = "down"  # down -> identify -> up
        self._ever_up = False
        self._fatal: HallError | None = None
        self._stop = threading.Event()
        self._up = threading.Event()
        self._thread: threading.Thread | None = None
        self._last_rx = 0.0
        self._opened_at = 0.0
        self._next_open = 0.0
        self._dev_seq: int | None = None
        self._dev_t: int | None = None

    # ------------------------------------------------------------- lifecycle
    def open(self, timeout: float = 10.0) -> IdentityMsg:
        """Connect and shake hands; raises :class:`HallError` naming the port on failure."""
        if self._thread is not None:
            raise HallError(f"sensor board on {self.port} is already open")
        self._transport = self._opener(self.port)  # raises LinkLost naming the port
        self._on_opened(self._clock())
        self._thread = threading.Thread(target=self._run, name="hall-io", daemon=True)
        self._thread.start()
        if not self._up.wait(timeout) or self._fatal is not None:
            fatal = self._fatal
            self.close()
            if fatal is not None:
                raise fatal
            raise HallError(
                f"no answer from a Kaeshi sensor board on {self.port} within {timeout:g} s"
            )
        assert self.identity is not None
        return self.identity

    def close(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=5.0)
            if thread.is_alive():  # it closes the port itself when it ends
                log.warning("sensor board driver on %s is slow to stop", self.port)
            else:
                self._drop_transport()
        else:
            self._drop_transport()
        self._commands.fail_all(HallError(f"sensor board on {self.port} was closed"))

    def __enter__(self) -> HallBoard:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._phase == "up"

    @property
    def board(self) -> str | None:
        """The last board reported."""
        return self._reports.board

    # ----------------------------------------------------------- consuming
    def get(self, timeout: float | None = None) -> Item | None:
        """The next observation or link status, or None if none came within ``timeout``."""
        return self._reports.get(timeout)

    def __iter__(self) -> Iterator[Item]:
        """Observations and link statuses until the driver is closed or stops."""
        while True:
            item = self.get(timeout=0.1)
            if item is None:
                if self._stop.is_set() and self._reports.empty():
                    return
                continue
            yield item
            if isinstance(item, LinkStatus) and item.state in (
                LinkState.CLOSED, LinkState.PROTOCOL_MISMATCH
            ):
                return

    # ------------------------------------------------------------ commands
    def set_leds(self, assignments: LedAssignments, brightness: float = MAX_BRIGHTNESS,
                 wait: bool = False, timeout: float = 2.0) -> None:
        """Show ``{square: ((r, g, b), pattern)}`` on the overlay; other squares go dark.

        Returns at once: the newest request wins and is re-sent after a reconnection
        or a board restart. ``wait=True`` blocks until the board acknowledged it.
        """
        payload = led_payload(assignments, brightness)
        if wait:
            self.command(m.MsgType.SET_LEDS, payload, timeout=timeout)
        self._commands.keep_leds(payload, send=not wait)

    def command(self, msg_type: int, payload: bytes = b"", timeout: float = 10.0) -> AckMsg:
        """Send a command and wait for its acknowledgement; raise if refused or lost."""
        if self._fatal is not None:
            raise self._fatal
        if self._thread is None:
            raise HallError(f"sensor board on {self.port} is not open")
        cmd = self._commands.submit(msg_type, payload)
        try:
            return cmd.future.result(timeout)
        except FutureTimeout:
            self._commands.withdraw(cmd)  # never sent: make sure it never is
            raise CommandFailed(
                f"{command_name(msg_type)} to the sensor board on {self.port}: "
                f"no answer in {timeout:g} s"
            ) from None

    def set_mode(self, mode: m.Mode, rate_hz: int = 0) -> None:
        self.command(m.MsgType.SET_MODE, bytes((mode, rate_hz)))
        self._mode = mode
        self.rate_hz = rate_hz

    def identify(self) -> IdentityMsg:
        """Ask the board who it is (its calibration CRC changes after COMMIT_CAL)."""
        for _ in range(3):  # IDENTITY is not acknowledged: a lost one is asked for again
            self.identity = None
            self.command(m.MsgType.IDENTIFY)
            deadline = time.monotonic() + 0.5
            while self.identity is None and time.monotonic() < deadline:
                time.sleep(0.005)
            if self.identity is not None:
                return self.identity
        raise CommandFailed(f"no IDENTITY from the sensor board on {self.port}")

    def clear_raw(self) -> None:
        self._raw.clear()

    def read_raw(self, count: int, timeout: float = 10.0) -> list[RawMsg]:
        """The next ``count`` RAW frames (the board must be in raw mode)."""
        return self._raw.take(count, timeout)

    # ------------------------------------------------------------- I/O loop
    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._step()
        except Exception as exc:  # the service must hear about it, not lose the thread
            log.exception("sensor board driver stopped")
            self._fatal = HallError(f"sensor board driver on {self.port} stopped: {exc}")
            self._reports.status(LinkState.CLOSED, str(self._fatal))
        finally:
            if self._fatal is None:
                self._reports.status(LinkState.CLOSED, f"sensor board on {self.port} closed")
            self._drop_transport()

    def _step(self) -> None:
        transport = self._transport
        if transport is None:
            now = self._clock()
            if now < self._next_open:
                time.sleep(min(0.02, self._next_open - now))
                return
            try:
                self._transport = self._opener(self.port)
            except LinkLost:
                self._next_open = self._clock() + REOPEN_INTERVAL
                return
            self._on_opened(self._clock())
            return
        try:
            data = transport.read()
            now = self._clock()
            if data:
                self._last_rx = now
                for frame in self._parser.feed(data):
                    try:
                        msg = decode(frame)
                    except (PayloadError, ValueError):
                        self.stats.bad_payloads += 1
                        continue
                    self._handle(msg, now)
                    if self._fatal is not None:
                        self._stop.set()
                        return
                self._sync_parser_stats()
            if self._phase == "identify":
                self._commands.keep_identifying(now)
            frame_out = self._commands.next_frame(now, self._phase == "up")
            if frame_out is not None:
                transport.write(frame_out)
            if self._phase == "up" and now - self._last_rx > self._silence_timeout:
                self._lost(f"no data for {self._silence_timeout:g} s")
            elif self._phase == "identify" and now - self._opened_at > HANDSHAKE_TIMEOUT:
                self._lost("no answer to IDENTIFY")
        except LinkLost as exc:
            self._lost(str(exc))

    def _sync_parser_stats(self) -> None:
        self.stats.frames = self._parser.frames
        self.stats.crc_errors = self._parser.crc_errors
        self.stats.skipped_bytes = self._parser.skipped_bytes

    def _on_opened(self, now: float) -> None:
        self._parser.reset()
        self._opened_at = now
        self._last_rx = now
        self._dev_seq = None
        self._dev_t = None
        self._phase = "identify"
        self._commands.queue_internal(m.MsgType.IDENTIFY, front=True)

    def _lost(self, why: str) -> None:
        was_up = self._phase == "up"
        self._drop_transport()
        self._phase = "down"
        self._next_open = self._clock() + REOPEN_INTERVAL
        self._commands.link_lost()
        if was_up:
            self.stats.disconnects += 1
            self._reconnection.lost(self._clock())
            self._reports.status(LinkState.DISCONNECTED,
                                 f"sensor board on {self.port} lost ({why}); reconnecting")
            log.warning("sensor board on %s lost (%s)", self.port, why)

    def _drop_transport(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.close()

    # ------------------------------------------------------------- messages
    def _handle(self, msg: DeviceMsg, now: float) -> None:
        t_ms = getattr(msg, "t_ms", None)
        if t_ms is not None and self._phase == "up":
            flags = getattr(msg, "flags", 0)
            if self._restarted(t_ms, flags, now):
                self._dev_seq = msg.seq  # the firmware counts afresh after a restart
                return
        if self._dev_seq is not None:
            self.stats.dropped_frames += (msg.seq - self._dev_seq - 1) & 0xFF
        self._dev_seq = msg.seq
        if isinstance(msg, AckMsg):
            self._commands.on_ack(msg)
        elif isinstance(msg, IdentityMsg):
            self._on_identity(msg, now)
        elif self._phase != "up":
            return  # nothing but the handshake counts until the version is known
        elif isinstance(msg, BoardMsg):
            self._reconnection.on_board(msg.board, msg.t_ms, now)
        elif t_ms is not None:  # a heartbeat or raw readings: the board's clock moved on
            self._reconnection.check_pending(t_ms, now)
            if isinstance(msg, RawMsg):
                self._raw.add(msg)

    def _on_identity(self, ident: IdentityMsg, now: float) -> None:
        if ident.protocol_version != m.PROTOCOL_VERSION:
            self._fatal = ProtocolMismatch(
                f"sensor board on {self.port} runs firmware {ident.firmware} speaking "
                f"protocol v{ident.protocol_version}, but this host speaks protocol "
                f"v{m.PROTOCOL_VERSION}: flash the matching firmware"
            )
            self._reports.status(LinkState.PROTOCOL_MISMATCH, str(self._fatal))
            self._up.set()
            return
        self.identity = ident
        if self._phase != "identify":
            return
        self._phase = "up"
        self._last_rx = now
        self._commands.queue_internal(m.MsgType.SET_MODE, bytes((self._mode, self.rate_hz)),
                                      front=True, on_done=self._up.set)
        self._commands.connected()
        self._reconnection.connected()
        if not self._ever_up:
            self._ever_up = True
            self._reports.status(
                LinkState.CONNECTED,
                f"sensor board {ident.board_id:#010x} on {self.port}, firmware "
                f"{ident.firmware}, protocol v{ident.protocol_version}, calibration "
                + ("loaded" if ident.flags & m.Flag.CAL_VALID else "MISSING"),
            )

    def _restarted(self, t_ms: int, flags: int, now: float) -> bool:
        """Notice the firmware restarting (its uptime went back) and redo the handshake."""
        previous, self._dev_t = self._dev_t, t_ms
        if previous is None or t_ms >= previous:
            return False
        self.stats.restarts += 1
        self._reconnection.restarted()
        cause = "its watchdog" if flags & m.Flag.WATCHDOG_RESET else "a reset"
        self._reports.status(LinkState.BOARD_RESTARTED,
                             f"sensor board on {self.port} restarted ({cause}); reconfiguring")
        log.warning("sensor board on %s restarted (%s)", self.port, cause)
        self._phase = "identify"
        self._opened_at = now
        self._dev_t = None
        self._commands.board_restarted()
        return True
