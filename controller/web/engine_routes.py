"""The engine's routes on a table's page; the service refuses them outside home mode.

* ``POST /api/hint`` ``{"heat": false}``: the engine's best move, or (``heat``) every
  legal move's score, for the side to move;
* ``POST /api/engine`` ``{"plays": "white", "level": 6}``: the player picks the
  engine's colour (``none``: no opponent) and level;
* ``/review/<id>``: a finished game's review page; ``/review/<id>.ggf``: its record with
  the analysis as GGF evaluations and comments.

Each asks the facade (:class:`~controller.service.facade.TableFacade`) for ``ask_hints``,
``choose_engine`` and ``review_document``; a facade without them (a test's) has no
engine, and the routes answer 404. See docs/engine.md.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from controller.errors import KaeshiError
from controller.web.guard import read_json

HTML = "text/html; charset=utf-8"


def _json(obj: Any) -> Response:
    return Response(json.dumps(obj, separators=(",", ":")), 200,
                    {"Cache-Control": "no-store"}, "application/json; charset=utf-8")


def engine_routes(facade: Any) -> list[Route]:
    def method(name: str) -> Any:
        found = getattr(facade, name, None)
        if found is None:
            raise HTTPException(404, "no engine at this table")
        return found

    async def hint(request: Request) -> Response:
        body = await read_json(request)
        try:
            return _json(await method("ask_hints")(bool(body.get("heat"))))
        except (ValueError, KaeshiError) as exc:
            raise HTTPException(400, str(exc)) from None

    async def engine(request: Request) -> Response:
        body = await read_json(request)
        level = body.get("level")
        try:
            await method("choose_engine")(body.get("plays"),
                                          None if level is None else int(level))
        except (ValueError, TypeError, KaeshiError) as exc:
            raise HTTPException(400, str(exc)) from None
        return _json({"ok": True})

    async def review(request: Request) -> Response:
        try:
            kind, text = await method("review_document")(request.path_params["name"])
        except (ValueError, KaeshiError) as exc:
            raise HTTPException(400, str(exc)) from None
        if kind == "ggf":
            return Response(text, media_type="application/octet-stream", headers={
                "Content-Disposition": 'attachment; filename="review.ggf"'})
        return Response(text, media_type=HTML)

    return [Route("/api/hint", hint, methods=["POST"]),
            Route("/api/engine", engine, methods=["POST"]),
            Route("/review/{name}", review, methods=["GET"])]
