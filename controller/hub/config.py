"""``hub.toml``: the hub's configuration, every key typed, bounded and documented once.

A typo in the hall is found at start-up, with the file, the line and the key named,
not an hour into the round.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.protocol import ProtocolError
from controller.hall_protocol.topics import check_event_slug
from controller.tomlconfig import Option, Schema, TomlConfigError, check_secret, read_text


class HubConfigError(TomlConfigError):
    """A hub.toml that cannot be used; names file, line and key."""


Key = Option
"""A hub.toml key: the same typed, bounded, documented option as the service's."""

KEYS: tuple[Key, ...] = (
    Key("event", "slug", str, "", "Short name in every topic (kaeshi/<slug>/...); the same "
        "in every table's [hub] event. Required."),
    Key("event", "name", str, "", "The event's name, shown on the pages."),
    Key("event", "tables", int, 0, "Tables in the hall (numbered 1 to this). The hub then "
        "listens to each table on its own, and can stop hearing one that floods it while "
        "it goes on hearing the others; 0: every table number, by wildcard.", 0, 9999),
    Key("event", "games", int, 40, "Games a table may play in the event, replays included "
        "(the schedule's rounds and a few more); a table naming more is refused and the "
        "arbiter told.", 1, 10000),
    Key("broker", "host", str, "127.0.0.1", "The broker's address."),
    Key("broker", "port", int, 1883, "The broker's port.", 1, 65535),
    Key("broker", "username", str, "hub", "The hub's broker user (the ACL's `hub`)."),
    Key("broker", "password", str, "", "Its password (better: password_file)."),
    Key("broker", "password_file", str, "", "File whose first line is the password."),
    Key("broker", "tls", bool, False, "Connect with TLS."),
    Key("broker", "ca_file", str, "", "CA certificate of the broker (TLS)."),
    Key("store", "path", str, "hub.sqlite", "The hub's SQLite store (resumes after a crash)."),
    Key("web", "enabled", bool, True, "Serve the arbiter dashboard and the broadcast."),
    Key("web", "host", str, "0.0.0.0", "Address the pages listen on."),
    Key("web", "port", int, 8090, "Port of the pages; 0 picks a free one.", 0, 65535),
    Key("web", "token", str, "",
        "Arbiter token; empty: a random one, shown on the terminal at start (never logged)."),
    Key("web", "max_connections", int, 1000, "Connections the pages hold at most, all "
        "clients together (kept below the open-file limit); a few are kept for the arbiter.",
        16, 100000),
    Key("web", "max_per_client", int, 16, "Connections one client address may hold (a "
        "browser uses about six). A proxy or CDN in front of the hub is one address: "
        "raise this to its own connection count.", 1, 100000),
    Key("web", "session_hours", float, 24.0, "Hours an arbiter's login lasts; logging out, "
        "or a new token, ends every session at once.", 0.01, 8760.0),
    Key("web", "delay", float, 900.0, "Broadcast delay in seconds (against outside help).",
        0.0, 86400.0),
    Key("tournament", "file", str, "", "The event file of `kaeshi tournament` (--db): "
        "confirmed results go there and the next round's pairings go to the tables. Empty: "
        "no results desk."),
)
SCHEMA = Schema(KEYS, HubConfigError)


@dataclass(frozen=True, slots=True)
class HubConfig:
    event: str
    event_name: str
    broker: BrokerSettings
    store: Path
    web: bool
    web_host: str
    web_port: int
    token: str
    delay: float
    tournament: Path | None = None
    tables: int = 0
    games: int = 40
    session_hours: float = 24.0
    max_connections: int = 1000
    max_per_client: int = 16


def parse_hub_config(text: str, source: str = "hub.toml") -> HubConfig:
    """The hub's settings; NaN, control characters, unknown keys and the like are refused
    with the file, line and key named, exactly as in the table's kaeshi.toml."""
    parsed = SCHEMA.parse(text, source)
    values = parsed.values
    check_secret(parsed, "web.token", source, HubConfigError)
    try:
        slug = check_event_slug(values["event.slug"])
    except ProtocolError as exc:
        raise HubConfigError(
            f"{source}{parsed.lines.where('event', 'slug')}: event.slug: {exc}") from None
    password = values["broker.password"]
    if values["broker.password_file"]:
        password = BrokerSettings.read_password(values["broker.password_file"],
                                                f"{source}: broker.password_file")
    return HubConfig(
        event=slug,
        event_name=values["event.name"] or slug,
        broker=BrokerSettings(
            host=values["broker.host"], port=values["broker.port"],
            username=values["broker.username"], password=password,
            tls=values["broker.tls"], ca_file=values["broker.ca_file"],
        ),
        store=Path(values["store.path"]),
        web=values["web.enabled"],
        web_host=values["web.host"],
        web_port=values["web.port"],
        token=values["web.token"],
        delay=values["web.delay"],
        tournament=Path(values["tournament.file"]) if values["tournament.file"] else None,
        tables=values["event.tables"],
        games=values["event.games"],
        session_hours=values["web.session_hours"],
        max_connections=values["web.max_connections"],
        max_per_client=values["web.max_per_client"],
    )


def load_hub_config(path: str | Path) -> HubConfig:
    text, source = read_text(path, HubConfigError, "hub configuration")
    return parse_hub_config(text, source)


def example_hub_toml() -> str:
    """Every key at its default, with its documentation (for the README and organisers)."""
    return SCHEMA.example(["kaeshi hub --config hub.toml"])
