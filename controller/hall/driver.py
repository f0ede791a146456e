"""Host driver for the Hall-sensor board: observations in, LED commands out.

One I/O thread owns the port. It parses frames, turns board changes into
:class:`~controller.observation.Observation` objects and link events into
:class:`~controller.hall.link.LinkStatus` objects (both on one queue, in the order
they happened), sends commands one at a time and re-sends each on the same SEQ until
the board acknowledges it (100 ms, 5 re-sends). When the link goes, it keeps
reopening the port; when the link comes back it compares the board with the one
it last reported and either replays the legal moves that explain the difference or
flags the change, so nothing that happened on the table is silently lost.

Observation times are the host clock (``clock``, monotonic by default) when the
frame arrived: the clock buttons are read by the host too, and the arbiter compares
the two. The board's own uptime is only used to notice that it restarted.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass, field
from typing import Protocol

from controller.hall import messages as m
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
    encode_frame,
)
from controller.hall.leds import MAX_BRIGHTNESS, LedAssignments, led_payload
from controller.hall.link import LinkState, LinkStatus
from controller.hall.reconcile import reconcile
from controller.observation import Observation
from controller.position import Position

log = logging.getLogger("kaeshi.hall")

#: No byte for this long means the link is gone (four heartbeats missed).
SILENCE_TIMEOUT = 1.0
#: Pause between attempts to reopen a lost port.
REOPEN_INTERVAL = 0.1
#: How long after a (re)connection boards with unknown squares are held back while the
#: sensors settle, before the board is compared with the last one reported.
SETTLE_TIME = 0.3
#: A board that has just been opened may be restarting (the Mega resets on open).
HANDSHAKE_TIMEOUT = 3.0
#: IDENTITY follows the ACK of IDENTIFY at once; if it does not, ask again.
IDENTITY_WAIT = 0.3


class Transport(Protocol):
    def read(self) -> bytes: ...
    def write(self, data: bytes) -> None: ...
    def close(self) -> None: ...


Item = Observation | LinkStatus


@dataclass
class _Command:
    type: int
    payload: bytes
    timeout: float
    future: Future[AckMsg] = field(default_factory=Future)
    seq: int = -1
    tries: int = 0
    sent_at: float = 0.0
    internal: bool = False
    on_done: Callable[[], None] | None = None


@dataclass
class LinkStats:
    """Health figures of the link since the driver was opened."""

    frames: int = 0
    crc_errors: int = 0
    skipped_bytes: int = 0
    dropped_frames: int = 0
    bad_payloads: int = 0
    retries: int = 0
    disconnects: int = 0
    restarts: int = 0


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
        self._official = official_position
        self._silence_timeout = silence_timeout
        self.stats = LinkStats()
        self.identity: IdentityMsg | None = None
        self.board: str | None = None  # last board reported
        self._items: queue.Queue[Item] = queue.Queue()
        self._raw: deque[RawMsg] = deque(maxlen=4096)
        self._raw_cond = threading.Condition()
        self._commands: deque[_Command] = deque()
        self._cmd_lock = threading.Lock()
        self._inflight: _Command | None = None
        self._seq = 0
        self._mode = m.Mode.BOARD
        self._leds: bytes | None = None
        self._leds_dirty = False
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
        self._last_t = float("-inf")
        self._pending_since: float | None = None  # reconnection awaiting a settled board
        self._pending_board: str | None = None
        self._down_since: float | None = None
        self._gap = False  # the next settled board follows a lost link or a restart
        self._identify_sent = 0.0

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
        self._fail_commands(HallError(f"sensor board on {self.port} was closed"))

    def __enter__(self) -> HallBoard:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def connected(self) -> bool:
        return self._phase == "up"

    # ----------------------------------------------------------- consuming
    def get(self, timeout: float | None = None) -> Item | None:
        """The next observation or link status, or None if none came within ``timeout``."""
        try:
            return self._items.get(timeout=timeout)
        except queue.Empty:
            return None

    def __iter__(self) -> Iterator[Item]:
        """Observations and link statuses until the driver is closed or stops."""
        while True:
            item = self.get(timeout=0.1)
            if item is None:
                if self._stop.is_set() and self._items.empty():
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
            with self._cmd_lock:
                self._leds = payload
            return
        with self._cmd_lock:
            self._leds = payload
            self._leds_dirty = True

    def command(self, msg_type: int, payload: bytes = b"", timeout: float = 10.0) -> AckMsg:
        """Send a command and wait for its acknowledgement; raise if refused or lost."""
        if self._fatal is not None:
            raise self._fatal
        if self._thread is None:
            raise HallError(f"sensor board on {self.port} is not open")
        ack_timeout = (m.COMMIT_CAL_TIMEOUT_MS if msg_type == m.MsgType.COMMIT_CAL
                       else m.ACK_TIMEOUT_MS) / 1000
        cmd = _Command(msg_type, payload, ack_timeout)
        with self._cmd_lock:
            self._commands.append(cmd)
        try:
            return cmd.future.result(timeout)
        except FutureTimeout:
            with self._cmd_lock:
                if cmd in self._commands:  # never sent: make sure it never is
                    self._commands.remove(cmd)
            raise CommandFailed(
                f"{_name(msg_type)} to the sensor board on {self.port}: no answer in {timeout:g} s"
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
        with self._raw_cond:
            self._raw.clear()

    def read_raw(self, count: int, timeout: float = 10.0) -> list[RawMsg]:
        """The next ``count`` RAW frames (the board must be in raw mode)."""
        out: list[RawMsg] = []
        deadline = time.monotonic() + timeout
        with self._raw_cond:
            while len(out) < count:
                while not self._raw:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        raise CommandFailed(
                            f"only {len(out)} of {count} raw readings from the sensor board "
                            f"on {self.port} in {timeout:g} s"
                        )
                    self._raw_cond.wait(left)
                out.append(self._raw.popleft())
        return out

    # ------------------------------------------------------------- I/O loop
    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                self._step()
        except Exception as exc:  # the service must hear about it, not lose the thread
            log.exception("sensor board driver stopped")
            self._fatal = HallError(f"sensor board driver on {self.port} stopped: {exc}")
            self._emit_status(LinkState.CLOSED, str(self._fatal))
        finally:
            if self._fatal is None:
                self._emit_status(LinkState.CLOSED, f"sensor board on {self.port} closed")
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
                self._keep_identifying(now)
            self._service_commands(now)
            self._check_pending(now)
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
        self._queue_internal(m.MsgType.IDENTIFY, b"", front=True)

    def _lost(self, why: str) -> None:
        was_up = self._phase == "up"
        self._drop_transport()
        self._phase = "down"
        self._next_open = self._clock() + REOPEN_INTERVAL
        # Commands in flight cannot be trusted to have run; callers hear of it, internal
        # handshake steps are redone after the next open.
        if self._inflight is not None:
            if not self._inflight.internal:
                self._inflight.future.set_exception(
                    LinkLost(f"sensor board on {self.port} went away during "
                             f"{_name(self._inflight.type)}")
                )
            self._inflight = None
        with self._cmd_lock:
            self._commands = deque(c for c in self._commands if not c.internal)
        if was_up:
            self.stats.disconnects += 1
            self._down_since = self._clock()
            self._pending_since = None
            self._gap = True
            self._emit_status(LinkState.DISCONNECTED,
                              f"sensor board on {self.port} lost ({why}); reconnecting")
            log.warning("sensor board on %s lost (%s)", self.port, why)

    def _drop_transport(self) -> None:
        transport, self._transport = self._transport, None
        if transport is not None:
            transport.close()

    # --------------------------------------------------------- command flow
    def _queue_internal(self, msg_type: int, payload: bytes, front: bool = False,
                        on_done: Callable[[], None] | None = None) -> None:
        cmd = _Command(msg_type, payload, m.ACK_TIMEOUT_MS / 1000, internal=True,
                       on_done=on_done)
        with self._cmd_lock:
            if front:
                self._commands.appendleft(cmd)
            else:
                self._commands.append(cmd)

    def _keep_identifying(self, now: float) -> None:
        """Ask again if IDENTIFY was acknowledged but its IDENTITY frame got lost."""
        if self._inflight is not None or now - self._identify_sent < IDENTITY_WAIT:
            return
        with self._cmd_lock:
            if any(c.type == m.MsgType.IDENTIFY and c.internal for c in self._commands):
                return
        self._queue_internal(m.MsgType.IDENTIFY, b"", front=True)

    def _service_commands(self, now: float) -> None:
        cmd = self._inflight
        if cmd is not None:
            if now - cmd.sent_at < cmd.timeout:
                return
            if cmd.tries > m.MAX_RETRIES:
                self._inflight = None
                if cmd.internal and cmd.type == m.MsgType.IDENTIFY:
                    # A board still booting: keep asking, with a new SEQ, until the
                    # handshake timeout gives up on the port.
                    self._queue_internal(m.MsgType.IDENTIFY, b"", front=True)
                elif cmd.internal and cmd.type == m.MsgType.SET_LEDS:
                    self._leds_dirty = True  # the picture still has to reach the board
                elif not cmd.internal:
                    cmd.future.set_exception(CommandFailed(
                        f"{_name(cmd.type)} to the sensor board on {self.port}: no ACK after "
                        f"{m.MAX_RETRIES + 1} tries"
                    ))
                return
            self.stats.retries += 1
            self._send(cmd, now)
            return
        with self._cmd_lock:
            if self._commands and (self._phase == "up" or self._commands[0].internal):
                cmd = self._commands.popleft()
            elif self._phase == "up" and self._leds_dirty and self._leds is not None:
                self._leds_dirty = False
                cmd = _Command(m.MsgType.SET_LEDS, self._leds, m.ACK_TIMEOUT_MS / 1000,
                               internal=True)
            else:
                return
        self._seq = (self._seq + 1) & 0xFF
        cmd.seq = self._seq
        self._inflight = cmd
        self._send(cmd, now)

    def _send(self, cmd: _Command, now: float) -> None:
        cmd.tries += 1
        cmd.sent_at = now
        if cmd.type == m.MsgType.IDENTIFY:
            self._identify_sent = now
        assert self._transport is not None
        self._transport.write(encode_frame(cmd.seq, cmd.type, cmd.payload))

    def _fail_commands(self, exc: HallError) -> None:
        with self._cmd_lock:
            pending = list(self._commands)
            self._commands.clear()
        if self._inflight is not None:
            pending.append(self._inflight)
            self._inflight = None
        for cmd in pending:
            if not cmd.future.done():
                cmd.future.set_exception(exc)

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
            self._on_ack(msg)
        elif isinstance(msg, IdentityMsg):
            self._on_identity(msg, now)
        elif self._phase != "up":
            return  # nothing but the handshake counts until the version is known
        elif isinstance(msg, BoardMsg):
            self._on_board(msg.board, now)
        elif isinstance(msg, RawMsg):
            with self._raw_cond:
                self._raw.append(msg)
                self._raw_cond.notify_all()

    def _on_ack(self, ack: AckMsg) -> None:
        cmd = self._inflight
        if cmd is None or ack.cmd_seq != cmd.seq or ack.cmd_type != cmd.type:
            return  # a late ACK of an earlier try
        self._inflight = None
        if ack.status != m.Status.OK:
            err = CommandFailed(
                f"sensor board on {self.port} refused {_name(cmd.type)}: "
                f"{_status_name(ack.status)}"
            )
            if cmd.internal:
                log.warning("%s", err)
            else:
                cmd.future.set_exception(err)
            return
        if cmd.on_done is not None:
            cmd.on_done()
        if not cmd.future.done():
            cmd.future.set_result(ack)

    def _on_identity(self, ident: IdentityMsg, now: float) -> None:
        if ident.protocol_version != m.PROTOCOL_VERSION:
            self._fatal = ProtocolMismatch(
                f"sensor board on {self.port} runs firmware {ident.firmware} speaking "
                f"protocol v{ident.protocol_version}, but this host speaks protocol "
                f"v{m.PROTOCOL_VERSION}: flash the matching firmware"
            )
            self._emit_status(LinkState.PROTOCOL_MISMATCH, str(self._fatal))
            self._up.set()
            return
        self.identity = ident
        if self._phase != "identify":
            return
        self._phase = "up"
        self._last_rx = now
        self._queue_internal(m.MsgType.SET_MODE, bytes((self._mode, self.rate_hz)), front=True,
                             on_done=self._up.set)
        with self._cmd_lock:
            self._leds_dirty = self._leds is not None
        self._pending_since = now  # hold boards with unknown squares while sensors settle
        self._pending_board = None
        if not self._ever_up:
            self._ever_up = True
            self._emit_status(
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
        self._gap = True
        cause = "its watchdog" if flags & m.Flag.WATCHDOG_RESET else "a reset"
        self._emit_status(LinkState.BOARD_RESTARTED,
                          f"sensor board on {self.port} restarted ({cause}); reconfiguring")
        log.warning("sensor board on %s restarted (%s)", self.port, cause)
        self._phase = "identify"
        self._opened_at = now
        self._dev_t = None
        cmd, self._inflight = self._inflight, None
        with self._cmd_lock:
            self._commands = deque(c for c in self._commands if not c.internal)
            if cmd is not None and not cmd.internal:
                cmd.tries = 0  # the restart may have swallowed it: send it again
                self._commands.appendleft(cmd)
        self._queue_internal(m.MsgType.IDENTIFY, b"", front=True)
        return True

    # ---------------------------------------------------------------- boards
    def _on_board(self, board: str, now: float) -> None:
        if self._pending_since is not None:
            if "?" in board and now - self._pending_since < SETTLE_TIME:
                self._pending_board = board
                return
            self._pending_since = None
            self._after_gap(board, now)
            return
        if board != self.board:
            self._emit_board(board, now)

    def _check_pending(self, now: float) -> None:
        if (self._pending_since is not None and self._pending_board is not None
                and now - self._pending_since >= SETTLE_TIME):
            board = self._pending_board
            self._pending_since = None
            self._after_gap(board, now)

    def _after_gap(self, board: str, now: float) -> None:
        """The first settled board after a lost link or a restart."""
        if not self._gap:  # first connection: nothing to compare with
            if board != self.board:
                self._emit_board(board, now)
            return
        self._gap = False
        away = "" if self._down_since is None else f" after {now - self._down_since:.1f} s"
        self._down_since = None
        official = self._official() if self._official is not None else None
        before = official.board_string() if official is not None else self.board
        to_move = official.to_move if official is not None else None
        if before is None:
            self._emit_status(LinkState.RECONNECTED, f"sensor board back{away}")
            self._emit_board(board, now)
            return
        if board == before:
            self._emit_status(LinkState.RECONNECTED,
                              f"sensor board back{away}; board unchanged", before, board)
            if board != self.board:
                self._emit_board(board, now)
            return
        result = reconcile(before, board, to_move)
        if result.explained:
            moves = tuple((c.value, sq) for c, sq in result.moves)
            text = ", ".join(f"{p} {sq or 'pass'}" for p, sq in moves)
            self._emit_status(LinkState.MOVES_INFERRED,
                              f"sensor board back{away}; moves made meanwhile: {text}",
                              before, board, moves)
            for b in result.boards:
                self._emit_board(b, now)
            return
        self._emit_status(
            LinkState.POSITION_UNCERTAIN,
            f"sensor board back{away}; the board changed meanwhile and {result.reason}: "
            "check the position",
            before, board,
        )
        self._emit_board(board, now)

    def _stamp(self, now: float) -> float:
        t = max(now, self._last_t)
        self._last_t = t
        return t

    def _emit_board(self, board: str, now: float) -> None:
        self.board = board
        self._items.put(Observation(self._stamp(now), board=board))

    def _emit_status(self, state: LinkState, message: str, before: str | None = None,
                     after: str | None = None,
                     moves: tuple[tuple[str, str | None], ...] = ()) -> None:
        status = LinkStatus(self._stamp(self._clock()), state, message, before, after, moves)
        log.info("%s", message)
        self._items.put(status)


def _name(msg_type: int) -> str:
    try:
        return m.MsgType(msg_type).name
    except ValueError:
        return f"command {msg_type:#04x}"


def _status_name(status: int) -> str:
    try:
        return m.Status(status).name.lower().replace("_", " ")
    except ValueError:
        return f"status {status}"
