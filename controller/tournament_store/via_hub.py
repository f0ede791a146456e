"""Writing a ``kaeshi tournament`` action: under the event file's writer lock, or,
while the hub runs (the event's only writer), through it: ``POST
/api/tournament/ACTION`` with the arbiter's token."""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.tournament.event import Tournament
from controller.tournament.model import TournamentError
from controller.tournament_store import store, writer
from controller.tournament_store.roster import fold_name

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


@dataclass
class Written:
    """What a write did: ``t`` and ``result`` when this command wrote the file; the
    hub's ``reply`` when it went through the running hub."""

    t: Tournament | None = None
    result: Any = None
    reply: dict[str, Any] | None = None


def write(db: Path, token: str | None, kind: str, payload: dict[str, Any],
          say: Callable[[str], None]) -> Written:
    """One action of ``kaeshi tournament``, written under the event's writer lock, or
    sent through the hub that holds it; refused, naming the hub, without its token."""
    payload = _folded(payload)
    try:
        with writer.holding(db, "kaeshi tournament"):
            _, t = store.load(db)
            return Written(t, store.commit(db, t, kind, payload))
    except writer.WriterBusy as busy:
        holder = busy.holder
        if holder is None or holder.url is None or not token:
            how = ("give its arbiter token (--hub-token or KAESHI_HUB_TOKEN) to send this "
                   "through it, or use its dashboard" if holder and holder.url else
                   "wait for it to finish")
            raise TournamentError(f"{busy}; nothing was written: {how}") from None
        reply = send(holder.url, token, kind, payload)
        say(f"sent through {holder.text()}")
        if reply.get("problem"):
            say(f"note: {reply['problem']}")
        return Written(reply=reply)


def _folded(payload: dict[str, Any]) -> dict[str, Any]:
    """Names typed at the terminal, in the form the roster keeps them (NFKC, spaces
    folded), so 「山田　太郎」 finds 「山田 太郎」."""
    out = dict(payload)
    for key in ("player", "loser", "name", "black", "draw_win"):
        if isinstance(out.get(key), str):
            out[key] = fold_name(out[key])
    for key in ("tables", "byes"):
        if isinstance(out.get(key), list):
            out[key] = [[fold_name(n) for n in x] if isinstance(x, list) else fold_name(x)
                        for x in out[key]]
    return out
