"""Just enough HTTP/1.1 for a page, a JSON API and Server-Sent Events, on asyncio streams.

Every response closes its connection (except an event stream, which lives until the
client leaves), so there is no keep-alive bookkeeping; the page makes few requests.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any
from urllib.parse import parse_qs, urlsplit

MAX_HEADER_BYTES = 16 * 1024
MAX_BODY_BYTES = 64 * 1024


class BadRequest(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes = b""
    cookies: dict[str, str] = field(default_factory=dict)

    def json(self) -> dict[str, Any]:
        if not self.body:
            return {}
        try:
            data = json.loads(self.body)
        except (ValueError, UnicodeDecodeError):
            raise BadRequest(400, "request body is not JSON") from None
        if not isinstance(data, dict):
            raise BadRequest(400, "request body must be a JSON object")
        return data

    def form(self) -> dict[str, str]:
        try:
            text = self.body.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest(400, "form is not UTF-8") from None
        return {k: v[0] for k, v in parse_qs(text).items()}


def _cookies(header: str) -> dict[str, str]:
    out = {}
    for part in header.split(";"):
        name, sep, value = part.strip().partition("=")
        if sep:
            out[name] = value
    return out


async def read_request(reader: asyncio.StreamReader) -> Request | None:
    """The next request, None if the client closed first; BadRequest if malformed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    except asyncio.LimitOverrunError:
        raise BadRequest(431, "request headers too large") from None
    if len(head) > MAX_HEADER_BYTES:
        raise BadRequest(431, "request headers too large")
    try:
        lines = head.decode("latin-1").split("\r\n")
        method, target, _version = lines[0].split(" ")
    except ValueError:
        raise BadRequest(400, "malformed request line") from None
    headers = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    parts = urlsplit(target)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    body = b""
    length = headers.get("content-length", "0")
    if not (length.isascii() and length.isdigit()):
        raise BadRequest(400, "bad Content-Length")
    if int(length) > MAX_BODY_BYTES:
        raise BadRequest(413, "request body too large")
    if int(length):
        try:
            body = await reader.readexactly(int(length))
        except asyncio.IncompleteReadError:
            raise BadRequest(400, "request body shorter than Content-Length") from None
    return Request(
        method.upper(),
        parts.path or "/",
        query,
        headers,
        body,
        _cookies(headers.get("cookie", "")),
    )


SECURITY_HEADERS = {
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'"
    ),
}


def response_head(status: int, headers: dict[str, str]) -> bytes:
    reason = HTTPStatus(status).phrase
    lines = [f"HTTP/1.1 {status} {reason}"]
    merged = {**SECURITY_HEADERS, **headers}
    lines += [f"{k}: {v}" for k, v in merged.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


def response(
    status: int, body: bytes | str, content_type: str, headers: dict[str, str] | None = None
) -> bytes:
    data = body.encode("utf-8") if isinstance(body, str) else body
    head = {
        "Content-Type": content_type,
        "Content-Length": str(len(data)),
        "Connection": "close",
        **(headers or {}),
    }
    return response_head(status, head) + data


def json_response(status: int, obj: Any, headers: dict[str, str] | None = None) -> bytes:
    body = json.dumps(obj, separators=(",", ":"), default=str)
    return response(
        status,
        body,
        "application/json; charset=utf-8",
        {"Cache-Control": "no-store", **(headers or {})},
    )
