"""Commands to the sensor board: one in flight, re-sent on its SEQ until acknowledged.

A frame lost either way is repaired by sending the same SEQ again (100 ms apart, at
most ``MAX_RETRIES`` re-sends); the firmware answers a repeat without running it twice.
Two kinds of command share the queue: those a caller waits on, whose future says how
they went, and the driver's own handshake steps (IDENTIFY, SET_MODE, the LED picture),
which are redone after a reconnection rather than reported. Of LED pictures only the
newest is worth sending, so it is kept apart and sent when nothing else waits.

Nothing here does I/O: the driver asks for the next frame to write and hands in ACKs,
so the retry rules are the same whatever the port is.
"""

from __future__ import annotations

import logging
import threading
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass, field

from controller.hall import messages as m
from controller.hall.errors import CommandFailed, HallError, LinkLost
from controller.hall.frames import AckMsg, encode_frame
from controller.hall.link import LinkStats

log = logging.getLogger("kaeshi.hall")

#: IDENTITY follows the ACK of IDENTIFY at once; if it does not, ask again.
IDENTITY_WAIT = 0.3


@dataclass
class Command:
    type: int
    payload: bytes
    timeout: float
    future: Future[AckMsg] = field(default_factory=Future)
    seq: int = -1
    tries: int = 0
    sent_at: float = 0.0
    internal: bool = False
    on_done: Callable[[], None] | None = None


class CommandQueue:
    """The commands waiting for the board on ``port`` and the one in flight.

    Callers submit from their own threads; everything else runs on the driver's I/O
    thread.
    """

    def __init__(self, port: str, stats: LinkStats) -> None:
        self.port = port
        self._stats = stats
        self._lock = threading.Lock()
        self._waiting: deque[Command] = deque()
        self._inflight: Command | None = None
        self._seq = 0
        self._leds: bytes | None = None
        self._leds_dirty = False
        self._identify_sent = 0.0

    # ------------------------------------------------------------- callers
    def submit(self, msg_type: int, payload: bytes) -> Command:
        """Queue a command a caller waits on; its future gets the ACK or the failure."""
        ack_timeout = (m.COMMIT_CAL_TIMEOUT_MS if msg_type == m.MsgType.COMMIT_CAL
                       else m.ACK_TIMEOUT_MS) / 1000
        cmd = Command(msg_type, payload, ack_timeout)
        with self._lock:
            self._waiting.append(cmd)
        return cmd

    def withdraw(self, cmd: Command) -> None:
        """Make sure a command the caller gave up on is never sent, if it was not yet."""
        with self._lock:
            if cmd in self._waiting:
                self._waiting.remove(cmd)

    def keep_leds(self, payload: bytes, send: bool) -> None:
        """Remember the LED picture to restore after a reconnection; ``send`` it too."""
        with self._lock:
            self._leds = payload
            if send:
                self._leds_dirty = True

    # -------------------------------------------------------------- driver
    def queue_internal(self, msg_type: int, payload: bytes = b"", front: bool = False,
                       on_done: Callable[[], None] | None = None) -> None:
        cmd = Command(msg_type, payload, m.ACK_TIMEOUT_MS / 1000, internal=True,
                      on_done=on_done)
        with self._lock:
            if front:
                self._waiting.appendleft(cmd)
            else:
                self._waiting.append(cmd)

    def keep_identifying(self, now: float) -> None:
        """Ask again if IDENTIFY was acknowledged but its IDENTITY frame got lost."""
        if self._inflight is not None or now - self._identify_sent < IDENTITY_WAIT:
            return
        with self._lock:
            if any(c.type == m.MsgType.IDENTIFY and c.internal for c in self._waiting):
                return
        self.queue_internal(m.MsgType.IDENTIFY, front=True)

    def connected(self) -> None:
        """The handshake is done: the LED picture, if any, has to reach the board again."""
        with self._lock:
            self._leds_dirty = self._leds is not None

    def next_frame(self, now: float, up: bool) -> bytes | None:
        """The frame to write now: a re-send, the next command, or the LED picture.

        Before the handshake is done (``up`` false) only handshake steps go out.
        """
        cmd = self._inflight
        if cmd is not None:
            if now - cmd.sent_at < cmd.timeout:
                return None
            if cmd.tries > m.MAX_RETRIES:
                self._inflight = None
                self._gave_up(cmd)
                return None
            self._stats.retries += 1
            return self._send(cmd, now)
        with self._lock:
            if self._waiting and (up or self._waiting[0].internal):
                cmd = self._waiting.popleft()
            elif up and self._leds_dirty and self._leds is not None:
                self._leds_dirty = False
                cmd = Command(m.MsgType.SET_LEDS, self._leds, m.ACK_TIMEOUT_MS / 1000,
                              internal=True)
            else:
                return None
        self._seq = (self._seq + 1) & 0xFF
        cmd.seq = self._seq
        self._inflight = cmd
        return self._send(cmd, now)

    def _gave_up(self, cmd: Command) -> None:
        if cmd.internal and cmd.type in (m.MsgType.IDENTIFY, m.MsgType.SET_MODE):
            # A board still booting, or answering late: keep asking, with a new SEQ,
            # until the handshake or silence timeout gives up on the port. Dropping the
            # mode would leave open() waiting for it and a board back from a lost link
            # in the wrong mode.
            self.queue_internal(cmd.type, cmd.payload, front=True, on_done=cmd.on_done)
        elif cmd.internal and cmd.type == m.MsgType.SET_LEDS:
            self._leds_dirty = True  # the picture still has to reach the board
        elif not cmd.internal:
            cmd.future.set_exception(CommandFailed(
                f"{command_name(cmd.type)} to the sensor board on {self.port}: no ACK after "
                f"{m.MAX_RETRIES + 1} tries"
            ))

    def _send(self, cmd: Command, now: float) -> bytes:
        cmd.tries += 1
        cmd.sent_at = now
        if cmd.type == m.MsgType.IDENTIFY:
            self._identify_sent = now
        return encode_frame(cmd.seq, cmd.type, cmd.payload)

    def on_ack(self, ack: AckMsg) -> None:
        cmd = self._inflight
        if cmd is None or ack.cmd_seq != cmd.seq or ack.cmd_type != cmd.type:
            return  # a late ACK of an earlier try
        self._inflight = None
        if ack.status != m.Status.OK:
            err = CommandFailed(
                f"sensor board on {self.port} refused {command_name(cmd.type)}: "
                f"{status_name(ack.status)}"
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

    def link_lost(self) -> None:
        """Commands in flight cannot be trusted to have run: callers hear of it, and
        handshake steps are redone after the next open."""
        if self._inflight is not None:
            if not self._inflight.internal:
                self._inflight.future.set_exception(
                    LinkLost(f"sensor board on {self.port} went away during "
                             f"{command_name(self._inflight.type)}")
                )
            self._inflight = None
        with self._lock:
            self._waiting = deque(c for c in self._waiting if not c.internal)

    def board_restarted(self) -> None:
        """Redo the handshake; a caller's command in flight may have been swallowed by
        the restart, so it goes out again first."""
        cmd, self._inflight = self._inflight, None
        with self._lock:
            self._waiting = deque(c for c in self._waiting if not c.internal)
            if cmd is not None and not cmd.internal:
                cmd.tries = 0
                self._waiting.appendleft(cmd)
        self.queue_internal(m.MsgType.IDENTIFY, front=True)

    def fail_all(self, exc: HallError) -> None:
        with self._lock:
            pending = list(self._waiting)
            self._waiting.clear()
        if self._inflight is not None:
            pending.append(self._inflight)
            self._inflight = None
        for cmd in pending:
            if not cmd.future.done():
                cmd.future.set_exception(exc)


def command_name(msg_type: int) -> str:
    try:
        return m.MsgType(msg_type).name
    except ValueError:
        return f"command {msg_type:#04x}"


def status_name(status: int) -> str:
    try:
        return m.Status(status).name.lower().replace("_", " ")
    except ValueError:
        return f"status {status}"
