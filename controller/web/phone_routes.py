"""The phone's camera page and the tablet's clock page, and their WebSockets.

* ``/camera``: the camera page; ``/ws/camera`` its socket (frames in, what the
  service sees out)
* ``/clock``: the clock page; ``/ws/clock`` its socket (presses in)
* ``/phone``: the two pages' addresses as QR codes, to open them on the devices

Every address carries the table's device key (``?key=``, derived from the arbiter's
token): a page opened without it, by a spectator on the club's Wi-Fi, cannot press a
clock or feed frames. The terminal that started the table and the arbiter's view show
the addresses with their key.

Each socket is one :class:`PhoneSession` of the table's :class:`PhoneLink` (the
browser source): every message goes to the session's strict reader; the service pings
for the clock sync and sends the page its status twice a second. A socket from another
site's page is refused, and one silent for :data:`READ_DEADLINE` seconds is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from importlib import resources
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

log = logging.getLogger("kaeshi.web")

Role = Literal["camera", "clock"]
#: A page sends at least its health every few seconds; a socket silent this long is dead.
READ_DEADLINE = 10.0
STATUS_EVERY = 0.5
PAGES = {"camera": "camera.html", "clock": "clock.html", "phone": "phone.html"}
ASSETS = {"camera.js", "clock.js", "phone.css"}
#: Where a person finds the device key an address needs.
KEY_WHERE = "the arbiter's view and the terminal that started the table show it"


class PhoneSession(Protocol):
    closed: bool

    def ping(self) -> str: ...
    def ping_interval(self) -> float: ...
    def status(self) -> dict[str, Any]: ...
    def text(self, text: str) -> str | None: ...
    def binary(self, data: bytes) -> str | None: ...


class PhoneLink(Protocol):
    device_key: str

    def connect(self, role: Role) -> PhoneSession: ...
    def disconnect(self, session: PhoneSession) -> None: ...


def key_ok(link: PhoneLink, given: str | None) -> bool:
    """The page's address carries this table's device key (any, if it has none)."""
    import hmac

    return not link.device_key or hmac.compare_digest((given or "").encode("utf-8", "replace"),
                                                      link.device_key.encode("utf-8"))


def _static(name: str) -> str:
    return resources.files("controller.web").joinpath("static", name).read_text("utf-8")


def phone_routes(link: PhoneLink) -> list[BaseRoute]:
    pages = {role: _static(name) for role, name in PAGES.items()}
    assets = {name: _static(name) for name in ASSETS}

    def page(role: Role) -> Any:
        async def serve(request: Request) -> Response:
            return Response(pages[role], 200, {"Cache-Control": "no-store"},
                            "text/html; charset=utf-8")
        return serve

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:  # said as the server's refusals are (a page, or JSON)
            raise HTTPException(404, f"no such file: /phone/{name[:60]}")
        kind = "text/css" if name.endswith(".css") else "text/javascript"
        return Response(assets[name], 200, {"Cache-Control": "no-cache"},
                        f"{kind}; charset=utf-8")

    def socket(role: Role) -> Any:
        async def serve(ws: WebSocket) -> None:
            await _serve_socket(ws, link, role)
        return serve

    async def codes(request: Request) -> Response:
        import html

        from controller.web.qr import qr_svg_data_uri

        key = request.query_params.get("key")
        if not key_ok(link, key):
            from controller.web.refusal import refusal_page

            # a page a person opened: the sentence on a page (controller/web/refusal.py)
            return Response(refusal_page(403, "this page's address needs the table's device "
                                         f"key: {KEY_WHERE}"), 403,
                            media_type="text/html; charset=utf-8")
        base = f"{request.url.scheme}://{request.headers.get('host', '')}"
        suffix = f"?key={link.device_key}" if link.device_key else ""
        parts = []
        for role, what in (("camera", "the phone over the board"),
                           ("clock", "the tablet beside it")):
            url = f"{base}/{role}{suffix}"
            parts.append(f'<figure><img alt="QR code of {html.escape(url)}" '
                         f'src="{qr_svg_data_uri(url)}"><figcaption>{html.escape(what)}: '
                         f'<a href="/{role}{suffix}">{html.escape(url)}</a>'
                         "</figcaption></figure>")
        body = pages["phone"].replace("{{CODES}}", "\n".join(parts))
        return Response(body, 200, {"Cache-Control": "no-store"}, "text/html; charset=utf-8")

    async def code(request: Request) -> Response:
        """One page's address as an SVG QR code, for the table page."""
        from controller.web.qr import qr_svg

        role = request.path_params["role"]
        if role not in ("camera", "clock"):
            raise HTTPException(404, f"no QR code for {role[:40]!r}: the camera's and the "
                                "clock's pages have one")
        if not key_ok(link, request.query_params.get("key")):
            raise HTTPException(403, f"the QR code's address needs the table's device key: "
                                f"{KEY_WHERE}")
        base = f"{request.url.scheme}://{request.headers.get('host', '')}"
        suffix = f"?key={link.device_key}" if link.device_key else ""
        return Response(qr_svg(f"{base}/{role}{suffix}"), 200, {"Cache-Control": "no-store"},
                        "image/svg+xml")

    return [
        Route("/phone", codes, methods=["GET"]),
        Route("/phone/qr/{role}.svg", code, methods=["GET"]),
        Route("/camera", page("camera"), methods=["GET"]),
        Route("/clock", page("clock"), methods=["GET"]),
        Route("/phone/{name}", asset, methods=["GET"]),
        WebSocketRoute("/ws/camera", socket("camera")),
        WebSocketRoute("/ws/clock", socket("clock")),
    ]


def same_origin(ws: WebSocket) -> bool:
    """A browser names the page that opened the socket: it must be this server's."""
    origin = ws.headers.get("origin")
    if origin is None:
        return True  # not a browser (a script on the LAN has no page to abuse)
    host = ws.headers.get("host", "")
    try:
        return urlsplit(origin).netloc.lower() == host.lower() and bool(host)
    except ValueError:
        return False


async def _serve_socket(ws: WebSocket, link: PhoneLink, role: Role) -> None:
    if not same_origin(ws):
        log.warning("a %s socket from another site's page was refused", role)
        await ws.close(code=1008)
        return
    if not key_ok(link, ws.query_params.get("key")):
        log.warning("a %s socket without this table's device key was refused", role)
        await ws.close(code=1008)
        return
    await ws.accept()
    session = link.connect(role)
    sender = asyncio.create_task(_send(ws, session))
    try:
        while not session.closed:
            try:
                msg = await asyncio.wait_for(ws.receive(), READ_DEADLINE)
            except TimeoutError:
                log.info("%s page silent for %.0f s: closed", role, READ_DEADLINE)
                break
            if msg["type"] == "websocket.disconnect":
                break
            if msg.get("bytes") is not None:
                refused = session.binary(msg["bytes"])
            elif msg.get("text") is not None:
                refused = session.text(msg["text"])
            else:
                continue
            if refused is not None:
                await ws.send_text(json.dumps({"type": "refused", "reason": refused}))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        sender.cancel()
        with contextlib.suppress(BaseException):
            await sender
        link.disconnect(session)
        with contextlib.suppress(Exception):
            await ws.close()


async def _send(ws: WebSocket, session: PhoneSession) -> None:
    loop = asyncio.get_running_loop()
    next_ping = next_status = loop.time()
    with contextlib.suppress(WebSocketDisconnect, RuntimeError, OSError):
        while not session.closed:
            now = loop.time()
            if now >= next_ping:
                await ws.send_text(session.ping())
                next_ping = now + session.ping_interval()
            if now >= next_status:
                await ws.send_text(json.dumps(session.status(), separators=(",", ":")))
                next_status = now + STATUS_EVERY
            await asyncio.sleep(max(0.01, min(next_ping, next_status) - loop.time()))
