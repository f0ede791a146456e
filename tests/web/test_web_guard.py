"""The reusable guards (origin, failures) and the one disclosure rule; the token's
strength is in ``test_web_tokens.py``."""

from __future__ import annotations

import pytest

from controller.arbiter import Mode, Overlay
from controller.leds import plan_overlay
from controller.web.disclosure import Disclosure, disclosure
from controller.web.guard import (
    FailureLimiter,
    TooManyFailures,
    client_key,
    origin_problem,
)


def scope(host: str = "pi.local:8080", scheme: str = "http", **headers: str) -> dict:
    raw = [(b"host", host.encode())] + [
        (k.replace("_", "-").lower().encode(), v.encode()) for k, v in headers.items()
    ]
    return {"type": "http", "scheme": scheme, "headers": raw, "client": ("192.0.2.7", 5000)}


# ------------------------------------------------------------------ disclosure
@pytest.mark.parametrize(
    ("mode", "audience", "over", "advice", "flags"),
    [
        ("home", "player", False, True, True),
        ("home", "players", False, True, True),
        (Mode.TOURNAMENT, "arbiter", False, True, True),
        (Mode.TOURNAMENT, "player", False, False, False),
        (Mode.TOURNAMENT, "players", True, False, True),
        ("record", "arbiter", False, True, False),
        ("record", "arbiter", True, True, True),
        ("record", "player", False, False, False),
        ("blitz", "arbiter", False, False, False),
    ],
)
def test_web_disclosure_table(mode: object, audience: str, over: bool, advice: bool,
                              flags: bool) -> None:
    assert disclosure(mode, audience, over) == Disclosure(advice, flags)


def test_web_leds_follow_the_disclosure_rule() -> None:
    overlay = Overlay("f5", ["e5"], [], True)
    for state in ("playing", "game_over"):
        assert plan_overlay("tournament", overlay, state) == {}
        assert plan_overlay("record", overlay, state, audience="arbiter") == (
            {} if state == "playing" else plan_overlay("home", overlay, state)
        )
    assert plan_overlay("home", overlay, "playing")


# --------------------------------------------------------------------- origin
def test_web_origin_same_page_passes_other_sites_do_not() -> None:
    assert origin_problem(scope(origin="http://pi.local:8080")) is None
    assert origin_problem(scope("pi.local", origin="http://pi.local:80")) is None
    assert origin_problem(scope("[::1]:8080", origin="http://[::1]:8080")) is None
    assert origin_problem(scope(origin="HTTP://PI.LOCAL:8080")) is None
    assert origin_problem(scope()) is None  # a script: no Origin, no cookie
    for bad in ("http://pi.local:8081", "https://pi.local:8080", "http://evil.example",
                "null", "http://pi.local:8080/x", "pi.local:8080", "http://pi.local:80a"):
        assert origin_problem(scope(origin=bad)) is not None, bad
    assert origin_problem(scope(cookie="kaeshi_arbiter=1")) is not None
    assert origin_problem(scope(origin="http://pi.local:8080", sec_fetch_site="same-site"))
    trusted = ["http://hall.local:8000"]
    assert origin_problem(scope(origin="http://hall.local:8000"), trusted) is None


# ------------------------------------------------------------------- failures
def test_web_failure_limiter_backs_off_per_client_and_forgets() -> None:
    now = [0.0]
    limiter = FailureLimiter(free=2, base=1.0, cap=8.0, forget_after=100.0,
                             clock=lambda: now[0])
    assert [limiter.failed("a") for _ in range(7)] == [0, 0, 1, 2, 4, 8, 8]
    assert limiter.wait("a") == 8.0 and limiter.wait("b") == 0.0  # others unaffected
    with pytest.raises(TooManyFailures, match="try again in 8 s"):
        limiter.check("a")
    now[0] += 8.0
    limiter.check("a")
    limiter.succeeded("a")
    assert limiter.failed("a") == 0  # a success clears the count
    for _ in range(3):
        limiter.failed("c")
    now[0] += 101.0
    assert limiter.wait("c") == 0.0 and limiter.failed("c") == 0  # quiet long enough


def test_web_failure_limiter_memory_is_bounded() -> None:
    limiter = FailureLimiter(free=0, max_clients=100, clock=lambda: 0.0)
    for i in range(1000):
        limiter.failed(f"10.0.{i // 256}.{i % 256}")
    assert len(limiter._clients) == 100
    assert limiter.wait("10.0.3.231") > 0 and limiter.wait("10.0.0.0") == 0


def test_web_client_key_groups_an_ipv6_host_by_its_64() -> None:
    assert client_key({"client": ("192.0.2.7", 1)}) == "192.0.2.7"
    a = client_key({"client": ("2001:db8:1:2::1", 1)})
    assert a == client_key({"client": ("2001:db8:1:2:ffff::9", 1)}) == "2001:db8:1:2::/64"
    assert client_key({"client": ("::ffff:192.0.2.7", 1)}) == "192.0.2.7"
    assert client_key({}) == "?"
