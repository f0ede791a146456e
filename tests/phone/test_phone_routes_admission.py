"""Who a phone page's socket lets in (``controller/web/phone_routes.py``): this server's own
pages and scripts with no page, only with the table's device key.

``test_phone_routes_https.py`` opens real sockets on a live table; these are the two
checks on their own, on the cases a live socket cannot easily send.
"""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from controller.web.phone_routes import key_ok, same_origin


def socket(**headers: str) -> SimpleNamespace:
    return SimpleNamespace(headers=headers)


@pytest.mark.parametrize("headers,ok", [
    ({"origin": "http://table.local:8440", "host": "table.local:8440"}, True),
    ({"origin": "https://TABLE.local:8441", "host": "table.LOCAL:8441"}, True),  # any case
    ({"host": "table.local:8440"}, True),  # no page: a script on the LAN
    ({"origin": "http://evil.example", "host": "table.local:8440"}, False),
    ({"origin": "http://table.local:9999", "host": "table.local:8440"}, False),  # another port
    ({"origin": "http://table.local:8440"}, False),  # a page, and no host to compare
    ({"origin": "http://[::1", "host": "[::1]:8440"}, False),  # no address at all
])
def test_a_socket_is_let_in_only_from_this_servers_pages(headers, ok):
    assert same_origin(socket(**headers)) is ok  # type: ignore[arg-type]


def test_the_device_key_must_be_given_exactly_and_a_table_without_one_takes_any():
    link = SimpleNamespace(device_key="k3y-of-table-1")
    assert key_ok(link, "k3y-of-table-1")  # type: ignore[arg-type]
    for given in (None, "", "k3y-of-table-", "k3y-of-table-1 ", "K3Y-OF-TABLE-1", "\udc80"):
        assert not key_ok(link, given), given  # type: ignore[arg-type]
    assert key_ok(SimpleNamespace(device_key=""), None)  # type: ignore[arg-type]
