"""HTTPS on the LAN: the table makes its certificate on first start and keeps it."""

from __future__ import annotations

import asyncio
import json
import ssl
import stat

import httpx
import websockets
from phone_support import LiveTable, scene, setup_file


def test_the_table_serves_https_with_a_certificate_it_made_once(tmp_path):
    certs = tmp_path / "tls"
    table = LiveTable(tmp_path, 10, setup_file(tmp_path, scene()),
                      **{"web.https": "on", "web.certificate": str(certs)})
    try:
        port = table.service.outputs.web.port
        assert table.service.outputs.url.startswith("https://")
        cert = certs / "cert.pem"
        assert stat.S_IMODE((certs / "key.pem").stat().st_mode) == 0o600
        with httpx.Client(verify=ssl.create_default_context(cafile=str(cert))) as client:
            key = table.key
            refused = client.get(f"https://127.0.0.1:{port}/phone")
            assert refused.status_code == 403  # said in a sentence, on a page
            assert ("This page&#x27;s address needs the table&#x27;s device key: the "
                    "arbiter&#x27;s view and the terminal that started the table show it.") in (
                refused.text)
            page = client.get(f"https://127.0.0.1:{port}/phone?key={key}")
            assert page.status_code == 200
            assert page.text.count('src="data:image/svg+xml') == 2
            assert f"https://127.0.0.1:{port}/camera?key={key}" in page.text
            assert client.get(f"https://127.0.0.1:{port}/camera").status_code == 200
            assert client.get(f"https://127.0.0.1:{port}/phone/qr/camera.svg").status_code == 403
            code = client.get(f"https://127.0.0.1:{port}/phone/qr/camera.svg?key={key}")
            assert code.status_code == 200 and code.headers["content-type"] == "image/svg+xml"
            assert client.get(f"https://127.0.0.1:{port}/phone/qr/other.svg").status_code == 404
        first = cert.read_bytes()

        async def ping() -> dict:
            context = ssl.create_default_context(cafile=str(cert))
            async with websockets.connect(f"wss://127.0.0.1:{port}/ws/clock?key={key}",
                                          ssl=context) as ws:
                return json.loads(await asyncio.wait_for(ws.recv(), 5))

        assert asyncio.run(ping())["type"] in ("ping", "status")
    finally:
        table.close()
    again = LiveTable(tmp_path, 10, setup_file(tmp_path, scene()),
                      **{"web.https": "on", "web.certificate": str(certs)})
    again.close()
    assert cert.read_bytes() == first  # made once, then kept


def test_a_socket_from_another_site_or_without_the_key_is_refused(tmp_path):
    table = LiveTable(tmp_path, 10, setup_file(tmp_path, scene()))
    try:
        async def connect(origin: str, key: str) -> None:
            url = table.url.replace("http", "ws") + f"/ws/camera?key={key}"
            async with websockets.connect(url, origin=origin) as ws:
                await asyncio.wait_for(ws.recv(), 5)

        for origin, key in (("http://evil.example", table.key), (table.url, ""),
                            (table.url, table.key[:-1] + "x"), (table.url, "%ED%A0%80")):
            try:
                asyncio.run(connect(origin, key))
                refused = False
            except websockets.exceptions.WebSocketException:
                refused = True
            assert refused, (origin, key)
        asyncio.run(connect(table.url, table.key))  # the table's own page is let in
    finally:
        table.close()
