"""How every hall client connects: one place for credentials, TLS and paho's settings."""

from __future__ import annotations

import ssl
from dataclasses import dataclass
from pathlib import Path

import paho.mqtt.client as mqtt

from controller.errors import KaeshiError


@dataclass(frozen=True, slots=True)
class BrokerSettings:
    """Where the broker is and who we are to it."""

    host: str = "127.0.0.1"
    port: int = 1883
    username: str = ""
    password: str = ""
    tls: bool = False
    ca_file: str = ""

    @staticmethod
    def read_password(path: str | Path, where: str = "password_file") -> str:
        """The first line of a password file (so the secret is not in the config)."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise KaeshiError(f"{where} {path}: cannot read it ({exc})") from None
        line = text.splitlines()[0].strip() if text.strip() else ""
        if not line:
            raise KaeshiError(f"{where} {path}: the file is empty")
        return line


def make_client(broker: BrokerSettings, client_id: str, *, clean_session: bool
                ) -> mqtt.Client:
    """A paho client (callback API 2, MQTT 3.1.1) set up for ``broker``; not connected."""
    client = mqtt.Client(
        mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=clean_session,
        protocol=mqtt.MQTTv311,
    )
    if broker.username:
        client.username_pw_set(broker.username, broker.password or None)
    if broker.tls:
        try:
            client.tls_set(ca_certs=broker.ca_file or None, cert_reqs=ssl.CERT_REQUIRED)
        except (OSError, ValueError, ssl.SSLError) as exc:
            raise KaeshiError(f"TLS with ca_file {broker.ca_file!r}: {exc}") from None
    client.reconnect_delay_set(min_delay=1, max_delay=4)  # back within seconds of the cable
    client.max_inflight_messages_set(100)
    return client
