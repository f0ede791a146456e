"""Who is the arbiter: the login page, the hub's own cookie, bearer tokens for scripts.

Kept apart from what the arbiter may do, so that every one of those routes passes the
one check in :meth:`ArbiterAccess.guarded` and every presented token, wherever it comes
from, counts against the same throttle.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from controller.hub.web.responses import Pages, error
from controller.web.auth import COOKIE, ArbiterAuth
from controller.web.guard import TooManyFailures, client_key, read_body

HUB_COOKIE = "kaeshi_hub_arbiter"

Handler = Callable[[Request], Awaitable[Response]]


class ArbiterAccess:
    """One judge of every way in (cookie, ``?token=``, bearer), so a route cannot take
    one of them more lightly than the others."""

    def __init__(self, auth: ArbiterAuth) -> None:
        self.auth = auth
        #: The server's connection gate, if any (:class:`controller.web.gate.Gate`):
        #: an address that shows the arbiter's session may use its reserve.
        self.gate: Any = None

    def _trust(self, request: Request) -> None:
        if self.gate is not None and request.client is not None:
            self.gate.trust(request.client.host)

    def check_token(self, request: Request, token: str | None) -> Response | None:
        """None if ``token`` is right; else the answer: throttled (429) or refused (403)."""
        try:
            if self.auth.attempt(token or "", client_key(request.scope)):
                self._trust(request)
                return None
        except TooManyFailures as exc:
            return error(429, str(exc), {"Retry-After": str(int(exc.retry_after) + 1)})
        return error(403, "wrong arbiter token")

    def has_cookie(self, request: Request) -> bool:
        if self.auth.check_cookie(request.cookies.get(HUB_COOKIE)):
            self._trust(request)
            return True
        return False

    def refusal(self, request: Request) -> Response | None:
        """None if the request is the arbiter's. (Every POST passed the origin guard.)"""
        if not self.auth.enabled:
            return error(403, "the arbiter view is off: no arbiter token is configured")
        token = _bearer(request)
        if token is not None:
            return self.check_token(request, token)
        if not self.has_cookie(request):
            return error(403, "this needs the arbiter token")
        return None

    def guarded(self, handler: Handler) -> Handler:
        async def run(request: Request) -> Response:
            refused = self.refusal(request)
            return refused if refused is not None else await handler(request)
        return run

    def login_redirect(self, to: str = "/arbiter") -> Response:
        return RedirectResponse(_page_path(to), 303,
                                headers={"Set-Cookie": _hub_cookie(self.auth.cookie_header())})

    def page_guarded(self, pages: Pages, handler: Handler) -> Handler:
        """A page (not an API): a person without the cookie gets the login form, which
        brings them back here; ``?token=`` logs in and leaves the address bar."""
        async def run(request: Request) -> Response:
            here = request.url.path
            if not self.auth.enabled:
                return pages.page("login.html", 403, NEXT=here, MESSAGE="The arbiter view is "
                                  "off: set an arbiter token in the hub's configuration.")
            if "token" in request.query_params:
                refused = self.check_token(request, request.query_params["token"])
                if refused is not None:
                    return pages.page("login.html", refused.status_code, NEXT=here,
                                      MESSAGE=_message(refused))
                return self.login_redirect(here)
            if not self.has_cookie(request):
                return pages.page("login.html", NEXT=here, MESSAGE="")
            return await handler(request)
        return run


def login_routes(access: ArbiterAccess, pages: Pages) -> list[Route]:
    """``/arbiter`` (the dashboard once logged in), login and logout."""
    auth = access.auth

    async def arbiter_page(request: Request) -> Response:
        if not auth.enabled:
            return pages.page("login.html", 403, NEXT="/arbiter", MESSAGE="The arbiter view "
                              "is off: set an arbiter token in the hub's configuration.")
        if "token" in request.query_params:
            refused = access.check_token(request, request.query_params["token"])
            if refused is not None:
                return pages.page("login.html", refused.status_code, NEXT="/arbiter",
                                  MESSAGE=_message(refused))
            return access.login_redirect()
        if access.has_cookie(request):
            return pages.page("dashboard.html")
        return pages.page("login.html", NEXT="/arbiter", MESSAGE="")

    async def login(request: Request) -> Response:
        if not auth.enabled:
            return pages.page("login.html", 403, NEXT="/arbiter",
                              MESSAGE="The arbiter view is off.")
        form = parse_qs((await read_body(request, 4096)).decode("utf-8", "replace"))
        back = _page_path((form.get("next") or ["/arbiter"])[0])
        tokens = form.get("token")
        refused = access.check_token(request, tokens[0] if tokens else None)
        if refused is not None:
            return pages.page("login.html", refused.status_code, NEXT=back,
                              MESSAGE=_message(refused))
        return access.login_redirect(back)

    async def logout(request: Request) -> Response:
        auth.end_session(request.cookies.get(HUB_COOKIE))
        return RedirectResponse("/", 303, headers={
            "Set-Cookie": _hub_cookie(ArbiterAuth.clear_cookie_header())})

    return [
        Route("/arbiter", arbiter_page),
        Route("/arbiter/login", login, methods=["POST"]),
        Route("/arbiter/logout", logout, methods=["POST"]),
    ]


_PAGES = re.compile(r"/arbiter(/table/[0-9]{1,4})?")


def _page_path(path: str) -> str:
    """Where a login may send the arbiter back to: one of the arbiter's own pages only
    (never another site: the value comes from a form)."""
    return path if _PAGES.fullmatch(path) else "/arbiter"


def _bearer(request: Request) -> str | None:
    value = request.headers.get("authorization", "")
    return value[7:].strip() if value.lower().startswith("bearer ") else None


def _hub_cookie(header: str) -> str:
    """The table page's cookie under the hub's own name: cookies do not tell ports apart,
    so a hub beside a table on one machine must not log the other's arbiter out."""
    return HUB_COOKIE + header.removeprefix(COOKIE)


def _message(response: Response) -> str:
    try:
        return str(json.loads(bytes(response.body))["error"]).capitalize() + "."
    except (ValueError, KeyError, TypeError):
        return "Refused."
