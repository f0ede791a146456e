"""Arbiter sessions end: after their lifetime, at logout (on the server), and when the
token changes, on the table's page and on the hub alike."""

from __future__ import annotations

import warnings

import pytest
from hub_web_support import FakeBus, Hall
from web_support import TOKEN, SimulatedGame

from controller.hub.web import HubWebSettings, build_app
from controller.hub.web.arbiter_access import HUB_COOKIE
from controller.web import WebServer
from controller.web.auth import COOKIE, ArbiterAuth

with warnings.catch_warnings():
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

ORIGIN = "http://testserver"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_session_ends_after_its_lifetime_at_logout_and_with_a_new_token() -> None:
    clock = Clock()
    auth = ArbiterAuth(TOKEN, session_seconds=3600, clock=clock)
    header = auth.cookie_header()
    assert "Max-Age=3600" in header and TOKEN not in header
    one = header.split(";")[0].split("=", 1)[1]
    two = auth.open_session()
    assert auth.check_cookie(one) and auth.check_cookie(two)
    clock.now += 3599
    assert auth.check_cookie(one)
    clock.now += 1
    assert not auth.check_cookie(one) and not auth.check_cookie(two)  # a day is a day
    three, four = auth.open_session(), auth.open_session()
    auth.end_session(three)
    assert not auth.check_cookie(three) and auth.check_cookie(four)
    auth.set_token(TOKEN + "-new")
    assert not auth.check_cookie(four) and auth.sessions() == 0
    assert not auth.check_cookie(None) and not auth.check_cookie("x" * 10_000)


def _table(token: str = TOKEN, hours: float = 24.0) -> tuple[WebServer, TestClient]:
    server = WebServer(SimulatedGame(), "127.0.0.1", 0, token,  # type: ignore[arg-type]
                       session_seconds=hours * 3600)
    return server, TestClient(server.app, base_url=ORIGIN, raise_server_exceptions=False)


def _hub(hours: float = 24.0) -> TestClient:
    app = build_app(Hall().store, FakeBus(), None,
                    HubWebSettings(TOKEN, delay=0.0, session_seconds=hours * 3600))
    return TestClient(app, base_url=ORIGIN)


@pytest.mark.parametrize("where", ["table", "hub"])
def test_a_logged_out_cookie_is_refused_even_when_sent_again(where: str) -> None:
    if where == "table":
        _, c = _table()
        name, page = COOKIE, "/api/state?view=arbiter"
    else:
        c = _hub()
        name, page = HUB_COOKIE, "/api/dashboard"
    r = c.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
    cookie = r.headers["set-cookie"].split(";")[0]
    assert cookie.startswith(name + "=") and "Max-Age=86400" in r.headers["set-cookie"]
    c.cookies.clear()
    assert c.get(page, headers={"Cookie": cookie}).status_code == 200
    r = c.post("/arbiter/logout", headers={"Origin": ORIGIN, "Cookie": cookie},
               follow_redirects=False)
    assert r.status_code == 303 and "Max-Age=0" in r.headers["set-cookie"]
    c.cookies.clear()
    assert c.get(page, headers={"Cookie": cookie}).status_code == 403  # a kept copy


def test_a_new_token_on_the_table_ends_every_session() -> None:
    server, c = _table()
    r = c.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
    cookie = r.headers["set-cookie"].split(";")[0]
    c.cookies.clear()
    assert c.get("/api/state?view=arbiter", headers={"Cookie": cookie}).status_code == 200
    server.auth.set_token("another-long-arbiter-token-2026")
    assert c.get("/api/state?view=arbiter", headers={"Cookie": cookie}).status_code == 403


def test_the_hubs_session_lifetime_comes_from_hub_toml() -> None:
    from controller.hub.config import parse_hub_config

    cfg = parse_hub_config('[event]\nslug = "open"\n[web]\nsession_hours = 2.5\n')
    assert cfg.session_hours == 2.5
    assert parse_hub_config('[event]\nslug = "open"\n').session_hours == 24.0
