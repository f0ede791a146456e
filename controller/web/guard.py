"""Protections any Kaeshi web app puts in front of its routes (the table's page, the hub).

* :class:`OriginGuard` — ASGI middleware: a state-changing request (any method but
  GET, HEAD, OPTIONS) from another site is refused with 403, whatever its content type.
  A browser marks every such request with ``Origin`` (and ``Sec-Fetch-Site``); a
  request without ``Origin`` is let through only when it carries no cookie, i.e. when
  it is a script that authenticates itself (``Authorization: Bearer``) and so cannot
  be forged by another page.
* :class:`SecurityHeaders` — ASGI middleware adding the page's security headers.
* :class:`InternalErrors` — ASGI middleware: an unexpected exception is logged with its
  traceback and answered 500 with a message that shows no internals.
* :class:`FailureLimiter` — per-client backoff after failed secrets (token guesses):
  a client that keeps failing must wait longer and longer, and is answered 429 at
  once meanwhile; nothing sleeps, so other clients are not slowed.
* :func:`check_token_strength` — refuses a configured secret too weak to guard anything.
* :func:`read_body`, :func:`read_json` — a request body (as a JSON object), with size,
  depth and syntax faults answered 413/415/400 with a clear message, never a traceback.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import math
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from controller import strictjson
from controller.errors import KaeshiError
from controller.web.refusal import refusal_page, wants_page
from controller.web.tokens import WeakTokenError, check_token_strength, token_bits

log = logging.getLogger("kaeshi.web")

__all__ = [
    "FailureLimiter",
    "InternalErrors",
    "OriginGuard",
    "SecurityHeaders",
    "TooManyFailures",
    "WeakTokenError",
    "check_token_strength",
    "client_key",
    "origin_problem",
    "read_body",
    "read_json",
    "token_bits",
]

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'"
    ),
}
MAX_JSON_BYTES = 64 * 1024
MAX_JSON_DEPTH = 32


async def _send_json(send: Send, status: int, obj: Any, headers: dict[str, str] | None = None
                     ) -> None:
    body = json.dumps(obj).encode("utf-8")
    raw = [
        (b"content-type", b"application/json; charset=utf-8"),
        (b"content-length", str(len(body)).encode("ascii")),
        (b"cache-control", b"no-store"),
    ] + [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": raw})
    await send({"type": "http.response.body", "body": body})


def _header(scope: Scope, name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key == name:
            return str(value.decode("latin-1"))
    return None


def _default_port(scheme: str) -> int:
    return 443 if scheme in ("https", "wss") else 80


def _normalise_origin(origin: str) -> str | None:
    """``scheme://host:port`` with the port always given; None if not an origin."""
    scheme, sep, rest = origin.strip().lower().partition("://")
    if not sep or scheme not in ("http", "https") or not rest or "/" in rest:
        return None
    host, port = rest, _default_port(scheme)
    if rest.startswith("["):  # [v6]:port
        end = rest.find("]")
        if end < 0:
            return None
        host, tail = rest[: end + 1], rest[end + 1 :]
        if tail:
            if not tail.startswith(":") or not tail[1:].isdigit():
                return None
            port = int(tail[1:])
    elif ":" in rest:
        host, _, p = rest.rpartition(":")
        if not (p.isascii() and p.isdigit()):
            return None
        port = int(p)
    return f"{scheme}://{host}:{port}"


def origin_problem(scope: Scope, trusted: Iterable[str] = ()) -> str | None:
    """Why a state-changing request must be refused as cross-site, or None if it may pass."""
    fetch_site = _header(scope, b"sec-fetch-site")
    if fetch_site is not None and fetch_site.strip().lower() not in ("same-origin", "none"):
        return f"cross-site request refused (Sec-Fetch-Site: {fetch_site})"
    origin = _header(scope, b"origin")
    if origin is None:
        if _header(scope, b"cookie") is not None:
            return "request refused: a browser request that carries cookies must name its Origin"
        return None
    scheme = str(scope.get("scheme", "http"))
    host = _header(scope, b"host") or ""
    own = _normalise_origin(f"{scheme}://{host}")
    theirs = _normalise_origin(origin)
    allowed = {_normalise_origin(t) for t in trusted} | {own}
    if theirs is None or own is None or theirs not in allowed:
        return f"cross-origin request refused: Origin {origin[:100]!r} is not this page"
    return None


class _Notes:
    """Says when something may be logged again, so a flood of refusals is one line."""

    def __init__(self, every: float = 60.0, keep: int = 1024,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.every, self.keep, self._clock = every, keep, clock
        self._last: OrderedDict[str, float] = OrderedDict()

    def due(self, key: str) -> bool:
        now = self._clock()
        last = self._last.pop(key, None)
        if last is not None and now - last < self.every:
            self._last[key] = last
            return False
        self._last[key] = now
        while len(self._last) > self.keep:
            self._last.popitem(last=False)
        return True


_notes = _Notes()


class OriginGuard:
    """Refuse state-changing requests that another site's page could have sent.

    ``trusted_origins`` adds origins allowed besides the request's own (e.g. a hub
    page served elsewhere), as ``"http://hall.local:8000"``.
    """

    def __init__(self, app: ASGIApp, trusted_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.trusted = tuple(trusted_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] not in SAFE_METHODS:
            problem = origin_problem(scope, self.trusted)
            if problem is not None:
                who = client_key(scope)
                if _notes.due(f"origin {who}"):
                    log.warning("%s %s from %s: %s (further refusals for this client are "
                                "not logged for a minute)", scope["method"], scope.get("path"),
                                who, problem)
                await _send_json(send, 403, {"error": problem})
                return
        await self.app(scope, receive, send)


class SecurityHeaders:
    """Add :data:`SECURITY_HEADERS` to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp, headers: dict[str, str] | None = None) -> None:
        self.app = app
        chosen = SECURITY_HEADERS if headers is None else headers
        self.headers = [(k.lower().encode("latin-1"), v.encode("latin-1"))
                        for k, v in chosen.items()]

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {k.lower() for k, _ in message.get("headers", [])}
                extra = [(k, v) for k, v in self.headers if k not in present]
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class InternalErrors:
    """Log an unexpected exception and answer 500 without internals; the server goes on."""

    def __init__(self, app: ASGIApp, what: str = "web page") -> None:
        self.app = app
        self.what = what

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def tracking_send(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except ClientDisconnect:
            return  # the client left mid-request: nobody to answer
        except Exception:
            log.exception("%s: %s %s failed", self.what, scope.get("method"), scope.get("path"))
            if not started:
                said = "internal error, see the service log"
                if wants_page(scope):  # a browser's navigation: a page with the sentence
                    body = refusal_page(500, said).encode("utf-8")
                    await send({"type": "http.response.start", "status": 500, "headers": [
                        (b"content-type", b"text/html; charset=utf-8"),
                        (b"content-length", str(len(body)).encode())]})
                    await send({"type": "http.response.body", "body": body})
                    return
                await _send_json(send, 500, {"error": said})


# --------------------------------------------------------------------- failures
def client_key(scope: Scope) -> str:
    """Who a request comes from, for counting failures: the IPv4 address, or the /64 of
    an IPv6 one (a single machine may hold a whole /64)."""
    client = scope.get("client")
    host = str(client[0]) if client else "?"
    try:
        addr = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(addr, ipaddress.IPv6Address):
        if addr.ipv4_mapped is not None:
            return str(addr.ipv4_mapped)
        return str(ipaddress.IPv6Network((addr, 64), strict=False))
    return str(addr)


class TooManyFailures(KaeshiError):
    """The client must wait ``retry_after`` seconds before it may try a secret again."""

    def __init__(self, retry_after: float) -> None:
        self.retry_after = retry_after
        super().__init__(
            f"too many wrong tokens from this address: try again in {math.ceil(retry_after)} s"
        )


class FailureLimiter:
    """Exponential backoff per client after failed secrets; pure bookkeeping, no sleeping.

    The first ``free`` failures cost nothing (typos happen); each further one locks the
    client out for ``base * 2**k`` seconds (k = 0, 1, ...), at most ``cap``. A client
    quiet for ``forget_after`` seconds starts afresh, and a success clears its count.
    At most ``max_clients`` are remembered (the longest quiet are dropped first), so a
    flood of addresses cannot grow memory without bound.
    """

    def __init__(
        self,
        free: int = 5,
        base: float = 1.0,
        cap: float = 300.0,
        forget_after: float = 3600.0,
        max_clients: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.free = free
        self.base = base
        self.cap = cap
        self.forget_after = forget_after
        self.max_clients = max_clients
        self._clock = clock
        #: client -> (failures, locked until, last failure)
        self._clients: OrderedDict[str, tuple[int, float, float]] = OrderedDict()

    def wait(self, client: str) -> float:
        """Seconds ``client`` must still wait before trying again (0: now)."""
        entry = self._clients.get(client)
        if entry is None:
            return 0.0
        now = self._clock()
        failures, until, last = entry
        if now - last > self.forget_after:
            del self._clients[client]
            return 0.0
        return max(0.0, until - now)

    def check(self, client: str) -> None:
        """Raise :class:`TooManyFailures` while ``client`` is locked out."""
        left = self.wait(client)
        if left > 0:
            raise TooManyFailures(left)

    def failed(self, client: str) -> float:
        """Count a failure; return how long ``client`` must now wait (a lock is logged)."""
        now = self._clock()
        failures, _, last = self._clients.pop(client, (0, 0.0, now))
        if now - last > self.forget_after:
            failures = 0
        failures += 1
        over = failures - self.free
        delay = 0.0 if over <= 0 else min(self.cap, self.base * 2.0 ** min(over - 1, 60))
        self._clients[client] = (failures, now + delay, now)
        while len(self._clients) > self.max_clients:
            self._clients.popitem(last=False)
        if delay > 0:
            log.warning("%d wrong secrets from %s: locked out for %.0f s", failures, client,
                        delay)
        return delay

    def succeeded(self, client: str) -> None:
        self._clients.pop(client, None)


# -------------------------------------------------------------------------- JSON
async def read_body(request: Request, limit: int = MAX_JSON_BYTES) -> bytes:
    """The whole body, refused with 413 as soon as it is known to exceed ``limit``
    (by its ``Content-Length``, or while a chunked body arrives)."""
    length = request.headers.get("content-length")
    if length is not None and length.isascii() and length.isdigit() and int(length) > limit:
        raise HTTPException(413, f"request body too large (at most {limit} bytes)")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise HTTPException(413, f"request body too large (at most {limit} bytes)")
        chunks.append(chunk)
    return b"".join(chunks)


async def read_json(
    request: Request, limit: int = MAX_JSON_BYTES, max_depth: int = MAX_JSON_DEPTH
) -> dict[str, Any]:
    """The body as a JSON object ({} when empty); a bad body raises HTTPException 4xx.

    The body is read strictly (:mod:`controller.strictjson`): valid Unicode without
    control characters, finite numbers, ``max_depth`` levels at most; each route then
    reads its fields with the protocol's own checks."""
    body = await read_body(request, limit)
    if not body.strip():
        return {}
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(415, "send the request body as JSON (Content-Type: application/json)")
    try:
        data = strictjson.loads(body, max_depth)
    except strictjson.StrictJSONError as exc:
        raise HTTPException(400, f"request body refused: {exc}"[:300]) from None
    if not isinstance(data, dict):
        raise HTTPException(400, "request body must be a JSON object")
    return data
