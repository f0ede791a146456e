"""The spectators' routes: the delayed broadcast, its feeds, the standings, the hall
screen's pairings board.

None of these needs the token, so the broadcast and the feeds are built only from what
the delay lets be seen (:meth:`Views.spectator`, :meth:`Views.delayed_records`); the
standings and pairings are not delayed, in the broadcast either.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from controller.hall_protocol.protocol import GameKey
from controller.hub.export import event_ggf, event_json
from controller.hub.web.context import HubContext
from controller.hub.web.spectator_view import spectator_marked
from controller.hub.web.streams import (
    Built,
    Shared,
    broadcast_stream,
    spectator_built,
    table_json,
    to_json,
    whole,
)


def spectator_routes(hub: HubContext) -> list[Route]:
    """Routes open to anyone in the hall or on the internet."""
    settings, views = hub.settings, hub.views
    # what spectators see moves with time, not with what arrives: rebuilt by age alone
    # the hall screen's board: pairings are public at once, rebuilt when the hub hears news
    pairings_snap = Shared(lambda: whole(to_json(views.pairings_board())), settings.refresh,
                           settings.clock, hub.changes)
    broadcast_snap = Shared(lambda: spectator_built(spectator_marked(views.spectator())),
                            settings.refresh, settings.clock)
    feed_max_age = max(5.0, settings.refresh)
    ggf_feed = Shared(lambda: whole(event_ggf(views.delayed_records())), feed_max_age,
                      settings.clock)
    json_feed = Shared(lambda: whole(event_json(views.delayed_records())), feed_max_age,
                       settings.clock)

    async def spectator_page(request: Request) -> Response:
        return hub.pages.page("spectator.html", DELAY=_minutes(settings.delay))

    async def board_page(request: Request) -> Response:
        return hub.pages.page("board.html", DELAY=_minutes(settings.delay),
                              TABLE=str(int(request.path_params["table"])))

    async def pairings_page(request: Request) -> Response:
        return hub.pages.page("pairings.html")

    async def pairings_json(request: Request) -> Response:
        return snapshot(request, await pairings_snap.built(), "application/json")

    async def broadcast_json(request: Request) -> Response:
        return snapshot(request, await broadcast_snap.built(), "application/json")

    async def broadcast_table(request: Request) -> Response:
        await broadcast_snap.built()  # as fresh as the hall's overview, and built once
        data = views.spectator_table(request.path_params["table"])
        if data is None:
            return JSONResponse({"error": "no such table on the broadcast"}, status_code=404,
                                headers={"Cache-Control": "no-store"})
        return Response(table_json(request.path_params["table"], data),
                        media_type="application/json", headers={"Cache-Control": "no-store"})

    async def broadcast_events(request: Request) -> Response:
        return hub.stream(broadcast_stream(broadcast_snap, hub.changes, settings.refresh),
                          request)

    async def feed_ggf(request: Request) -> Response:
        return snapshot(request, await ggf_feed.built(), "application/x-ggf; charset=utf-8",
                        feed_max_age)

    async def game_ggf(request: Request) -> Response:
        """One game as a spectator may see it, as a GGF file to download."""
        table, game = int(request.path_params["table"]), str(request.path_params["game"])
        records = await run_in_threadpool(views.delayed_records, GameKey(table, game))
        text = event_ggf(records)
        if not text:
            return JSONResponse({"error": f"no game {game} of table {table} on the broadcast"},
                                status_code=404, headers={"Cache-Control": "no-store"})
        name = f"table{table}-{''.join(c for c in game if c.isalnum() or c in '-_')[:40]}.ggf"
        return Response(text, media_type="application/x-ggf; charset=utf-8", headers={
            "Content-Disposition": f'attachment; filename="{name}"',
            "Cache-Control": f"public, max-age={int(feed_max_age)}"})

    async def feed_json(request: Request) -> Response:
        return snapshot(request, await json_feed.built(), "application/json", feed_max_age)

    def snapshot(request: Request, built: Built, media_type: str, max_age: float | None = None
                 ) -> Response:
        """What every spectator sees alike, as a cacheable snapshot: a proxy or CDN in
        front of the hub may keep it ``max-age`` seconds (the rebuild interval) and ask
        again with ``If-None-Match``; an unchanged one is a bodiless 304."""
        age = max(1, int(max_age if max_age is not None else settings.refresh))
        headers = {"Cache-Control": f"public, max-age={age}", "ETag": built.etag}
        if built.etag and built.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers=headers)
        return Response(built.text, media_type=media_type, headers=headers)

    async def standings(request: Request) -> Response:
        data = await run_in_threadpool(
            lambda: {"standings": views.standings(), "pairings": views.pairings()})
        return JSONResponse(data, headers={"Cache-Control": "no-store"})

    return [
        Route("/", spectator_page),
        Route("/board/{table:int}", board_page),
        Route("/pairings", pairings_page),
        Route("/api/pairings", pairings_json),
        Route("/api/broadcast", broadcast_json),
        Route("/api/broadcast/table/{table:int}", broadcast_table),
        Route("/events/broadcast", broadcast_events),
        Route("/feed/games.ggf", feed_ggf),
        Route("/feed/games.json", feed_json),
        Route("/feed/game/{table:int}/{game:str}.ggf", game_ggf),
        Route("/api/standings", standings),
    ]


def _minutes(seconds: float) -> str:
    if seconds % 60 == 0:
        return f"{int(seconds // 60)} min"
    return f"{seconds:g} s"
