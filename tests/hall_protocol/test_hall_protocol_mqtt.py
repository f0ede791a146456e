"""The broker's password is read from a file, first line only, and a file that gives
none stops start-up naming it; a client is set up with what the settings say."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.errors import KaeshiError
from controller.hall_protocol.mqtt import BrokerSettings, make_client


def test_the_password_is_the_files_first_line_stripped(tmp_path: Path) -> None:
    path = tmp_path / "pw"
    path.write_text("  s3cret  \nsecond line\n", encoding="utf-8")
    assert BrokerSettings.read_password(path) == "s3cret"


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\n"])
def test_an_empty_password_file_is_refused_by_name(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "pw"
    path.write_bytes(content)
    with pytest.raises(KaeshiError, match=r"hub\.password_file .*pw: the file is empty"):
        BrokerSettings.read_password(path, where="hub.password_file")


def test_an_unreadable_password_file_is_refused_by_name(tmp_path: Path) -> None:
    with pytest.raises(KaeshiError, match="password_file .*missing: cannot read it"):
        BrokerSettings.read_password(tmp_path / "missing")
    bad = tmp_path / "latin1"
    bad.write_bytes(b"caf\xe9\n")
    with pytest.raises(KaeshiError, match="cannot read it"):
        BrokerSettings.read_password(bad)


def test_tls_with_a_missing_ca_file_is_refused_naming_it(tmp_path: Path) -> None:
    settings = BrokerSettings(tls=True, ca_file=str(tmp_path / "no-ca.pem"))
    with pytest.raises(KaeshiError, match="TLS with ca_file .*no-ca.pem"):
        make_client(settings, "t", clean_session=True)


def test_a_client_is_made_unconnected_with_the_settings_credentials() -> None:
    client = make_client(BrokerSettings(username="table-1", password="pw"), "table-1",
                         clean_session=False)
    assert (client.username, client.password) == ("table-1", "pw")
    assert not client.is_connected()
    anonymous = make_client(BrokerSettings(), "hub", clean_session=True)
    assert anonymous.username is None
