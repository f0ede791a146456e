"""Uvicorn inside an event loop that is already running (the service's), not its own.

``uvicorn.Server.serve()`` takes over SIGINT/SIGTERM and ``uvicorn.run()`` wants its own
loop; the service has both already. :class:`EmbeddedServer` binds the socket itself (so
a busy port is a clear error, not uvicorn's ``sys.exit``, and ``port=0`` tells the
chosen port), runs uvicorn's start-up, tick loop and shutdown as tasks of the running
loop, and leaves signals and logging set-up to the service.

Uvicorn has no deadline for a request to arrive: a client that opens a connection and
sends half a request would hold it for ever. :class:`_DeadlineH11` adds one and
answers 408; it closes a connection whose client has not read what was sent for
``write_timeout`` seconds (an event stream to a phone gone from the hall, a client
that never reads), and asks the server's :class:`~controller.web.gate.Gate` whether
each new connection may stay (caps per client address and in all, a reserve for the
arbiter).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from collections.abc import Awaitable, Callable
from typing import Any

import h11
import uvicorn
from starlette.types import ASGIApp
from uvicorn.protocols.http.h11_impl import H11Protocol

from controller.web.gate import Gate

log = logging.getLogger("kaeshi.web")

#: A client must have sent a whole request this long after it connected or began one.
REQUEST_TIMEOUT_SECONDS = 10.0
#: Request heads (line and headers) larger than this are refused.
MAX_HEAD_BYTES = 16 * 1024
#: Open connections at most (event streams hold one each); see controller.web.gate.
MAX_CONNECTIONS = 200
#: A client that reads nothing of what was sent for this long is cut off.
WRITE_TIMEOUT_SECONDS = 20.0
_COMPLETE = (h11.DONE, h11.MUST_CLOSE, h11.CLOSED, h11.ERROR)


class _DeadlineH11(H11Protocol):
    """uvicorn's h11 protocol with a deadline for each request to arrive whole."""

    request_timeout = REQUEST_TIMEOUT_SECONDS
    write_timeout = WRITE_TIMEOUT_SECONDS
    gate: Gate | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)  # type: ignore[arg-type]
        self._deadline: asyncio.TimerHandle | None = None
        self._stalled: asyncio.TimerHandle | None = None
        self._upgraded = False
        address = self.client[0] if self.client else "?"
        if self.gate is not None and not self.gate.admit(self, address):
            self.transport.abort()  # nothing read, nothing answered: it costs nothing
            return
        self._arm()

    # the gate's view of the connection
    def waiting(self) -> bool:
        """No request in progress (nothing sent yet, half a request, idle between
        requests), or one whose client reads nothing of its answer: a newcomer may
        have its place. (A live page that reads what it is sent is never put out.)"""
        return (self.cycle is None or self.cycle.response_complete
                or getattr(self, "_stalled", None) is not None)

    def drop(self) -> None:
        self.transport.abort()

    def pause_writing(self) -> None:
        super().pause_writing()
        if self._stalled is None:
            self._stalled = self.loop.call_later(self.write_timeout, self._not_reading)

    def resume_writing(self) -> None:
        if self._stalled is not None:
            self._stalled.cancel()
            self._stalled = None
        super().resume_writing()

    def _not_reading(self) -> None:
        self._stalled = None
        self.transport.abort()  # its buffer stays full: a dead or hostile reader

    def _arm(self) -> None:
        if self._deadline is None and not self._upgraded:
            self._deadline = self.loop.call_later(self.request_timeout, self._expired)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.conn.their_state in _COMPLETE:
            self._disarm()
        else:
            self._arm()

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        # the connection is a WebSocket's from here on: its own protocol reads it (and
        # the socket's handler keeps its own read deadline)
        self._upgraded = True
        self._disarm()
        super().handle_websocket_upgrade(event)

    def on_response_complete(self) -> None:
        self._disarm()  # the keep-alive timer watches an idle connection
        super().on_response_complete()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if getattr(self, "_stalled", None) is not None:
            assert self._stalled is not None
            self._stalled.cancel()
            self._stalled = None
        if self.gate is not None:
            self.gate.release(self)
        super().connection_lost(exc)

    def _expired(self) -> None:
        self._deadline = None
        if self.transport.is_closing() or self.conn.their_state in _COMPLETE:
            return
        if self.conn.our_state is h11.IDLE and self.conn.their_state is h11.IDLE:
            body = b'{"error": "no complete request in time"}'
            self.transport.write(
                b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\n"
                b"connection: close\r\ncontent-length: " + str(len(body)).encode() + b"\r\n\r\n"
                + body
            )
        self.transport.close()


def _listening_socket(host: str, port: int) -> socket.socket:
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise OSError(f"web page: cannot listen on {host}:{port}: {exc}") from None
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(512)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        raise OSError(f"web page: cannot listen on {host}:{port}: {exc}") from None
    return sock


class EmbeddedServer:
    """An ASGI app served by uvicorn (HTTP/1.1 over h11) on the running event loop.

    ``before_stop`` runs first on :meth:`stop`: the app ends its long-lived responses
    there (event streams), so that shutdown does not wait on them.
    """

    def __init__(
        self,
        app: ASGIApp,
        host: str = "127.0.0.1",
        port: int = 8080,
        *,
        request_timeout: float | None = None,
        before_stop: Callable[[], Awaitable[None] | None] | None = None,
        gate: Gate | None = None,
        write_timeout: float = WRITE_TIMEOUT_SECONDS,
        **uvicorn_options: Any,
    ) -> None:
        self.app = app
        self.host = host
        self.port = port
        self.request_timeout = REQUEST_TIMEOUT_SECONDS if request_timeout is None \
            else request_timeout
        self.before_stop = before_stop
        self.gate = gate if gate is not None else Gate(MAX_CONNECTIONS)
        self.write_timeout = write_timeout
        self.options = uvicorn_options
        self._server: uvicorn.Server | None = None
        self._sock: socket.socket | None = None
        self._ticks: asyncio.Task[None] | None = None

    @property
    def running(self) -> bool:
        return self._server is not None

    async def start(self) -> None:
        """Bind and serve; with ``port=0`` the system picks a free port, kept in ``.port``."""
        protocol = type("DeadlineH11", (_DeadlineH11,), {
            "request_timeout": self.request_timeout, "gate": self.gate,
            "write_timeout": self.write_timeout})
        options: dict[str, Any] = {
            "lifespan": "off",
            "log_config": None,  # the service configures logging
            # one warning per malformed request would let anyone flood the service log
            "log_level": "error",
            "access_log": False,
            "proxy_headers": False,  # clients are who the socket says (failure counting)
            "server_header": False,
            "ws": "none",
            "h11_max_incomplete_event_size": MAX_HEAD_BYTES,
            # the gate caps connections; uvicorn's own 503 only past it (tasks)
            "limit_concurrency": self.gate.total + 16,
            "timeout_keep_alive": 5,
            "timeout_graceful_shutdown": 2,
            **self.options,
        }
        config = uvicorn.Config(self.app, http=protocol, **options)
        config.load()
        sock = _listening_socket(self.host, self.port)
        server = uvicorn.Server(config)
        server.lifespan = config.lifespan_class(config)
        try:
            await server.startup(sockets=[sock])
        except BaseException:
            sock.close()
            raise
        self._sock, self._server = sock, server
        self.port = int(sock.getsockname()[1])
        self._ticks = asyncio.create_task(server.main_loop(), name="web-ticks")

    async def stop(self) -> None:
        """Stop listening, end the app's streams, close connections; idempotent."""
        server, sock = self._server, self._sock
        if server is None:
            return
        self._server = self._sock = None
        if self.before_stop is not None:
            result = self.before_stop()
            if result is not None:
                await result
        server.should_exit = True
        if self._ticks is not None:
            with contextlib.suppress(Exception):
                await self._ticks
            self._ticks = None
        await server.shutdown(sockets=[sock] if sock is not None else None)
