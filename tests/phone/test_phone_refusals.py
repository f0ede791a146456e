"""The phone routes refuse as every table page does: a browser that navigates to a
missing file or QR code, or to a QR code without the device key, gets the sentence on
a page of its own; a script or an image request gets it as JSON, never a bare word."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from starlette.testclient import TestClient

from controller.web.phone_routes import phone_routes
from controller.web.server import WebServer

KEY = "k3y-of-this-table"
PAGE = {"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"}
IMAGE = {"Accept": "image/avif,image/webp,image/svg+xml,image/*,*/*;q=0.8"}


class _Facade:
    def snapshot(self, view: str) -> dict:
        return {"version": 0, "mode": "home", "state": "playing", "events": []}


@pytest.fixture
def client():
    link = SimpleNamespace(device_key=KEY)
    server = WebServer(_Facade(), port=0, extra_routes=phone_routes(link))  # type: ignore[arg-type]
    return TestClient(server.app, base_url="http://127.0.0.1")


@pytest.mark.parametrize(("path", "status", "said"), [
    ("/phone/nosuch.js", 404, "No such file: /phone/nosuch.js."),
    (f"/phone/qr/other.svg?key={KEY}", 404,
     "No QR code for 'other': the camera's and the clock's pages have one."),
    ("/phone/qr/camera.svg", 403,
     "The QR code's address needs the table's device key: the arbiter's view and the "
     "terminal that started the table show it."),
    ("/phone/qr/clock.svg?key=wrong", 403,
     "The QR code's address needs the table's device key: the arbiter's view and the "
     "terminal that started the table show it."),
])
def test_a_refused_phone_address_is_a_sentence(client, path, status, said):
    page = client.get(path, headers=PAGE)
    assert page.status_code == status and page.headers["content-type"].startswith("text/html")
    assert '<p id="refusal" class="refusal-text">' in page.text
    assert said.replace("'", "&#x27;") in page.text
    for headers in (IMAGE, {}):  # an <img>, a script: the same sentence's words as JSON
        r = client.get(path, headers=headers)
        assert r.status_code == status
        assert r.headers["content-type"].startswith("application/json")
        assert r.json()["error"][0].upper() + r.json()["error"][1:] + "." == said


def test_what_the_key_opens_is_still_served(client):
    code = client.get(f"/phone/qr/camera.svg?key={KEY}", headers=IMAGE)
    assert code.status_code == 200 and code.headers["content-type"] == "image/svg+xml"
    assert client.get("/phone/camera.js").status_code == 200
    assert client.get(f"/phone?key={KEY}", headers=PAGE).status_code == 200
