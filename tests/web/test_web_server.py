"""The web app's routes and views, with a facade backed by the real arbiter and clock.

The app is driven in-process through Starlette's test client; what only a real
socket shows (the HTTP wire, the event stream, stopping) is in ``test_web_embed_wire.py``.
"""

from __future__ import annotations

import json
import re
import warnings

import pytest
from web_support import TOKEN, SimulatedGame

from controller.arbiter import Mode
from controller.records import read_ggf_text, write_ggf
from controller.squares import Color
from controller.web import WebServer, for_view
from controller.web.auth import COOKIE
from controller.web.guard import FailureLimiter, WeakTokenError

with warnings.catch_warnings():  # Starlette asks for httpx2; httpx serves the same
    warnings.simplefilter("ignore", UserWarning)
    from starlette.testclient import TestClient

ORIGIN = "http://testserver"  # the test client's own origin


def client(game: SimulatedGame, token: str | None = TOKEN, **options: object) -> TestClient:
    server = WebServer(game, "127.0.0.1", 0, token, **options)  # type: ignore[arg-type]
    return TestClient(server.app, base_url=ORIGIN, raise_server_exceptions=False)


def bearer(token: str = TOKEN, **more: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", **more}


def flagged_game(mode: Mode) -> SimulatedGame:
    game = SimulatedGame(mode)
    game.start_clock()
    game.play("f5", forget=("e5",))
    return game


# ----------------------------------------------------------------------- pages
def test_web_player_page_is_self_contained() -> None:
    c = client(SimulatedGame())
    r = c.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    assert 'data-view="player"' in r.text
    assert 'href="/record.ggf?view=player"' in r.text
    assert not re.search(r"(src|href)=\"(https?:)?//", r.text)  # no CDN, nothing remote
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-frame-options"] == "DENY"
    for asset in ("/static/app.js", "/static/style.css"):
        r = c.get(asset)
        assert r.status_code == 200 and r.content
        assert b"http://" not in r.content and b"https://" not in r.content
    assert c.get("/static/server.py").status_code == 404
    r = c.get("/nope")
    assert r.status_code == 404 and r.json() == {"error": "no such page: /nope"}
    r = c.delete("/")
    assert r.status_code == 405 and "DELETE is not allowed on /" in r.json()["error"]


def test_web_bad_queries_get_clear_errors() -> None:
    c = client(SimulatedGame())
    r = c.get("/api/state?view=judge")
    assert r.status_code == 400 and "unknown view" in r.json()["error"]
    r = c.post("/api/arbiter/pause", headers=bearer(), content=b"x" * (10**5 + 1))
    assert r.status_code == 413 and "too large" in r.json()["error"]
    assert c.get("/api/state").status_code == 200  # still serving


# ------------------------------------------------------------ what each view shows
@pytest.mark.parametrize("mode", [Mode.TOURNAMENT, Mode.RECORD])
def test_web_player_view_carries_no_advice_outside_home(mode: Mode) -> None:
    game = flagged_game(mode)
    assert game.snapshot("player")["irregularities"]  # the facade would leak ...
    r = client(game).get("/api/state?view=player")
    assert r.status_code == 200
    snap = r.json()
    assert [m["square"] for m in snap["moves"]] == ["f5"]
    for word in ("forgotten", "irregularit", "e5", "flips", "legal", "position", "overlay"):
        assert word not in r.text, word  # ... the server does not
    assert snap["to_move"] == "white"  # from the clock, not the rules engine
    assert snap["counts"] == {"black": 3, "white": 2}  # as on the board, e5 unturned


def test_web_player_to_move_never_reveals_a_forced_pass() -> None:
    snap = {
        "mode": "tournament",
        "to_move": "black",  # white has no legal move: black moves again
        "clocks": {"running": "white", "black": 1.0, "white": 2.0},
        "moves": [],
        "events": [],
    }
    assert for_view(snap, "player")["to_move"] == "white"


def test_web_player_counts_are_what_stands_on_the_board() -> None:
    board = "-" * 27 + "Ox" + "-" * 6 + "XO?" + "-" * 26
    snap = {"mode": "tournament", "board": board, "counts": {"black": 4, "white": 1}}
    assert for_view(snap, "player")["counts"] == {"black": 2, "white": 2}
    assert for_view({**snap, "mode": "home"}, "player")["counts"] == {"black": 4, "white": 1}


def test_web_unknown_mode_shows_players_and_arbiter_as_little_as_a_tournament() -> None:
    snap = {"mode": "blitz", "state": "playing", "legal": ["c4"], "position": "-" * 64,
            "irregularities": [{"kind": "forgotten_flip"}], "overlay": {"e5": {}}}
    for view in ("player", "arbiter"):
        shown = for_view(snap, view)  # type: ignore[arg-type]
        assert not {"legal", "position", "irregularities", "overlay"} & set(shown), view


def test_web_home_player_sees_flags_and_arbiter_always_does() -> None:
    snap = client(flagged_game(Mode.HOME)).get("/api/state?view=player").json()
    assert snap["irregularities"][0]["kind"] == "forgotten_flip"
    assert snap["overlay"]["e5"]["pattern"] == "slow_blink"
    c = client(flagged_game(Mode.TOURNAMENT))
    assert c.get("/api/state?view=arbiter").status_code == 403
    snap = c.get("/api/state?view=arbiter", headers=bearer()).json()
    assert snap["irregularities"][0]["squares"] == ["e5"]
    assert snap["overlay"]["e5"]["pattern"] == "slow_blink"
    text = client(flagged_game(Mode.RECORD)).get("/api/state?view=arbiter", headers=bearer()).text
    assert "forgotten" not in text  # record mode: flags go to the record only


# ----------------------------------------------------------------------- records
def test_web_record_download_is_the_game_in_ggf() -> None:
    game = SimulatedGame(Mode.HOME)
    game.start_clock()
    game.play("f5")
    game.play("d6")
    r = client(game).get("/record.ggf")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == (
        'attachment; filename="Hasegawa-Tamaru-2026-11-28.ggf"; '
        "filename*=UTF-8''Hasegawa-Tamaru-2026-11-28.ggf")
    (record,) = read_ggf_text(r.text)
    assert [m.square for m in record.moves] == ["f5", "d6"]


def test_web_tournament_record_keeps_the_arbiters_notes_from_players() -> None:
    game = flagged_game(Mode.TOURNAMENT)
    assert "did not turn the disc on e5" in game.game_record().moves[0].comment  # a note
    c = client(game)
    player = c.get("/record.ggf").text
    assert "forgotten" not in player and "C[" not in player
    assert [m.square for m in read_ggf_text(player)[0].moves] == ["f5"]
    assert c.get("/record.ggf?view=player").text == player
    assert c.get("/record.ggf?view=arbiter").status_code == 403
    arbiter = c.get("/record.ggf?view=arbiter", headers=bearer()).text
    assert "C[Irregular move (rule 5): Black did not turn the disc on e5." in arbiter
    home = client(flagged_game(Mode.HOME)).get("/record.ggf").text
    assert "Black did not turn the disc on e5" in home  # at home the board teaches, the record too


@pytest.mark.parametrize("mode", [Mode.TOURNAMENT, Mode.RECORD])
def test_web_illegal_pass_never_shows_players_the_legal_moves(mode: Mode) -> None:
    game = SimulatedGame(mode)
    game.start_clock()
    game.press(Color.BLACK)  # black passes although d3, c4, f5 and e6 are legal
    assert "C[Irregular move (rule 5): Black passed with a legal move at d3, c4, f5 or e6." \
        in write_ggf(game.game_record())
    c = client(game)
    for path in ("/record.ggf", "/api/state", "/api/state?view=player"):
        text = c.get(path).text
        for word in ("illegal", "d3", "c4", "f5", "e6", "C["):
            assert word not in text, (path, word)
    arbiter = c.get("/record.ggf?view=arbiter", headers=bearer()).text
    # record mode: not even the arbiter sees it live
    assert ("Black passed with a legal move" in arbiter) == (mode is Mode.TOURNAMENT)


def test_web_record_mode_arbiter_and_everyone_get_the_notes_once_the_game_is_over() -> None:
    game = flagged_game(Mode.RECORD)
    c = client(game)
    assert "forgotten" not in c.get("/record.ggf?view=arbiter", headers=bearer()).text
    game.state = "game_over"  # the facade says so: flags can no longer advise anyone
    assert "C[Irregular move (rule 5): Black did not turn the disc on e5." in (
        c.get("/record.ggf").text)
    snap = c.get("/api/state").json()
    assert snap["moves"][0]["comment"] == "forgotten_flip e5"
    assert "legal" not in snap and "overlay" not in snap  # advice stays out


# ----------------------------------------------------------------------- arbiter
def test_web_arbiter_login_by_form_query_and_cookie() -> None:
    c = client(SimulatedGame())
    r = c.get("/arbiter")
    assert r.status_code == 200 and 'name="token"' in r.text and "data-view" not in r.text
    assert c.get("/arbiter?token=wrong").status_code == 403
    form = {"Content-Type": "application/x-www-form-urlencoded", "Origin": ORIGIN}
    r = c.post("/arbiter/login", headers=form, content=b"token=nope")
    assert r.status_code == 403 and "Wrong arbiter token" in r.text
    r = c.post("/arbiter/login", headers=form, content=f"token={TOKEN}".encode(),
               follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/arbiter"
    cookie = r.headers["set-cookie"].split(";")[0]
    assert cookie.startswith(COOKIE + "=") and TOKEN not in cookie
    assert "HttpOnly" in r.headers["set-cookie"] and "SameSite=Strict" in r.headers["set-cookie"]
    c.cookies.clear()
    r = c.get(f"/arbiter?token={TOKEN}", follow_redirects=False)
    second = r.headers["set-cookie"].split(";")[0]
    assert r.status_code == 303 and second.startswith(COOKIE + "=") and second != cookie
    c.cookies.clear()
    r = c.get("/arbiter", headers={"Cookie": cookie})
    assert r.status_code == 200 and 'data-view="arbiter"' in r.text
    assert 'href="/record.ggf?view=arbiter"' in r.text
    forged = {"Cookie": f"{COOKIE}={TOKEN}"}
    assert 'data-view="arbiter"' not in c.get("/arbiter", headers=forged).text
    r = c.post("/arbiter/logout", headers={"Origin": ORIGIN}, follow_redirects=False)
    assert r.status_code == 303 and "Max-Age=0" in r.headers["set-cookie"]


def test_web_arbiter_view_off_without_a_token() -> None:
    c = client(SimulatedGame(), token=None)
    r = c.get("/arbiter")
    assert r.status_code == 403 and "arbiter view is off" in r.text
    assert c.get("/arbiter?token=").status_code == 403
    assert c.post("/api/arbiter/pause", headers=bearer("")).status_code == 403


@pytest.mark.parametrize(
    ("token", "why"),
    [("x", "too short"), ("abcabcabcabcabc", "too few"), ("123456789012345", "too easy"),
     ("password1234", "too easy")],
)
def test_web_weak_arbiter_token_is_refused_at_start_up(token: str, why: str) -> None:
    with pytest.raises(WeakTokenError, match=why) as err:
        WebServer(SimulatedGame(), "127.0.0.1", 0, token)
    assert "web.token" in str(err.value) and token not in str(err.value)


def test_web_arbiter_actions_reach_the_clock() -> None:
    game = SimulatedGame(Mode.TOURNAMENT)
    game.start_clock()
    c = client(game)
    assert c.post("/api/arbiter/pause").status_code == 403
    assert c.post("/api/arbiter/pause", headers=bearer("x")).status_code == 403
    assert not game.clock.paused
    r = c.post("/api/arbiter/pause", headers=bearer())
    assert r.status_code == 200 and r.json()["ok"]
    assert game.clock.paused
    r = c.post("/api/arbiter/pause", headers=bearer())
    assert r.status_code == 400 and "already paused" in r.json()["error"]
    before = game.clock.remaining(Color.WHITE, 0)
    js = bearer(**{"Content-Type": "application/json"})
    r = c.post("/api/arbiter/adjust_time", headers=js, json={"color": "white", "seconds": -30})
    assert r.status_code == 200
    assert game.clock.remaining(Color.WHITE, 0) == pytest.approx(before - 30)
    for bad, why in [
        ({"color": "red", "seconds": 5}, "not a colour"),
        ({"color": "black", "seconds": "5"}, "must be a number"),
        ({"color": "black"}, "must be a number"),
        ({"color": "black", "seconds": 1e300}, "out of range"),
    ]:
        r = c.post("/api/arbiter/adjust_time", headers=js, content=json.dumps(bad).encode())
        assert r.status_code == 400 and why in r.json()["error"], r.text
    board = "-" * 27 + "OX" + "-" * 6 + "XZ" + "-" * 27
    r = c.post("/api/arbiter/correct_position", headers=js, json={"board": board})
    assert r.status_code == 400 and "'Z' at e5" in r.json()["error"]
    r = c.post("/api/arbiter/correct_position", headers=js, json={"board": "-" * 50})
    assert r.status_code == 400 and "50 squares fits no board" in r.json()["error"]
    r = c.post("/api/arbiter/accept_position", headers=bearer())
    assert r.status_code == 400 and "no flagged position" in r.json()["error"]
    assert c.post("/api/arbiter/resume", headers=bearer()).status_code == 200
    assert c.post("/api/arbiter/explode", headers=bearer()).status_code == 404
    assert [a for a, _ in game.actions] == ["pause", "adjust_time", "resume"]


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"{oops", "not JSON"),
        (b"[" * 20000 + b"]" * 20000, "nested too deeply"),
        (b'{"a":' * 40 + b"1" + b"}" * 40, "nested too deeply"),
        (b'{"color": "black", "seconds": NaN}', "NaN"),
        (b'{"color": "black", "seconds": ' + b"9" * 400 + b"}", "400 digits"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[1, 2]", "must be a JSON object"),
    ],
)
def test_web_bad_json_bodies_are_400_not_500(body: bytes, why: str) -> None:
    game = SimulatedGame(Mode.TOURNAMENT)
    js = bearer(**{"Content-Type": "application/json"})
    r = client(game).post("/api/arbiter/adjust_time", headers=js, content=body)
    assert r.status_code == 400 and why in r.json()["error"], r.text
    assert game.actions == []


def test_web_facade_failure_is_a_500_and_the_server_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    game = SimulatedGame()
    good = game.snapshot
    calls = []

    def flaky(view: str) -> dict:
        calls.append(view)
        if len(calls) == 1:
            raise RuntimeError("journal on fire")
        return good(view)  # type: ignore[arg-type]

    game.snapshot = flaky  # type: ignore[method-assign]
    c = client(game)
    r = c.get("/api/state")
    assert r.status_code == 500 and "see the service log" in r.text
    assert "journal on fire" not in r.text  # no internals to the browser
    assert c.get("/api/state").status_code == 200
    assert "journal on fire" in caplog.text


def test_web_url_of_a_wildcard_bind_is_browsable() -> None:
    server = WebServer(SimulatedGame(), "0.0.0.0", 8080, TOKEN)
    assert server.url.startswith("http://") and server.url.endswith(":8080")
    assert "0.0.0.0" not in server.url
    assert WebServer(SimulatedGame(), "127.0.0.1", 81).url == "http://127.0.0.1:81"


# ----------------------------------------------------------- hostile requests
def test_web_cross_origin_posts_to_arbiter_actions_are_refused() -> None:
    """A page elsewhere cannot make the arbiter's browser act, whatever it sends."""
    game = SimulatedGame(Mode.TOURNAMENT)
    game.start_clock()
    c = client(game)
    cookie = c.post("/arbiter/login", headers={"Origin": ORIGIN}, content=f"token={TOKEN}",
                    follow_redirects=False).headers["set-cookie"].split(";")[0]
    c.cookies.clear()
    as_arbiter = {"Cookie": cookie}
    # a form-less text/plain POST: no preflight, the cookie goes along (but SameSite)
    for headers in (
        {"Origin": "http://evil.example", "Content-Type": "text/plain"},
        {"Origin": "http://testserver.evil.example", "Content-Type": "text/plain"},
        {"Origin": "http://testserver:8080", "Content-Type": "text/plain"},
        {"Origin": "null", "Content-Type": "text/plain"},
        {"Sec-Fetch-Site": "cross-site", "Origin": ORIGIN},
        {"Content-Type": "text/plain"},  # a cookie but no Origin at all
    ):
        r = c.post("/api/arbiter/pause", headers={**as_arbiter, **headers}, content=b"{}")
        assert r.status_code == 403, headers
        assert "refused" in r.json()["error"]
    for path in ("/arbiter/login", "/arbiter/logout"):
        assert c.post(path, headers={"Origin": "http://evil.example"},
                      content=f"token={TOKEN}").status_code == 403
    assert not game.clock.paused and game.actions == []
    # the page itself, and a script that authenticates itself, still act
    r = c.post("/api/arbiter/pause", json={},
               headers={**as_arbiter, "Origin": ORIGIN, "Sec-Fetch-Site": "same-origin"})
    assert r.status_code == 200 and game.clock.paused
    assert c.post("/api/arbiter/resume", headers=bearer()).status_code == 200
    # a same-origin POST that is not JSON is refused too (no simple request gets in)
    r = c.post("/api/arbiter/pause", headers={**bearer(), "Content-Type": "text/plain"},
               content=b"{}")
    assert r.status_code == 415
    assert [a for a, _ in game.actions] == ["pause", "resume"]


def test_web_repeated_bad_tokens_are_slowed_down() -> None:
    now = [1000.0]
    limiter = FailureLimiter(free=3, base=2.0, cap=60.0, clock=lambda: now[0])
    game = SimulatedGame(Mode.TOURNAMENT)
    game.start_clock()
    c = client(game, limiter=limiter)
    for guess in ("a", "b", "c"):  # the first few cost nothing
        assert c.post("/api/arbiter/pause", headers=bearer(guess)).status_code == 403
    assert c.post("/api/arbiter/pause", headers=bearer("d")).status_code == 403
    # now locked out for 2 s: every way in answers 429, even with the right token
    r = c.post("/api/arbiter/pause", headers=bearer())
    assert r.status_code == 429 and r.headers["retry-after"] == "2"
    assert "too many wrong tokens" in r.json()["error"]
    assert c.get("/api/state?view=arbiter", headers=bearer()).status_code == 429
    assert c.get(f"/arbiter?token={TOKEN}").status_code == 429
    form = {"Origin": ORIGIN, "Content-Type": "application/x-www-form-urlencoded"}
    r = c.post("/arbiter/login", headers=form, content=f"token={TOKEN}")
    assert r.status_code == 429 and "Too many wrong tokens" in r.text
    assert not game.clock.paused
    # the lock doubles with each further failure ...
    now[0] += 2.0
    assert c.post("/api/arbiter/pause", headers=bearer("e")).status_code == 403
    assert c.post("/api/arbiter/pause", headers=bearer()).headers["retry-after"] == "4"
    # ... the player page is never slowed, and the right token works once the wait is over
    assert c.get("/api/state").status_code == 200
    now[0] += 4.0
    assert c.post("/api/arbiter/pause", headers=bearer()).status_code == 200
    assert c.post("/api/arbiter/resume", headers=bearer()).status_code == 200  # count cleared
