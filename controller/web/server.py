"""WebServer: the live page, its JSON API, an event stream, and the arbiter's actions.

Routes (GET unless said):

* ``/`` player page; ``/arbiter`` arbiter page (login form without a valid token);
  ``POST /arbiter/login`` (form field ``token``); ``POST /arbiter/logout``
* ``/api/state?view=player|arbiter`` snapshot as JSON
* ``/events?view=player|arbiter`` Server-Sent Events: one ``state`` event per change
* ``/record.ggf`` the game record as a download
* ``POST /api/arbiter/<action>`` with JSON body: ``pause``, ``resume``,
  ``adjust_time`` ``{"color": "black", "seconds": -30}``, ``accept_position``,
  ``correct_position`` ``{"board": "<64 chars>"}``

The arbiter is recognised by the cookie set at login, by ``?token=`` on ``/arbiter``
(which then sets the cookie and drops the token from the address bar), or, for
scripts, by an ``Authorization: Bearer <token>`` header. Everything else gets 403.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import inspect
import json
import logging
import socket
from collections.abc import Callable
from importlib import resources
from typing import Any

from controller.errors import KaeshiError
from controller.squares import Color, validate_board_string
from controller.web.auth import COOKIE, ArbiterAuth
from controller.web.facade import ServiceFacade, View, for_view
from controller.web.httpwire import (
    BadRequest,
    Request,
    json_response,
    read_request,
    response,
    response_head,
)

log = logging.getLogger("kaeshi.web")

KEEPALIVE_SECONDS = 15.0
#: A client that opens a connection and sends nothing is dropped after this long.
REQUEST_TIMEOUT_SECONDS = 10.0
STATIC_TYPES = {
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}
HTML = "text/html; charset=utf-8"


def _static(name: str) -> str:
    return resources.files("controller.web").joinpath("static", name).read_text("utf-8")


class WebServer:
    def __init__(
        self,
        facade: ServiceFacade,
        host: str = "127.0.0.1",
        port: int = 8080,
        arbiter_token: str | None = None,
    ) -> None:
        self.facade = facade
        self.host = host
        self.port = port
        self.auth = ArbiterAuth(arbiter_token)
        self._server: asyncio.Server | None = None
        self._clients: set[asyncio.Task[None]] = set()
        self._pages = {name: _static(name) for name in ("index.html", "login.html")}
        self._assets = {name: _static(name).encode("utf-8") for name in STATIC_TYPES}

    @property
    def url(self) -> str:
        """Where a browser finds the page (for a wildcard bind: this machine's LAN address)."""
        host = _reachable_host() if self.host in ("", "0.0.0.0", "::") else self.host
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{self.port}"

    async def start(self) -> None:
        """Listen; with ``port=0`` the system picks a free port, then ``.url`` tells it."""
        try:
            self._server = await asyncio.start_server(self._serve, self.host, self.port)
        except OSError as exc:
            raise OSError(f"web page: cannot listen on {self.host}:{self.port}: {exc}") from None
        self.port = self._server.sockets[0].getsockname()[1]
        log.info("web page at %s", self.url)

    async def stop(self) -> None:
        """Stop listening and end open connections (event streams included)."""
        if self._server is not None:
            self._server.close()
        for task in list(self._clients):
            task.cancel()
        if self._clients:
            await asyncio.gather(*self._clients, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
            self._server = None

    # ------------------------------------------------------------------ plumbing
    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._clients.add(task)
        try:
            try:
                try:
                    request = await asyncio.wait_for(read_request(reader), REQUEST_TIMEOUT_SECONDS)
                except TimeoutError:
                    raise BadRequest(408, "no complete request in time") from None
                if request is None:
                    return
                await self._route(request, writer)
            except BadRequest as exc:
                writer.write(json_response(exc.status, {"error": str(exc)}))
            await writer.drain()
        except (ConnectionError, asyncio.CancelledError):
            pass
        except Exception:
            log.exception("web page: request failed")
            with contextlib.suppress(Exception):
                writer.write(json_response(500, {"error": "internal error, see the service log"}))
                await writer.drain()
        finally:
            self._clients.discard(task)
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _is_arbiter(self, request: Request) -> bool:
        if self.auth.check_cookie(request.cookies.get(COOKIE)):
            return True
        bearer = request.headers.get("authorization", "")
        if bearer.lower().startswith("bearer "):
            return self.auth.check_token(bearer[7:].strip())
        return False

    def _view(self, request: Request) -> View:
        view = request.query.get("view", "player")
        if view not in ("player", "arbiter"):
            raise BadRequest(400, f"unknown view {view!r} (player or arbiter)")
        if view == "arbiter" and not self._is_arbiter(request):
            raise BadRequest(403, "the arbiter view needs the arbiter token")
        return view  # type: ignore[return-value]

    def _snapshot(self, view: View) -> dict[str, Any]:
        return for_view(self.facade.snapshot(view), view)

    # -------------------------------------------------------------------- routes
    async def _route(self, request: Request, writer: asyncio.StreamWriter) -> None:
        path, method = request.path, request.method
        gets: dict[str, Callable[[Request], bytes]] = {
            "/": lambda r: self._page("player"),
            "/index.html": lambda r: self._page("player"),
            "/arbiter": self._arbiter_page,
            "/api/state": self._state,
            "/record.ggf": self._record,
        }
        posts: dict[str, Callable[[Request], bytes]] = {
            "/arbiter/login": self._login,
            "/arbiter/logout": self._logout,
        }
        if path == "/events" and method == "GET":
            await self._events(request, writer)
            return
        if method == "GET" and path in gets:
            writer.write(gets[path](request))
        elif method == "GET" and path.startswith("/static/"):
            writer.write(self._asset(path.removeprefix("/static/")))
        elif method == "POST" and path in posts:
            writer.write(posts[path](request))
        elif method == "POST" and path.startswith("/api/arbiter/"):
            writer.write(await self._action(request, path.removeprefix("/api/arbiter/")))
        elif path in gets or path in posts or path == "/events":
            raise BadRequest(405, f"{method} is not allowed on {path}")
        else:
            raise BadRequest(404, f"no such page: {path}")

    def _page(self, view: View, headers: dict[str, str] | None = None) -> bytes:
        body = self._pages["index.html"].replace("{{VIEW}}", view)
        return response(200, body, HTML, {"Cache-Control": "no-store", **(headers or {})})

    def _login_page(self, status: int, message: str) -> bytes:
        body = self._pages["login.html"].replace("{{MESSAGE}}", html.escape(message))
        return response(status, body, HTML, {"Cache-Control": "no-store"})

    def _arbiter_page(self, request: Request) -> bytes:
        if not self.auth.enabled:
            return self._login_page(
                403, "The arbiter view is off: set an arbiter token in the configuration."
            )
        if "token" in request.query:
            if not self.auth.check_token(request.query["token"]):
                return self._login_page(403, "Wrong arbiter token.")
            return response(
                303,
                b"",
                HTML,
                {"Location": "/arbiter", "Set-Cookie": self.auth.cookie_header()},
            )
        if self._is_arbiter(request):
            return self._page("arbiter")
        return self._login_page(200, "")

    def _login(self, request: Request) -> bytes:
        if not self.auth.enabled:
            return self._login_page(
                403, "The arbiter view is off: set an arbiter token in the configuration."
            )
        if not self.auth.check_token(request.form().get("token")):
            return self._login_page(403, "Wrong arbiter token.")
        return response(
            303, b"", HTML, {"Location": "/arbiter", "Set-Cookie": self.auth.cookie_header()}
        )

    def _logout(self, request: Request) -> bytes:
        del request
        return response(
            303, b"", HTML, {"Location": "/", "Set-Cookie": ArbiterAuth.clear_cookie_header()}
        )

    def _asset(self, name: str) -> bytes:
        if name not in self._assets:
            raise BadRequest(404, f"no such file: /static/{name}")
        return response(200, self._assets[name], STATIC_TYPES[name], {"Cache-Control": "no-cache"})

    def _state(self, request: Request) -> bytes:
        return json_response(200, self._snapshot(self._view(request)))

    def _record(self, request: Request) -> bytes:
        del request
        return response(
            200,
            self.facade.record_ggf(),
            "application/x-ggf; charset=utf-8",
            {
                "Content-Disposition": 'attachment; filename="kaeshi.ggf"',
                "Cache-Control": "no-store",
            },
        )

    async def _events(self, request: Request, writer: asyncio.StreamWriter) -> None:
        view = self._view(request)
        writer.write(
            response_head(
                200,
                {
                    "Content-Type": "text/event-stream; charset=utf-8",
                    "Cache-Control": "no-store",
                    "Connection": "close",
                },
            )
        )
        writer.write(b"retry: 1000\n\n")
        version: int | None = None
        while True:
            snap = self._snapshot(view)
            version = int(snap.get("version", 0))
            data = json.dumps(snap, separators=(",", ":"), default=str)
            writer.write(f"event: state\ndata: {data}\n\n".encode())
            await writer.drain()
            while True:
                try:
                    await asyncio.wait_for(self.facade.wait_change(version), KEEPALIVE_SECONDS)
                    break
                except TimeoutError:
                    writer.write(b": keepalive\n\n")
                    await writer.drain()

    async def _action(self, request: Request, action: str) -> bytes:
        if not self._is_arbiter(request):
            raise BadRequest(403, "arbiter actions need the arbiter token")
        body = request.json()
        f = self.facade
        handlers: dict[str, Callable[[], object]] = {
            "pause": f.pause,
            "resume": f.resume,
            "accept_position": f.accept_position,
            "adjust_time": lambda: f.adjust_time(*_adjust_args(body)),
            "correct_position": lambda: f.correct_position(_board_arg(body)),
        }
        if action not in handlers:
            raise BadRequest(404, f"no such arbiter action: {action}")
        try:
            result = handlers[action]()
            if inspect.isawaitable(result):
                await result
        except (ValueError, KaeshiError) as exc:  # ActionError, BoardStringError ...
            raise BadRequest(400, str(exc)) from None
        log.info("arbiter action: %s %s", action, body or "")
        return json_response(200, {"ok": True, "action": action})


def _reachable_host() -> str:
    # connecting a UDP socket sends nothing; it only makes the system pick the address
    # it would use on the LAN, which is what another device must type in
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("10.254.254.254", 9))
            return str(probe.getsockname()[0])
    except OSError:
        return "127.0.0.1"


def _adjust_args(body: dict[str, Any]) -> tuple[Color, float]:
    try:
        color = Color.parse(str(body.get("color", "")))
    except ValueError as exc:
        raise BadRequest(400, f"adjust_time: {exc}") from None
    seconds = body.get("seconds")
    if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds:
        raise BadRequest(400, "adjust_time: 'seconds' must be a number (negative takes time away)")
    if abs(seconds) > 24 * 3600:
        raise BadRequest(400, "adjust_time: 'seconds' is out of range")
    return color, float(seconds)


def _board_arg(body: dict[str, Any]) -> str:
    board = body.get("board")
    if not isinstance(board, str):
        raise BadRequest(400, "correct_position: 'board' must be a 64-character string of - X O")
    try:
        return validate_board_string(board)
    except ValueError as exc:
        raise BadRequest(400, f"correct_position: {exc}") from None
