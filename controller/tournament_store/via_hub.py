"""Sending a ``kaeshi tournament`` action through the running hub, the event's only
writer while it runs: ``POST /api/tournament/ACTION`` with the arbiter's token."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from controller.tournament.model import TournamentError

#: Where a hub listening on every address is reached from its own machine.
_ANY = {"0.0.0.0": "127.0.0.1", "::": "[::1]", "[::]": "[::1]"}


def local(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if host in _ANY or f"[{host}]" in _ANY:
        netloc = f"{_ANY.get(host) or _ANY[f'[{host}]']}:{parts.port}"
        return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
    return url


def send(url: str, token: str, kind: str, payload: dict[str, Any],
         timeout: float = 30.0) -> dict[str, Any]:
    """The hub's answer to the action, or a refusal naming the hub and its reason."""
    target = f"{local(url).rstrip('/')}/api/tournament/{kind}"
    req = urllib.request.Request(
        target, data=json.dumps(payload, ensure_ascii=False).encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {token}"},
        method="POST")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:  # noqa: S310 — the hub's own address
            reply: dict[str, Any] = json.loads(r.read() or b"{}")
            return reply
    except urllib.error.HTTPError as exc:
        try:
            why = json.loads(exc.read() or b"{}").get("error", exc.reason)
        except ValueError:
            why = exc.reason
        raise TournamentError(f"the hub at {url} refused {kind}: {why}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise TournamentError(f"no answer from the hub at {url} for {kind}: "
                              f"{getattr(exc, 'reason', exc)}; look at its dashboard before "
                              "sending it again") from None
