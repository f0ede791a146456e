"""WebServer: the live page, its JSON API, an event stream, and the arbiter's actions.

A Starlette app served by uvicorn on the service's own event loop
(:class:`~controller.web.embed.EmbeddedServer`). Routes (GET unless said):

* ``/`` player page; ``/arbiter`` arbiter page (login form without a valid token);
  ``POST /arbiter/login`` (form field ``token``); ``POST /arbiter/logout``
* ``/api/state?view=player|arbiter`` snapshot as JSON
* ``/events?view=player|arbiter`` Server-Sent Events: one ``state`` event per change
* ``/record.ggf?view=player|arbiter`` the game record as a download
* the engine's routes (hints, its colour and level, reviews): :mod:`controller.web.engine_routes`
* the requests that change the game (``POST /api/arbiter/<action>``, ``POST
  /api/dispute``), each body read once: :mod:`controller.web.action_routes`

This module serves: it assembles the routes, listens, recognises the arbiter and
answers pages, state and downloads; the event stream's loop is
:mod:`controller.web.live_stream`.

The arbiter is recognised by the cookie set at login, by ``?token=`` on ``/arbiter``
(which then sets the cookie and drops the token from the address bar), or, for
scripts, by an ``Authorization: Bearer <token>`` header. Everything else gets 403;
wrong tokens slow their sender down (429). Every state-changing request must come
from this page (:class:`~controller.web.guard.OriginGuard`). Everything a view gets
passes :func:`~controller.web.facade.for_view` or
:func:`~controller.web.facade.record_for_view`.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import math
import socket
from collections.abc import Iterable
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, quote

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute

from controller.records import write_ggf
from controller.records.files import record_filename
from controller.web.action_routes import action_routes
from controller.web.auth import SESSION_SECONDS, ArbiterAuth
from controller.web.embed import MAX_CONNECTIONS, EmbeddedServer
from controller.web.engine_routes import engine_routes
from controller.web.facade import ServiceFacade, View, for_view, record_for_view
from controller.web.gate import Gate
from controller.web.guard import (
    FailureLimiter,
    InternalErrors,
    OriginGuard,
    SecurityHeaders,
    TooManyFailures,
    client_key,
    read_body,
)
from controller.web.heading import tab_title
from controller.web.live_stream import counted, state_stream
from controller.web.refusal import refusal_page, wants_page

log = logging.getLogger("kaeshi.web")

STATIC_TYPES = {
    "kaeshi-board.js": "text/javascript; charset=utf-8",  # the board renderer, hub's too
    "app.js": "text/javascript; charset=utf-8",
    "clockface.js": "text/javascript; charset=utf-8",  # the clocks' times, /clock's too
    "engine.js": "text/javascript; charset=utf-8",
    "review.js": "text/javascript; charset=utf-8",  # the review page (engine/report.py)
    "engine.css": "text/css; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
HTML = "text/html; charset=utf-8"
VIEW_OFF = "The arbiter view is off: set an arbiter token in the configuration."
MAX_FORM_BYTES = 4096


def _static(name: str) -> str:
    return resources.files("controller.web").joinpath("static", name).read_text("utf-8")


def _json(status: int, obj: Any, headers: dict[str, str] | None = None) -> Response:
    body = json.dumps(obj, separators=(",", ":"), default=str)
    return Response(body, status, {"Cache-Control": "no-store", **(headers or {})},
                    "application/json; charset=utf-8")


def _retry_after(exc: TooManyFailures) -> dict[str, str]:
    return {"Retry-After": str(math.ceil(exc.retry_after))}


class WebServer:
    def __init__(
        self,
        facade: ServiceFacade,
        host: str = "127.0.0.1",
        port: int = 8080,
        arbiter_token: str | None = None,
        *,
        limiter: FailureLimiter | None = None,
        trusted_origins: Iterable[str] = (),
        request_timeout: float | None = None,
        session_seconds: float = SESSION_SECONDS,
        extra_routes: Iterable[BaseRoute] = (),
        ssl: tuple[str, str] | None = None,
    ) -> None:
        """A weak ``arbiter_token`` raises :class:`~controller.web.guard.WeakTokenError`;
        an arbiter's login lasts ``session_seconds``. ``extra_routes``: a source's own
        pages (WebSocket routes switch WebSockets on); ``ssl``: (certificate file, key
        file) to serve HTTPS."""
        self.facade = facade
        self.host = host
        self.port = port
        self.auth = ArbiterAuth(arbiter_token, limiter, session_seconds=session_seconds)
        #: Who may hold a connection (per client, in all, the arbiter's reserve).
        self.gate = Gate(MAX_CONNECTIONS)
        self._pages = {name: _static(name) for name in ("index.html", "login.html")}
        self._assets = {name: _static(name).encode("utf-8") for name in STATIC_TYPES}
        self._request_timeout = request_timeout
        extra = list(extra_routes)
        self._websockets = any(isinstance(r, WebSocketRoute) for r in extra)
        self._ssl = ssl
        self._embedded: EmbeddedServer | None = None
        #: Resolved when the server stops: every event stream ends then.
        self._closing: asyncio.Future[None] | None = None
        self.app = Starlette(
            routes=[
                Route("/", self._player_page, methods=["GET"]),
                Route("/index.html", self._player_page, methods=["GET"]),
                Route("/arbiter", self._arbiter_page, methods=["GET"]),
                Route("/arbiter/login", self._login, methods=["POST"]),
                Route("/arbiter/logout", self._logout, methods=["POST"]),
                Route("/api/state", self._state, methods=["GET"]),
                Route("/events", self._events, methods=["GET"]),
                Route("/record.ggf", self._record, methods=["GET"]),
                Route("/static/{name}", self._asset, methods=["GET"]),
                *action_routes(facade, self._is_arbiter, lambda obj: _json(200, obj)),
                *engine_routes(facade),
                *extra,
            ],
            middleware=[
                Middleware(SecurityHeaders),
                Middleware(InternalErrors),
                Middleware(OriginGuard, trusted_origins=tuple(trusted_origins)),
            ],
            exception_handlers={
                HTTPException: self._http_error,  # type: ignore[dict-item]
                TooManyFailures: self._too_many,  # type: ignore[dict-item]
            },
        )

    @property
    def url(self) -> str:
        """Where a browser finds the page (for a wildcard bind: this machine's LAN address)."""
        host = _reachable_host() if self.host in ("", "0.0.0.0", "::") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"{'https' if self._ssl else 'http'}://{host}:{self.port}"

    async def start(self) -> None:
        """Listen; with ``port=0`` the system picks a free port, then ``.url`` tells it."""
        self._closing = asyncio.get_running_loop().create_future()
        options: dict[str, Any] = {}
        if self._websockets:
            options["ws"] = "websockets-sansio"
            options["ws_max_size"] = 2 << 20  # a camera frame, with room
        if self._ssl is not None:
            options["ssl_certfile"], options["ssl_keyfile"] = self._ssl
        self._embedded = EmbeddedServer(
            self.app, self.host, self.port,
            request_timeout=self._request_timeout, before_stop=self._end_streams,
            gate=self.gate, **options,
        )
        await self._embedded.start()
        self.port = self._embedded.port
        log.info("web page at %s", self.url)

    async def stop(self) -> None:
        """Stop listening and end open connections (event streams included)."""
        if self._embedded is not None:
            await self._embedded.stop()
            self._embedded = None

    def _end_streams(self) -> None:
        if self._closing is not None and not self._closing.done():
            self._closing.set_result(None)

    # ------------------------------------------------------------------ errors
    async def _http_error(self, request: Request, exc: HTTPException) -> Response:
        message = exc.detail
        if exc.status_code == 404 and message == "Not Found":
            message = f"no such page: {request.url.path}"
        elif exc.status_code == 405 and message == "Method Not Allowed":
            message = f"{request.method} is not allowed on {request.url.path}"
        if wants_page(request.scope):  # a browser asked for a page: a sentence, not JSON
            return Response(refusal_page(exc.status_code, str(message)), exc.status_code,
                            {"Cache-Control": "no-store", **dict(exc.headers or {})}, HTML)
        return _json(exc.status_code, {"error": message}, dict(exc.headers or {}))

    async def _too_many(self, request: Request, exc: TooManyFailures) -> Response:
        return _json(429, {"error": str(exc)}, _retry_after(exc))

    # ------------------------------------------------------------------ access
    def _is_arbiter(self, request: Request) -> bool:
        """Cookie or bearer token; a wrong token counts against the client (may raise
        :class:`TooManyFailures`)."""
        if self.auth.check_cookie(request.cookies.get(self.auth.cookie)):
            self.gate.trust(request.client.host if request.client else None)
            return True
        bearer = request.headers.get("authorization", "")
        if bearer[:7].lower() == "bearer ":
            ok = self.auth.attempt(bearer[7:].strip(), client_key(request.scope))
            if ok:
                self.gate.trust(request.client.host if request.client else None)
            return ok
        return False

    def _view(self, request: Request) -> View:
        view = request.query_params.get("view", "player")
        if view not in ("player", "arbiter"):
            raise HTTPException(400, f"unknown view {view[:40]!r} (player or arbiter)")
        if view == "arbiter" and not self._is_arbiter(request):
            raise HTTPException(403, "the arbiter view needs the arbiter token")
        return view  # type: ignore[return-value]

    def _snapshot(self, view: View) -> dict[str, Any]:
        return for_view(self.facade.snapshot(view), view)

    # ------------------------------------------------------------------- pages
    def _page(self, view: View) -> Response:
        # the tab's title from the start, before the page's script has its first state
        title = html.escape(tab_title(self._snapshot(view), view))
        body = self._pages["index.html"].replace("{{VIEW}}", view).replace("{{TITLE}}", title)
        return Response(body, 200, {"Cache-Control": "no-store"}, HTML)

    def _login_page(self, status: int, message: str, headers: dict[str, str] | None = None
                    ) -> Response:
        body = self._pages["login.html"].replace("{{MESSAGE}}", html.escape(message))
        return Response(body, status, {"Cache-Control": "no-store", **(headers or {})}, HTML)

    def _enter(self) -> Response:
        """Logged in: set the cookie and show the arbiter page without the token in view.
        (The address is trusted with its next request, which shows the cookie.)"""
        return Response(b"", 303, {"Location": "/arbiter",
                                   "Set-Cookie": self.auth.cookie_header()}, HTML)

    async def _player_page(self, request: Request) -> Response:
        return self._page("player")

    async def _arbiter_page(self, request: Request) -> Response:
        if not self.auth.enabled:
            return self._login_page(403, VIEW_OFF)
        if "token" in request.query_params:
            return self._try_token(request, request.query_params["token"])
        try:
            if self._is_arbiter(request):
                return self._page("arbiter")
        except TooManyFailures as exc:
            return self._login_page(429, str(exc), _retry_after(exc))
        return self._login_page(200, "")

    def _try_token(self, request: Request, token: str) -> Response:
        try:
            if self.auth.attempt(token, client_key(request.scope)):
                return self._enter()
        except TooManyFailures as exc:
            return self._login_page(429, str(exc).capitalize() + ".", _retry_after(exc))
        return self._login_page(403, "Wrong arbiter token.")

    async def _login(self, request: Request) -> Response:
        if not self.auth.enabled:
            return self._login_page(403, VIEW_OFF)
        body = await read_body(request, MAX_FORM_BYTES)
        try:
            form = parse_qs(body.decode("utf-8"), max_num_fields=8)
        except (UnicodeDecodeError, ValueError):
            return self._login_page(400, "The login form could not be read.")
        return self._try_token(request, (form.get("token") or [""])[0])

    async def _logout(self, request: Request) -> Response:
        self.auth.end_session(request.cookies.get(self.auth.cookie))
        clear = self.auth.clear_cookie_header(self.auth.cookie)
        return Response(b"", 303, {"Location": "/", "Set-Cookie": clear}, HTML)

    async def _asset(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self._assets:
            raise HTTPException(404, f"no such file: /static/{name[:60]}")
        return Response(self._assets[name], 200, {"Cache-Control": "no-cache"},
                        STATIC_TYPES[name])

    # --------------------------------------------------------------------- API
    async def _state(self, request: Request) -> Response:
        return _json(200, self._snapshot(self._view(request)))

    async def _record(self, request: Request) -> Response:
        view = self._view(request)
        snapshot = self.facade.snapshot(view)
        record = record_for_view(self.facade.game_record(), snapshot, view)
        name = record_filename(record)
        ascii_name = name.encode("ascii", "replace").decode().replace("?", "_")
        return Response(
            write_ggf(record),
            200,
            {
                "Content-Disposition": f'attachment; filename="{ascii_name}"; '
                                       f"filename*=UTF-8''{quote(name)}",
                "Cache-Control": "no-store",
            },
            "application/x-ggf; charset=utf-8",
        )

    async def _events(self, request: Request) -> Response:
        view = self._view(request)
        address = request.client.host if request.client else "?"
        if not self.gate.stream_room(address):
            raise HTTPException(503, "too many live pages open; the page tries again")
        first = self._snapshot(view)  # a failing facade is a 500 before the stream starts
        stream = state_stream(self.facade, first, lambda: self._snapshot(view), self._closing)
        return StreamingResponse(
            counted(self.gate, address, stream),
            media_type="text/event-stream; charset=utf-8",
            headers={"Cache-Control": "no-store"},
        )


def _reachable_host() -> str:
    # connecting a UDP socket sends nothing; it only makes the system pick the address
    # it would use on the LAN, which is what another device must type in
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.254.254.254", 9))
            return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"

