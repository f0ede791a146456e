"""The hub's web app: the arbiter's dashboard and the spectators' delayed broadcast.

Routes (GET unless said; "arbiter" needs the token, see below):

* ``/`` spectator page; ``/api/broadcast`` its JSON; ``/events/broadcast`` its SSE stream;
  ``/api/broadcast/table/N`` one table with the official board after every step
* ``/feed/games.ggf``, ``/feed/games.json`` every game as far as the delay lets it be seen
* ``/api/standings`` standings and the current round's pairings
* ``/pairings`` the hall screen's "find your table" board; ``/api/pairings`` its JSON
* ``/arbiter`` dashboard (login form without a valid token); ``POST /arbiter/login``
  (form field ``token``); ``POST /arbiter/logout``; ``/arbiter/table/N`` one table
* arbiter: ``/api/dashboard``, ``/events/dashboard`` (SSE), ``/api/table/N``,
  ``/export/event.ggf``, ``/export/event-wthor.zip``
* arbiter, ``POST /api/table/N/ACTION`` with a JSON body: ``pause``, ``resume``,
  ``adjust_time`` ``{"color": "white", "seconds": 60}``, ``accept_board``,
  ``correct_board`` ``{"board": "<one - X O per square>"}``, ``confirm``
  ``{"game": "...", "black": 40, "white": 24}`` (counts optional: the table's own)
* arbiter, ``POST /api/pairings/send``: send the current round's pairings to the tables again
* arbiter, ``POST /api/tournament/ACTION``: a ``kaeshi tournament`` command sent through
  the hub, the event's only writer while it runs (:mod:`.tournament_routes`)

The arbiter is recognised by the cookie set at login (an HMAC of the token, as on a
table's own page), by ``?token=`` on ``/arbiter``, or, for scripts, by
``Authorization: Bearer <token>``. Every POST must come from the hub's own origin
(scripts with a bearer token send none), and wrong tokens are throttled per client.

The routes live by who may see them: :mod:`.spectator_routes` for anyone,
:mod:`.arbiter_access` and :mod:`.arbiter_routes` for the arbiter. This module builds
what they share once and puts every request behind the same guards.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from controller.hub.changes import HubBus
from controller.hub.results import Director, ResultDesk
from controller.hub.web.arbiter_access import ArbiterAccess, login_routes
from controller.hub.web.arbiter_routes import arbiter_routes
from controller.hub.web.change_count import Changes
from controller.hub.web.context import HubContext, HubWebSettings
from controller.hub.web.live import Views
from controller.hub.web.responses import Pages, error
from controller.hub.web.spectator_routes import spectator_routes
from controller.hub.web.store_reads import Store
from controller.hub.web.tournament_routes import tournament_routes
from controller.web.auth import ArbiterAuth
from controller.web.guard import FailureLimiter, InternalErrors, OriginGuard, SecurityHeaders

__all__ = ["HubWebSettings", "build_app"]


def build_app(store: Store, bus: HubBus, director: Director | None,
              settings: HubWebSettings) -> Starlette:
    """The ASGI app; ``kaeshi hub`` serves it with Uvicorn on the hub's event loop."""
    access = ArbiterAccess(ArbiterAuth(settings.arbiter_token,
                                       FailureLimiter(clock=settings.clock),
                                       session_seconds=settings.session_seconds))
    changes = Changes()
    desk = ResultDesk(director, bus.send) if director is not None else None
    views = Views(store, director, desk, settings.clock, settings.delay,
                  settings.clock_warning, settings.event_name, getattr(bus, "trouble", None))
    pages = Pages(settings.event_name)
    hub = HubContext(settings, store, bus, views, desk, changes, pages)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.listen()
        try:
            yield
        finally:
            hub.stop_listening()

    routes = [
        *spectator_routes(hub),
        *login_routes(access, pages),
        *arbiter_routes(hub, access),
        *tournament_routes(hub, access),
        Route("/static/{name:str}", pages.static),
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
    #: ``kaeshi hub`` runs Uvicorn without a lifespan: it calls this once the server is
    #: up, so the result desk hears the tables' sign-offs with no page open.
    app.state.listen = hub.listen
    app.state.views = views
    def use_gate(gate: object) -> None:
        """``kaeshi hub``'s connection gate: the arbiter's addresses use its reserve,
        and live pages count against their client's share."""
        access.gate = gate
        hub.access_gate[:] = [gate]

    app.state.use_gate = use_gate
    return app


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    return error(exc.status_code, str(exc.detail), dict(exc.headers or {}))
