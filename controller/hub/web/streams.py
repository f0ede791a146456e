"""Snapshots shared by every open page, and the server-sent event streams that carry them.

A snapshot is built once per change (or once per ``refresh`` seconds) whatever the number
of pages open, and a stream sends a page only what changed: the dashboard's cards that
changed and the order of all of them, or the spectators' tables that changed. Sending
the whole dashboard (95 kB for 200 tables) ten times a second made every move wait for
its encoding and for the page's parsing of it.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool

from controller import strictjson
from controller.hub.web.change_count import Changes

#: Least time between two updates of one dashboard stream.
COALESCE = 0.1


@dataclass(frozen=True)
class Built:
    """A snapshot's text, and its parts (pre-encoded JSON) that streams send when changed."""

    text: str
    parts: dict[str, str]
    head: str = ""  # for a stream's message: the snapshot's own fields, encoded
    #: What tells that a part changed, when it is not the part itself (a card whose
    #: only change is a running clock's time is not sent again: the page runs it).
    keys: dict[str, str] | None = None
    #: The snapshot's entity tag (a cache or proxy asks "still this one?").
    etag: str = ""


class Shared:
    """One snapshot (a page's JSON, a feed) shared by every reader, rebuilt when ``changes``
    moved on or when older than ``max_age`` seconds (by ``clock``)."""

    def __init__(self, build: Callable[[], Built], max_age: float,
                 clock: Callable[[], float], changes: Changes | None = None) -> None:
        self._build = build
        self._changes = changes
        self._max_age = max_age
        self._clock = clock
        self._lock = asyncio.Lock()
        self._built: Built | None = None
        self._version = -1
        self._at = 0.0

    async def built(self) -> Built:
        async with self._lock:
            version = self._changes.version if self._changes is not None else 0
            fresh = 0 <= self._clock() - self._at < self._max_age
            if version != self._version or not fresh or self._built is None:
                self._built = await run_in_threadpool(self._build)
                self._version, self._at = version, self._clock()
            return self._built

    async def get(self) -> str:
        return (await self.built()).text


def to_json(data: object) -> str:
    """JSON a browser reads back (no NaN, no lone surrogate); raises StrictJSONError."""
    return strictjson.page_json(data)


def table_json(table: int, data: object) -> str:
    """One table's part of a page: should a value an older hub let in still be in the
    store, the table is shown as unreadable, alone, and every other table as it is."""
    try:
        return strictjson.page_json(data)
    except strictjson.StrictJSONError as exc:
        return unreadable_json(table, str(exc))


def unreadable_json(table: int, why: str) -> str:
    return strictjson.page_json({"table": table, "unreadable": why[:200].encode(
        "utf-8", "replace").decode("utf-8")})


def whole(text: str) -> Built:
    return Built(text, {"all": text}, etag=etag_of(text))


def etag_of(text: str) -> str:
    return '"' + hashlib.blake2b(text.encode(), digest_size=12).hexdigest() + '"'



def spectator_built(data: dict[str, Any]) -> Built:
    """The spectators' snapshot; its parts are the tables, the standings and the pairings,
    so a stream sends only what changed (a hall of 200 tables is half a megabyte)."""
    parts = {f"table:{t['table']}": table_json(t["table"], t) for t in data["tables"]}
    parts["standings"] = to_json(data["standings"])
    parts["pairings"] = to_json(data["pairings"])
    head = ",".join(f'"{k}":{to_json(data[k])}' for k in ("now", "as_of", "delay", "event"))
    tables = ",".join(v for k, v in parts.items() if k.startswith("table:"))
    text = (f'{{{head},"tables":[{tables}],"standings":{parts["standings"]},'
            f'"pairings":{parts["pairings"]}}}')
    return Built(text, parts, head, etag=etag_of(text))


def dashboard_built(data: dict[str, Any]) -> Built:
    """The arbiter's snapshot; its parts are the cards (by table), the order of the
    tables, the pairings, the standings and the round. Each card is encoded once: its
    key is the card without its clock, its part the key with the clock added."""
    parts: dict[str, str] = {}
    keys: dict[str, str] = {}
    for card in data["tables"]:
        name = f"table:{card['table']}"
        try:
            if "clock" in card:
                key = to_json({k: v for k, v in card.items() if k != "clock"})
                parts[name] = f'{key[:-1]},"clock":{to_json(card["clock"])}}}'
            else:
                key = parts[name] = to_json(card)
        except strictjson.StrictJSONError as exc:
            key = parts[name] = unreadable_json(card["table"], str(exc))
        keys[name] = key
    names: tuple[str, ...] = ("pairings", "standings", "round", "hall_round", "incidents")
    others = {k: to_json(data[k]) for k in names if k in data}
    order = to_json([card["table"] for card in data["tables"]])
    # the cards are all the parts so far: encoded once, each on its own
    text = (f'{{"now":{to_json(data["now"])},"tables":[' + ",".join(parts.values()) + "],"
            + ",".join(f'"{k}":{v}' for k, v in others.items()) + "}")
    parts |= others
    parts["order"] = keys["order"] = order
    keys |= others
    return Built(text, parts, f'"now":{to_json(data["now"])}', keys)


async def dashboard_stream(shared: Shared, changes: Changes,
                           refresh: float) -> AsyncIterator[str]:
    """What changed on the dashboard, at most every ``COALESCE`` s so a busy hall does
    not flood the page, at least every ``refresh`` s: the cards that changed
    (``tables``), those gone (``gone``), and the ``order`` of all tables, pairings,
    standings and round if they changed; ``full`` says the page must drop what it had
    (the first message)."""
    yield "retry: 1000\n\n"
    sent: dict[str, str] = {}
    while not changes.closed:
        version = changes.version
        built = await shared.built()
        keys = built.keys if built.keys is not None else built.parts
        changed = [k for k, v in keys.items() if sent.get(k) != v]
        gone = [int(k[6:]) for k in sent if k not in keys and k.startswith("table:")]
        if changed or gone or not sent:
            message = [f'"full":{"true" if not sent else "false"}', built.head,
                       '"tables":[' + ",".join(built.parts[k] for k in changed
                                                if k.startswith("table:")) + "]",
                       f'"gone":{to_json(gone)}']
            message += [f'"{k}":{built.parts[k]}' for k in changed
                        if not k.startswith("table:")]
            yield "event: dashboard\ndata: {" + ",".join(message) + "}\n\n"
            sent = dict(keys)
        else:
            yield ": keepalive\n\n"
        await asyncio.sleep(COALESCE)
        await changes.wait(version, refresh)


async def broadcast_stream(shared: Shared, changes: Changes,
                           refresh: float) -> AsyncIterator[str]:
    """Every ``refresh`` s, what changed for spectators: the tables that changed
    (``tables``), those gone (``gone``), standings and pairings if they changed;
    ``full`` says the page must drop what it had (the first message)."""
    yield "retry: 1000\n\n"
    sent: dict[str, str] = {}
    while not changes.closed:
        built = await shared.built()
        changed = {k: v for k, v in built.parts.items() if sent.get(k) != v}
        gone = [int(k[6:]) for k in sent if k not in built.parts and k.startswith("table:")]
        if changed or gone or not sent:
            message = [f'"full":{"true" if not sent else "false"}', built.head,
                       '"tables":[' + ",".join(v for k, v in changed.items()
                                                if k.startswith("table:")) + "]",
                       f'"gone":{to_json(gone)}']
            message += [f'"{k}":{changed[k]}' for k in ("standings", "pairings")
                        if k in changed]
            yield "event: broadcast\ndata: {" + ",".join(message) + "}\n\n"
            sent = dict(built.parts)
        else:
            yield ": keepalive\n\n"
        await changes.sleep(refresh)
