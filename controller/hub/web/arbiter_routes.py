"""What the arbiter does: the dashboard, one table in full, its controls, the 伏せ石,
results, exports.

Every route here is wrapped in :meth:`ArbiterAccess.guarded`: these show what the
broadcast delay hides and reach the tables, so none may be added without the check.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from controller.errors import KaeshiError
from controller.hall_protocol.protocol import DownlinkCommand, ProtocolError, encode_command
from controller.hub.export import event_ggf, wthor_zip
from controller.hub.web.arbiter_access import ArbiterAccess
from controller.hub.web.context import HubContext
from controller.hub.web.responses import error
from controller.hub.web.streams import (
    Shared,
    dashboard_built,
    dashboard_stream,
    to_json,
    unreadable_json,
)
from controller.strictjson import StrictJSONError
from controller.web.guard import read_json

log = logging.getLogger("kaeshi.hub.web")

#: Actions passed to the table as they are (the protocol checks their arguments).
TABLE_ACTIONS = ("pause", "resume", "adjust_time", "accept_board", "correct_board")


def arbiter_routes(hub: HubContext, access: ArbiterAccess) -> list[Route]:
    """The arbiter's routes after the login ones; all need the token."""
    settings, views, desk, guarded = hub.settings, hub.views, hub.desk, access.guarded
    dashboard_snap = Shared(lambda: dashboard_built(views.arbiter()), settings.refresh,
                            settings.clock, hub.changes)

    def table_number(request: Request) -> int:
        return int(request.path_params["table"])

    async def table_page(request: Request) -> Response:
        return hub.pages.page("table.html", TABLE=str(table_number(request)))

    @guarded
    async def dashboard_json(request: Request) -> Response:
        return Response(await dashboard_snap.get(), media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    @guarded
    async def dashboard_events(request: Request) -> Response:
        return hub.stream(dashboard_stream(dashboard_snap, hub.changes, settings.refresh),
                          request)

    @guarded
    async def table_json(request: Request) -> Response:
        n = table_number(request)
        data = await run_in_threadpool(views.table, n)
        if data is None:
            return error(404, f"no table {n} has reported to this hub")
        try:
            text = to_json(data)
        except StrictJSONError as exc:  # a value an older hub let in: this table only
            text = to_json({"now": data["now"], "card": json.loads(unreadable_json(n, str(
                exc))), "events": [], "unannounced": [], "pairing": None})
        return Response(text, media_type="application/json",
                        headers={"Cache-Control": "no-store"})

    @guarded
    async def table_action(request: Request) -> Response:
        n = table_number(request)
        action = request.path_params["action"]
        if action not in (*TABLE_ACTIONS, "confirm", "toss"):
            return error(404, f"no such arbiter action: {action}")
        body = await read_json(request)
        status = await run_in_threadpool(hub.store.table, n)
        if action == "toss":  # a table not heard from yet may have its toss recorded
            return await record_toss(n, status, body)
        if status is None:
            return error(404, f"no table {n} has reported to this hub")
        if action == "confirm":
            return await confirm(status, body)
        command = DownlinkCommand(action, body)
        try:
            encode_command(command)  # the protocol's own check of the arguments
        except ProtocolError as exc:
            return error(400, f"{action}: {str(exc).removeprefix('down: ')}")
        try:
            await run_in_threadpool(hub.bus.send, n, command)
        except (KaeshiError, OSError, RuntimeError, ValueError) as exc:
            return error(503, f"table {n}: could not send {action}: {exc}")
        log.info("arbiter: table %d %s %s", n, action, body or "")
        return JSONResponse({"ok": True, "table": n, "action": action, "id": command.id})

    async def confirm(status: Any, body: dict[str, Any]) -> Response:
        if desk is None:
            return error(503, "no tournament director is attached to this hub")
        game = body.get("game")
        try:
            outcome = await run_in_threadpool(
                desk.confirm, status, body.get("black"), body.get("white"),
                game if isinstance(game, str) else None)
        except KaeshiError as exc:
            return error(400, str(exc))
        hub.changes.notify()
        r = outcome.result
        log.info("arbiter: round %d table %d confirmed %d-%d", r.round, r.table, r.black, r.white)
        return JSONResponse({
            "ok": True,
            "result": {"round": r.round, "table": r.table, "black": r.black,
                       "white": r.white, "winner": r.winner},
            "next_pairings": [p.announcement() for p in outcome.next_pairings],
            "problem": outcome.problem,
        })

    async def record_toss(n: int, status: Any, body: dict[str, Any]) -> Response:
        if desk is None:
            return error(503, "no tournament director is attached to this hub")
        black, holder = body.get("black"), body.get("draw_win")
        if not isinstance(black, str) or not isinstance(holder, str):
            return error(400, "toss: give black and draw_win, each a player's name")
        try:
            done = await run_in_threadpool(desk.toss, status, n, black, holder)
        except KaeshiError as exc:
            return error(400, str(exc))
        except (OSError, RuntimeError, ValueError) as exc:  # recorded, not sent
            return error(503, f"table {n}: the toss is recorded but could not be sent: {exc}")
        hub.changes.notify()
        p, settled = done.pairing, done.settled
        log.info("arbiter: round %d table %d 伏せ石: black %s, draw-win right %s",
                 p.round, n, p.black, p.draw_win_right)
        return JSONResponse({
            "ok": True, "table": n, "sent": done.sent,
            "pairing": {"round": p.round, "black": p.black, "white": p.white,
                        "draw_win_right": p.draw_win_right},
            "settled": None if settled is None else {
                "black": settled.result.black, "white": settled.result.white,
                "winner": settled.result.winner,
                "next_pairings": [q.announcement() for q in settled.next_pairings],
                "problem": settled.problem},
        })

    @guarded
    async def send_pairings(request: Request) -> Response:
        if desk is None:
            return error(503, "no tournament director is attached to this hub")
        pairings = await run_in_threadpool(desk.current_pairings)
        try:
            await run_in_threadpool(desk.send_pairings, pairings)
        except (KaeshiError, OSError, RuntimeError, ValueError) as exc:
            return error(503, f"could not send the pairings: {exc}")
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

    return [
        Route("/arbiter/table/{table:int}", access.page_guarded(hub.pages, table_page)),
        Route("/api/dashboard", dashboard_json),
        Route("/events/dashboard", dashboard_events),
        Route("/api/table/{table:int}", table_json),
        Route("/api/table/{table:int}/{action:str}", table_action, methods=["POST"]),
        Route("/api/pairings/send", send_pairings, methods=["POST"]),
        Route("/export/event.ggf", export_ggf),
        Route("/export/event-wthor.zip", export_wthor),
    ]
