"""The dashboard's and the broadcast's ranking in headless Chromium: the rules'
criteria under their own names while the event runs, the final ranking with 段級位
and 王座戦 once the final is played, at desktop and phone sizes."""

from __future__ import annotations

from pathlib import Path

from devtools import SCREENS
from hub_web_support import TOKEN
from live_hub import LIVE

from controller.hub.director import TournamentDirector
from controller.tournament import Player, Tournament
from controller.tournament_store.simulate import simulate

HEADERS = "[...document.querySelectorAll('#standings th')].map(e => e.textContent)"
CAPTION = "document.querySelector('#standings caption').textContent"
SHOWN = LIVE + " && !document.getElementById('standings-box').hidden"


def test_the_final_ranking_on_the_dashboard_and_the_broadcast(
        browser, tmp_path: Path, open_hall):
    t = simulate(40, "open", 1)
    director = TournamentDirector(t)
    with open_hall(tmp_path, delay=0.0, director=director, states={}) as (live, _):
        for width, height in SCREENS.values():
            for url in (f"{live.url}/arbiter?token={TOKEN}", f"{live.url}/"):
                browser.navigate("about:blank")
                browser.viewport(width, height)
                browser.navigate(url)
                browser.wait_for(SHOWN, timeout=15)
                assert browser.js(HEADERS) == ["Place", "Player", "勝数", "段級位", "王座戦"]
                assert browser.js(CAPTION) == "最終順位 (final ranking)"
                first = browser.js("document.querySelector('#standings tr.final')"
                                   ".textContent")
                assert first.startswith("1" + t.final_ranking()[0]) and "七段出場" in first
                assert not browser.scrolls_sideways()


def test_the_provisional_ranking_names_the_criteria_and_fits_a_phone(
        browser, tmp_path, open_hall):
    t = Tournament([Player(f"Player {k:02d}") for k in range(40)], "open", "Open")
    t.draw_lottery(["1", "2", "3"])
    for g in t.pair_next_round().games:
        if g.table is not None:
            t.record_result(g.table, "black", (40, 24))
    t.pair_next_round()
    director = TournamentDirector(t)
    with open_hall(tmp_path, delay=0.0, director=director, states={}) as (live, _):
        for width, height in SCREENS.values():
            browser.navigate("about:blank")
            browser.viewport(width, height)
            browser.navigate(f"{live.url}/arbiter?token={TOKEN}")
            browser.wait_for(SHOWN, timeout=15)
            headers = browser.js(HEADERS)
            assert headers[:4] == ["#", "Player", "勝数", "2. 上位1+下位1の勝数"]
            assert headers[-1] == "抽選番号" and len(headers) == 11
            assert browser.js(CAPTION) == "暫定順位 (provisional ranking)"
            assert not browser.scrolls_sideways()


def test_the_variant_the_event_runs_under_is_named_with_the_ranking(
        browser, tmp_path, open_hall):
    t = Tournament([Player(f"Player {k}") for k in range(8)], "open", "Open", extend=True)
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    director = TournamentDirector(t)
    with open_hall(tmp_path, delay=0.0, director=director, states={}) as (live, _):
        for url in (f"{live.url}/arbiter?token={TOKEN}", f"{live.url}/"):
            browser.navigate(url)
            browser.wait_for(SHOWN, timeout=15)
            note = browser.js("document.querySelector('#standings .standings-note')"
                              ".textContent")
            assert note == t.extension and note.startswith("small-field variant")
