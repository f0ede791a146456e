"""Who may hold a connection: caps per client address and in all, and a reserve.

A web server on a hall's network must survive its clients: a phone left on a page, a
script opening hundreds of idle connections, a client sending half a request or never
reading its answer. :class:`Gate` is asked by the HTTP protocol (``embed``) at every
new connection, before a byte is read:

* a client address holds at most ``per_client`` connections; one more is closed at
  once (a browser uses six or so);
* all clients together hold at most ``total``, below the process's open-file limit;
* the last ``reserve`` of them are kept for the arbiter's addresses (an address that
  showed a valid arbiter session or token lately): the arbiter's page is answered even
  when the hall's spectators fill the server;
* event streams (a live page holds one for as long as it is open) take at most half
  of ``total``, and ``STREAMS_PER_CLIENT`` per address, so live pages never leave an
  ordinary request without a connection;
* when a newcomer finds no room, the oldest connection that is only waiting (no
  request in progress: idle, half-sent) is closed for it, so idle connections cannot
  keep an ordinary client out, whatever their number.

Refusals are counted and logged once per kind and minute (:class:`~controller.hub.logs`
is the hub's; this one is the same idea kept here so the table's page has no hub import).
"""

from __future__ import annotations

import logging
import resource
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

log = logging.getLogger("kaeshi.web")

#: Connections one client address may hold.
PER_CLIENT = 16
#: Connections kept for the arbiter's addresses.
RESERVE = 8
#: How long an address that showed the arbiter's session counts as the arbiter's.
TRUSTED_SECONDS = 24 * 3600.0
#: File descriptors left to the rest of the process (journal, broker, logs).
FD_MARGIN = 64
#: Event streams one client address may hold (a few tabs).
STREAMS_PER_CLIENT = 4


class Connection(Protocol):
    """What the gate needs of a connection (the HTTP protocol object)."""

    def waiting(self) -> bool:
        """No request in progress: idle, or a request not yet whole."""
        ...

    def drop(self) -> None:
        """Close the connection now."""
        ...


def fd_room(wanted: int) -> int:
    """``wanted`` connections, or fewer if the open-file limit leaves less room."""
    try:
        soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return wanted
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(8, min(wanted, soft - FD_MARGIN))


class Gate:
    """Admission of connections for one server (see the module docstring)."""

    def __init__(self, total: int, per_client: int = PER_CLIENT, reserve: int = RESERVE,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.total = fd_room(total)
        self.per_client = per_client
        self.reserve = min(reserve, self.total // 4)
        self._clock = clock
        self._open: OrderedDict[Connection, str] = OrderedDict()  # oldest first
        self._by_client: dict[str, int] = {}
        self._trusted: dict[str, float] = {}
        self.refused: dict[str, int] = {}
        self._logged: dict[str, float] = {}
        self.max_streams = max(1, self.total // 2)
        self._streams: dict[str, int] = {}
        self._stream_count = 0

    def stream_room(self, address: str) -> bool:
        """Whether ``address`` may open one more event stream now."""
        if self.trusted(address):
            return True
        if self._streams.get(address, 0) >= STREAMS_PER_CLIENT:
            return self._refuse("streams", address)
        if self._stream_count >= self.max_streams:
            return self._refuse("streams", address)
        return True

    def open_stream(self, address: str) -> None:
        self._streams[address] = self._streams.get(address, 0) + 1
        self._stream_count += 1

    def close_stream(self, address: str) -> None:
        left = self._streams.get(address, 1) - 1
        if left > 0:
            self._streams[address] = left
        else:
            self._streams.pop(address, None)
        self._stream_count = max(0, self._stream_count - 1)

    def trust(self, address: str | None) -> None:
        """``address`` showed the arbiter's session: it may use the reserve."""
        if address:
            if len(self._trusted) > 1000:
                self._trusted.clear()
            self._trusted[address] = self._clock() + TRUSTED_SECONDS

    def trusted(self, address: str) -> bool:
        until = self._trusted.get(address)
        return until is not None and until > self._clock()

    def open_count(self, address: str | None = None) -> int:
        return len(self._open) if address is None else self._by_client.get(address, 0)

    def admit(self, conn: Connection, address: str) -> bool:
        """Whether ``conn`` from ``address`` may stay; False: the caller closes it."""
        if self._by_client.get(address, 0) >= self.per_client:
            return self._refuse("per_client", address)
        limit = self.total if self.trusted(address) else self.total - self.reserve
        needed = len(self._open) - limit + 1
        if needed > 0:
            room = self._waiting(needed)
            if len(room) < needed:  # not enough to make room: nobody is put out for nothing
                return self._refuse("full", address)
            for old in room:
                self.release(old)
                old.drop()
                self._count("evicted", address)
        self._open[conn] = address
        self._by_client[address] = self._by_client.get(address, 0) + 1
        return True

    def release(self, conn: Connection) -> None:
        address = self._open.pop(conn, None)
        if address is not None:
            left = self._by_client.get(address, 1) - 1
            if left > 0:
                self._by_client[address] = left
            else:
                self._by_client.pop(address, None)

    def _waiting(self, n: int) -> list[Connection]:
        """Up to ``n`` of the oldest connections with no request in progress, never the
        arbiter's own."""
        out: list[Connection] = []
        for conn, address in self._open.items():
            if len(out) >= n:
                break
            if not self.trusted(address) and conn.waiting():
                out.append(conn)
        return out

    def _refuse(self, kind: str, address: str) -> bool:
        self._count(kind, address)
        return False

    def _count(self, kind: str, address: str) -> None:
        self.refused[kind] = self.refused.get(kind, 0) + 1
        now = self._clock()
        if now - self._logged.get(kind, -1e9) >= 60.0:
            self._logged[kind] = now
            what = {"per_client": f"a client ({address}) holding {self.per_client} "
                                  "connections already",
                    "full": f"all {self.total} connections busy",
                    "evicted": "the oldest idle connection closed for a new one",
                    "streams": f"live pages beyond {STREAMS_PER_CLIENT} per client or "
                               f"{self.max_streams} in all"}[kind]
            log.warning("web: connections refused: %s (%d so far; logged once a minute)",
                        what, self.refused[kind])
