"""What the hub tells the dashboard: every stored change, handed to its listeners in
the order it happened, and what the pages need of the running hub (:class:`HubBus`).

Split from :mod:`controller.hub.ingest`: the MQTT thread stores a message and emits
its change here; the listeners (the web server's streams) are called on the asyncio
loop the hub was given, or at once on the emitting thread when there is none. The web
side imports this module, never the MQTT client.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Protocol

from controller.hall_protocol.protocol import DownlinkCommand, HubChange

log = logging.getLogger("kaeshi.hub")

Listener = Callable[[HubChange], None]

#: Seconds the hub gathers changes before it hands them to the loop in one wake-up
#: (the dashboard shows them at most ten times a second anyway).
DELIVER_EVERY = 0.01


class HubBus(Protocol):
    """What the dashboard needs of the running hub."""

    def subscribe(self, callback: Listener) -> Callable[[], None]:
        """Call ``callback`` with every change (on the asyncio loop given to
        :meth:`Hub.start`, else on the MQTT thread); returns the unsubscribe function."""
        ...

    def send(self, table: int, command: DownlinkCommand) -> None:
        """Publish ``command`` on the table's ``down`` topic (QoS 1)."""
        ...


class ChangeFeed:
    """The listeners of the hub's changes, and the changes on their way to the loop."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[Listener] = []
        #: Changes not yet handed to the loop; one wake-up carries them all.
        self._pending: list[HubChange] = []
        #: The loop the listeners are called on (None: on the emitting thread).
        self.loop: asyncio.AbstractEventLoop | None = None

    def subscribe(self, callback: Listener) -> Callable[[], None]:
        with self._lock:
            self._listeners.append(callback)

        def unsubscribe() -> None:
            with self._lock:
                if callback in self._listeners:
                    self._listeners.remove(callback)

        return unsubscribe

    def emit(self, change: HubChange) -> None:
        """Tell the listeners, on the loop when there is one. Waking the loop costs a
        system call and the interpreter lock (a fifth of this thread's time at 200
        tables when it woke once per message), so the changes of ``DELIVER_EVERY``
        seconds are handed over in one wake-up, in order."""
        loop = self.loop
        if loop is None:
            with self._lock:
                listeners = list(self._listeners)
            for cb in listeners:
                _safe_call(cb, change)
            return
        with self._lock:
            self._pending.append(change)
            if len(self._pending) > 1:
                return  # a wake-up is on its way and will carry this one too
        try:
            loop.call_soon_threadsafe(loop.call_later, DELIVER_EVERY, self._deliver)
        except RuntimeError:
            with self._lock:
                self._pending.clear()  # the loop is closing

    def _deliver(self) -> None:
        with self._lock:
            changes, self._pending = self._pending, []
            listeners = list(self._listeners)
        for change in changes:
            for cb in listeners:
                _safe_call(cb, change)


def _safe_call(cb: Listener, change: HubChange) -> None:
    try:
        cb(change)
    except Exception:  # a listener's bug must not reach the hub
        log.exception("hub listener failed")
