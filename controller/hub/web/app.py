"""The hub's web app: the arbiter's dashboard and the spectators' delayed broadcast.

Routes (GET unless said; "arbiter" needs the token, see below):

* ``/`` spectator page; ``/api/broadcast`` its JSON; ``/events/broadcast`` its SSE stream
* ``/feed/games.ggf``, ``/feed/games.json`` every game as far as the delay lets it be seen
* ``/api/standings`` standings and the current round's pairings
* ``/arbiter`` dashboard (login form without a valid token); ``POST /arbiter/login``
  (form field ``token``); ``POST /arbiter/logout``; ``/arbiter/table/N`` one table
* arbiter: ``/api/dashboard``, ``/events/dashboard`` (SSE), ``/api/table/N``,
  ``/export/event.ggf``, ``/export/event-wthor.zip``
* arbiter, ``POST /api/table/N/ACTION`` with a JSON body: ``pause``, ``resume``,
  ``adjust_time`` ``{"color": "white", "seconds": 60}``, ``accept_board``,
  ``correct_board`` ``{"board": "<64 chars of - X O>"}``, ``confirm``
  ``{"game": "...", "black": 40, "white": 24}`` (counts optional: the table's own)
* arbiter, ``POST /api/pairings/send``: send the current round's pairings to the tables again

The arbiter is recognised by the cookie set at login (an HMAC of the token, as on a
table's own page), by ``?token=`` on ``/arbiter``, or, for scripts, by
``Authorization: Bearer <token>``. Every POST must come from the hub's own origin
(scripts with a bearer token send none), and wrong tokens are throttled per client.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from controller.errors import KaeshiError
from controller.hub.export import event_ggf, wthor_zip
from controller.hub.ingest import HubBus
from controller.hub.protocol import DownlinkCommand, ProtocolError, encode_command
from controller.hub.results import Director, ResultDesk
from controller.hub.web.dashboard import CLOCK_WARNING_SECONDS
from controller.hub.web.live import Changes, Store, Views
from controller.hub.web.streams import (
    Shared,
    broadcast_stream,
    dashboard_built,
    dashboard_stream,
    spectator_built,
    whole,
)
from controller.records import games_to_json
from controller.web.auth import COOKIE, ArbiterAuth
from controller.web.guard import (
    FailureLimiter,
    InternalErrors,
    OriginGuard,
    SecurityHeaders,
    TooManyFailures,
    client_key,
    read_body,
    read_json,
)

log = logging.getLogger("kaeshi.hub.web")

#: Actions passed to the table as they are (the protocol checks their arguments).
TABLE_ACTIONS = ("pause", "resume", "adjust_time", "accept_board", "correct_board")
STATIC_TYPES = {
    "hub.js": "text/javascript; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
    "table.js": "text/javascript; charset=utf-8",
    "spectator.js": "text/javascript; charset=utf-8",
    "hub.css": "text/css; charset=utf-8",
}
PAGES = ("spectator.html", "dashboard.html", "table.html", "login.html")
HEADERS = {"Cache-Control": "no-store"}
HUB_COOKIE = "kaeshi_hub_arbiter"


@dataclass(frozen=True)
class HubWebSettings:
    """``arbiter_token`` None turns the arbiter view off; ``delay`` is the broadcast delay
    in seconds; ``clock`` gives wall time (tests pass a fake one)."""

    arbiter_token: str | None
    delay: float = 900.0
    clock: Callable[[], float] = time.time
    event_name: str = ""
    clock_warning: float = CLOCK_WARNING_SECONDS
    #: More origins that may post (the hub reached through a proxy under another name).
    origins: tuple[str, ...] = ()
    #: How often open pages are refreshed although nothing arrived (clocks run).
    refresh: float = 1.0


def _static(name: str) -> str:
    return resources.files("controller.hub.web").joinpath("static", name).read_text("utf-8")


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status, headers=headers)


def build_app(store: Store, bus: HubBus, director: Director | None,
              settings: HubWebSettings) -> Starlette:
    """The ASGI app; ``kaeshi hub`` serves it with Uvicorn on the hub's event loop."""
    auth = ArbiterAuth(settings.arbiter_token, FailureLimiter(clock=settings.clock))
    changes = Changes()
    desk = ResultDesk(director, bus.send) if director is not None else None
    views = Views(store, director, desk, settings.clock, settings.delay,
                  settings.clock_warning, settings.event_name)
    dashboard_snap = Shared(lambda: dashboard_built(views.arbiter()), settings.refresh,
                            settings.clock, changes)
    # what spectators see moves with time, not with what arrives: rebuilt by age alone
    broadcast_snap = Shared(lambda: spectator_built(views.spectator()), settings.refresh,
                            settings.clock)
    feed_max_age = max(5.0, settings.refresh)
    ggf_feed = Shared(lambda: whole(event_ggf(views.delayed_records())), feed_max_age,
                      settings.clock)
    json_feed = Shared(lambda: whole(games_to_json(views.delayed_records())), feed_max_age,
                       settings.clock)
    pages = {name: _static(name) for name in PAGES}
    assets = {name: _static(name) for name in STATIC_TYPES}

    # ------------------------------------------------------------------ helpers
    def page(name: str, status: int = 200, **values: str) -> HTMLResponse:
        body = pages[name].replace("{{EVENT}}", html.escape(settings.event_name or "Kaeshi"))
        for key, value in values.items():
            body = body.replace("{{" + key + "}}", html.escape(value))
        return HTMLResponse(body, status, headers=HEADERS)

    def bearer(request: Request) -> str | None:
        value = request.headers.get("authorization", "")
        return value[7:].strip() if value.lower().startswith("bearer ") else None

    def check_token(request: Request, token: str | None) -> Response | None:
        """None if ``token`` is right; else the answer: throttled (429) or refused (403)."""
        try:
            if auth.attempt(token or "", client_key(request.scope)):
                return None
        except TooManyFailures as exc:
            return _error(429, str(exc), {"Retry-After": str(int(exc.retry_after) + 1)})
        return _error(403, "wrong arbiter token")

    def arbiter(request: Request) -> Response | None:
        """None if the request is the arbiter's. (Every POST passed the origin guard.)"""
        if not auth.enabled:
            return _error(403, "the arbiter view is off: no arbiter token is configured")
        token = bearer(request)
        if token is not None:
            return check_token(request, token)
        if not auth.check_cookie(request.cookies.get(HUB_COOKIE)):
            return _error(403, "this needs the arbiter token")
        return None

    def guarded(handler: Callable[[Request], Awaitable[Response]]
                ) -> Callable[[Request], Awaitable[Response]]:
        async def run(request: Request) -> Response:
            refused = arbiter(request)
            return refused if refused is not None else await handler(request)
        return run

    def table_number(request: Request) -> int:
        return int(request.path_params["table"])

    def stream_response(body: AsyncIterator[str]) -> StreamingResponse:
        listen()
        return StreamingResponse(body, media_type="text/event-stream",
                                 headers={"Cache-Control": "no-store"})

    # -------------------------------------------------------------- spectators
    async def spectator_page(request: Request) -> Response:
        return page("spectator.html", DELAY=_minutes(settings.delay))

    async def broadcast_json(request: Request) -> Response:
        return Response(await broadcast_snap.get(), media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    async def broadcast_events(request: Request) -> Response:
        return stream_response(broadcast_stream(broadcast_snap, changes, settings.refresh))

    async def feed_ggf(request: Request) -> Response:
        return PlainTextResponse(await ggf_feed.get(), media_type="application/x-ggf",
                                 headers={"Cache-Control": "no-store"})

    async def feed_json(request: Request) -> Response:
        return Response(await json_feed.get(), media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    async def standings(request: Request) -> Response:
        data = await run_in_threadpool(
            lambda: {"standings": views.standings(), "pairings": views.pairings()})
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    # ----------------------------------------------------------------- arbiter
    async def arbiter_page(request: Request) -> Response:
        if not auth.enabled:
            return page("login.html", 403, MESSAGE="The arbiter view is off: set an arbiter "
                        "token in the hub's configuration.")
        if "token" in request.query_params:
            refused = check_token(request, request.query_params["token"])
            if refused is not None:
                return page("login.html", refused.status_code, MESSAGE=_message(refused))
            return _login_redirect(auth)
        if auth.check_cookie(request.cookies.get(HUB_COOKIE)):
            return page("dashboard.html")
        return page("login.html", MESSAGE="")

    async def login(request: Request) -> Response:
        if not auth.enabled:
            return page("login.html", 403, MESSAGE="The arbiter view is off.")
        form = parse_qs((await read_body(request, 4096)).decode("utf-8", "replace"))
        refused = check_token(request, (form.get("token") or [None])[0])
        if refused is not None:
            return page("login.html", refused.status_code, MESSAGE=_message(refused))
        return _login_redirect(auth)

    async def logout(request: Request) -> Response:
        return RedirectResponse("/", 303, headers={
            "Set-Cookie": _hub_cookie(ArbiterAuth.clear_cookie_header())})

    @guarded
    async def table_page(request: Request) -> Response:
        return page("table.html", TABLE=str(table_number(request)))

    @guarded
    async def dashboard_json(request: Request) -> Response:
        return Response(await dashboard_snap.get(), media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    @guarded
    async def dashboard_events(request: Request) -> Response:
        return stream_response(dashboard_stream(dashboard_snap, changes, settings.refresh))

    @guarded
    async def table_json(request: Request) -> Response:
        n = table_number(request)
        data = await run_in_threadpool(views.table, n)
        if data is None:
            return _error(404, f"no table {n} has reported to this hub")
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    @guarded
    async def table_action(request: Request) -> Response:
        n = table_number(request)
        action = request.path_params["action"]
        if action not in (*TABLE_ACTIONS, "confirm"):
            return _error(404, f"no such arbiter action: {action}")
        body = await read_json(request)
        status = await run_in_threadpool(store.table, n)
        if status is None:
            return _error(404, f"no table {n} has reported to this hub")
        if action == "confirm":
            return await confirm(status, body)
        command = DownlinkCommand(action, body)
        try:
            encode_command(command)  # the protocol's own check of the arguments
        except ProtocolError as exc:
            return _error(400, f"{action}: {str(exc).removeprefix('down: ')}")
        try:
            await run_in_threadpool(bus.send, n, command)
        except (KaeshiError, OSError, RuntimeError, ValueError) as exc:
            return _error(503, f"table {n}: could not send {action}: {exc}")
        log.info("arbiter: table %d %s %s", n, action, body or "")
        return JSONResponse({"ok": True, "table": n, "action": action, "id": command.id})

    async def confirm(status: Any, body: dict[str, Any]) -> Response:
        if desk is None:
            return _error(503, "no tournament director is attached to this hub")
        game = body.get("game")
        try:
            outcome = await run_in_threadpool(
                desk.confirm, status, body.get("black"), body.get("white"),
                game if isinstance(game, str) else None)
        except KaeshiError as exc:
            return _error(400, str(exc))
        changes.notify()
        r = outcome.result
        log.info("arbiter: round %d table %d confirmed %d-%d", r.round, r.table, r.black, r.white)
        return JSONResponse({
            "ok": True,
            "result": {"round": r.round, "table": r.table, "black": r.black,
                       "white": r.white, "winner": r.winner},
            "next_pairings": [p.announcement() for p in outcome.next_pairings],
            "problem": outcome.problem,
        })

    @guarded
    async def send_pairings(request: Request) -> Response:
        if desk is None:
            return _error(503, "no tournament director is attached to this hub")
        pairings = await run_in_threadpool(desk.current_pairings)
        try:
            await run_in_threadpool(desk.send_pairings, pairings)
        except (KaeshiError, OSError, RuntimeError, ValueError) as exc:
            return _error(503, f"could not send the pairings: {exc}")
        return JSONResponse({"ok": True, "sent": [p.announcement() for p in pairings]})

    @guarded
    async def export_ggf(request: Request) -> Response:
        records = await run_in_threadpool(views.records)
        return PlainTextResponse(event_ggf(records), media_type="application/x-ggf", headers={
            "Content-Disposition": 'attachment; filename="event.ggf"',
            "Cache-Control": "no-store"})

    @guarded
    async def export_wthor(request: Request) -> Response:
        records = await run_in_threadpool(views.records)
        data, skipped = await run_in_threadpool(wthor_zip, records)
        headers = {"Content-Disposition": 'attachment; filename="event-wthor.zip"',
                   "Cache-Control": "no-store"}
        if skipped:
            headers["X-Kaeshi-Skipped"] = str(len(skipped))
        return Response(data, media_type="application/zip", headers=headers)

    async def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            return _error(404, f"no such file: /static/{name}")
        return Response(assets[name], media_type=STATIC_TYPES[name],
                        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})

    unsubscribe: list[Callable[[], None]] = []

    def listen() -> None:
        """Hear the bus on this loop; from the lifespan, or from the first stream when the
        server runs without one."""
        if not unsubscribe:
            changes.attach(asyncio.get_running_loop())
            unsubscribe.append(bus.subscribe(changes.notify))

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        listen()
        try:
            yield
        finally:
            changes.close()
            while unsubscribe:
                unsubscribe.pop()()

    routes = [
        Route("/", spectator_page),
        Route("/api/broadcast", broadcast_json),
        Route("/events/broadcast", broadcast_events),
        Route("/feed/games.ggf", feed_ggf),
        Route("/feed/games.json", feed_json),
        Route("/api/standings", standings),
        Route("/arbiter", arbiter_page),
        Route("/arbiter/login", login, methods=["POST"]),
        Route("/arbiter/logout", logout, methods=["POST"]),
        Route("/arbiter/table/{table:int}", table_page),
        Route("/api/dashboard", dashboard_json),
        Route("/events/dashboard", dashboard_events),
        Route("/api/table/{table:int}", table_json),
        Route("/api/table/{table:int}/{action:str}", table_action, methods=["POST"]),
        Route("/api/pairings/send", send_pairings, methods=["POST"]),
        Route("/export/event.ggf", export_ggf),
        Route("/export/event-wthor.zip", export_wthor),
        Route("/static/{name:str}", static),
    ]
    middleware = [
        Middleware(InternalErrors, what="hub web"),
        Middleware(SecurityHeaders),
        Middleware(OriginGuard, trusted_origins=settings.origins),
    ]
    app = Starlette(routes=routes, lifespan=lifespan, middleware=middleware,
                    exception_handlers={HTTPException: _http_error})
    app.state.changes = changes
    #: ``kaeshi hub`` calls this before stopping Uvicorn, so open pages let go at once.
    app.state.close_streams = changes.close
    app.state.views = views
    return app


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return _error(exc.status_code, str(exc.detail), dict(exc.headers or {}))


def _login_redirect(auth: ArbiterAuth) -> Response:
    return RedirectResponse("/arbiter", 303,
                            headers={"Set-Cookie": _hub_cookie(auth.cookie_header())})


def _hub_cookie(header: str) -> str:
    """The table page's cookie under the hub's own name: cookies do not tell ports apart,
    so a hub beside a table on one machine must not log the other's arbiter out."""
    return HUB_COOKIE + header.removeprefix(COOKIE)


def _message(response: Response) -> str:
    try:
        return str(json.loads(bytes(response.body))["error"]).capitalize() + "."
    except (ValueError, KeyError, TypeError):
        return "Refused."


def _minutes(seconds: float) -> str:
    if seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"
