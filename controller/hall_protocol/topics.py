"""The hall's MQTT topic tree, defined once for the tables and the hub.

Topic tree (``EVENT`` is the event's slug, ``N`` the table number):

=================================  =========  ========  =================================
topic                              direction  retained  payload
=================================  =========  ========  =================================
``kaeshi/EVENT/table/N/state``     table→hub  yes       :class:`TableState`
``kaeshi/EVENT/table/N/events``    table→hub  no        :class:`EventMessage`
``kaeshi/EVENT/table/N/online``    table→hub  yes       ``1`` / ``0`` (the last will)
``kaeshi/EVENT/table/N/ack``       hub→table  yes       :class:`Ack`
``kaeshi/EVENT/table/N/down``      hub→table  no        :class:`DownlinkCommand`
``kaeshi/EVENT/hub/online``        hub        yes       ``1`` / ``0`` (the last will)
=================================  =========  ========  =================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from controller.hall_protocol.checks import MAX_TABLE, SLUG_RE, ProtocolError

TopicKind = Literal["state", "events", "online", "ack", "down"]
#: The topics a table writes (and the hub reads).
UPLINK: tuple[TopicKind, ...] = ("state", "events", "online")


def check_event_slug(slug: str) -> str:
    if not isinstance(slug, str) or not SLUG_RE.match(slug):
        raise ProtocolError(
            f"event slug {slug!r}: use 1-64 lower-case letters, digits, '-' or '_' "
            "(it becomes part of every MQTT topic)"
        )
    return slug


def check_table(n: Any, where: str = "table") -> int:
    if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= MAX_TABLE:
        raise ProtocolError(f"{where}: a table number is an integer 1-{MAX_TABLE}, not {n!r}")
    return n


@dataclass(frozen=True, slots=True)
class Topics:
    """The topic strings of one event."""

    event: str

    def __post_init__(self) -> None:
        check_event_slug(self.event)

    @property
    def root(self) -> str:
        return f"kaeshi/{self.event}"

    def table(self, n: int, kind: TopicKind) -> str:
        return f"{self.root}/table/{check_table(n)}/{kind}"

    def state(self, n: int) -> str:
        return self.table(n, "state")

    def events(self, n: int) -> str:
        return self.table(n, "events")

    def online(self, n: int) -> str:
        return self.table(n, "online")

    def ack(self, n: int) -> str:
        return self.table(n, "ack")

    def down(self, n: int) -> str:
        return self.table(n, "down")

    @property
    def hub_online(self) -> str:
        return f"{self.root}/hub/online"

    def hub_subscriptions(self) -> list[str]:
        """What the hub listens to: every table's uplink (never another's downlink)."""
        return [f"{self.root}/table/+/{kind}" for kind in UPLINK]

    def uplink(self, n: int) -> list[str]:
        """Table ``n``'s uplink: what the hub hears of it when it listens table by table."""
        return [self.table(n, kind) for kind in UPLINK]

    def table_subscriptions(self, n: int) -> list[str]:
        """What table ``n`` listens to: its own downlink and ack, and the hub's presence."""
        return [self.down(n), self.ack(n), self.hub_online]

    def parse(self, topic: str) -> tuple[int, str] | None:
        """``(table, kind)`` of a table topic of this event, ``None`` for anything else."""
        prefix = f"{self.root}/table/"
        if not topic.startswith(prefix):
            return None
        parts = topic[len(prefix):].split("/")
        if len(parts) != 2 or parts[1] not in ("state", "events", "online", "ack", "down"):
            return None
        if not parts[0].isdigit() or parts[0].startswith("0"):
            return None
        n = int(parts[0])
        return (n, parts[1]) if 1 <= n <= MAX_TABLE else None
