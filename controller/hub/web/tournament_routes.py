"""``kaeshi tournament``'s commands through the hub: while the hub runs it is the
event's only writer (``controller.tournament_store.writer``), so the command line
sends its actions here instead of writing the file.

``POST /api/tournament/ACTION`` (arbiter; bearer token) with the action's payload
as the event file stores it; the answer says whether it was stored, and gives the
pairing sheet of a round it paired.
"""

from __future__ import annotations

import logging

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.errors import KaeshiError
from controller.hub.web.arbiter_access import ArbiterAccess
from controller.hub.web.context import HubContext
from controller.hub.web.responses import error
from controller.web.guard import read_json

log = logging.getLogger("kaeshi.hub.web")


def tournament_routes(hub: HubContext, access: ArbiterAccess) -> list[Route]:
    desk = hub.desk

    @access.guarded
    async def action(request: Request) -> Response:
        if desk is None:
            return error(503, "no tournament director is attached to this hub")
        kind = request.path_params["action"]
        body = await read_json(request)
        try:
            reply = await run_in_threadpool(desk.act, kind, body)
        except KaeshiError as exc:
            return error(400, str(exc))
        except (KeyError, TypeError) as exc:
            return error(400, f"{kind}: the payload lacks or mistypes {exc}")
        hub.changes.notify()
        log.info("tournament command through the hub: %s %s", kind, body)
        return JSONResponse(reply)

    return [Route("/api/tournament/{action:str}", action, methods=["POST"])]
