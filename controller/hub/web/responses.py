"""The answers every route group builds on: page templates, static assets, the JSON error.

The pages and assets are read from the package once, when the app is built, so no
request waits on the disk and a file missing from the install shows at start-up.
"""

from __future__ import annotations

import html
from importlib import resources

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response

#: Files the hub serves from the table's web package: one board renderer for every page.
SHARED = {"kaeshi-board.js": "text/javascript; charset=utf-8"}


STATIC_TYPES = {
    "hub.js": "text/javascript; charset=utf-8",
    "dashboard.js": "text/javascript; charset=utf-8",
    "table.js": "text/javascript; charset=utf-8",
    "spectator.js": "text/javascript; charset=utf-8",
    "board.js": "text/javascript; charset=utf-8",
    "pairings.js": "text/javascript; charset=utf-8",
    "hub.css": "text/css; charset=utf-8",
    **SHARED,
}
PAGES = ("spectator.html", "board.html", "dashboard.html", "table.html", "login.html",
         "pairings.html")
HEADERS = {"Cache-Control": "no-store"}


def error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    """Every refusal has one shape, so the pages and scripts read ``error`` alone."""
    return JSONResponse({"error": message}, status, headers=headers)


def _static(name: str) -> str:
    package = "controller.web" if name in SHARED else "controller.hub.web"
    return resources.files(package).joinpath("static", name).read_text("utf-8")


class Pages:
    """The hub's pages with the event's name filled in, and the files they load."""

    def __init__(self, event_name: str) -> None:
        self._event_name = event_name
        self._pages = {name: _static(name) for name in PAGES}
        self._assets = {name: _static(name) for name in STATIC_TYPES}

    def page(self, name: str, status: int = 200, **values: str) -> HTMLResponse:
        """Values are escaped here: some come from the address bar or the configuration."""
        body = self._pages[name].replace("{{EVENT}}",
                                         html.escape(self._event_name or "Kaeshi"))
        for key, value in values.items():
            body = body.replace("{{" + key + "}}", html.escape(value))
        return HTMLResponse(body, status, headers=HEADERS)

    async def static(self, request: Request) -> Response:
        name = request.path_params["name"]
        if name not in self._assets:
            return error(404, f"no such file: /static/{name}")
        return Response(self._assets[name], media_type=STATIC_TYPES[name],
                        headers={"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"})
