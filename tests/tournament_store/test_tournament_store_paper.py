"""The hall's paper: 対戦カード for signatures, the players' A–Z list, the crosstable;
the cards print on A4, eight to a page, in headless Chromium."""

from __future__ import annotations

import base64
import csv
import io
import re

from controller.tournament.event import Tournament
from controller.tournament.model import Player
from controller.tournament_store import paper
from controller.tournament_store.simulate import simulate


def round_one(n: int) -> Tournament:
    t = Tournament([Player(f"{chr(90 - k % 26)}{k:02d}") for k in range(n)], "open", "Open")
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    return t


def test_the_players_list_is_alphabetical_with_table_and_colour():
    t = round_one(32)
    rows = list(csv.DictReader(io.StringIO(paper.player_list(t, t.current, "csv"))))
    names = [r["name"] for r in rows]
    assert names == sorted(names) and len(names) == 32
    g = t.current.table(3)
    mine = next(r for r in rows if r["name"] == g.black)
    assert (mine["table"], mine["colour"], mine["opponent"]) == ("3", "black", g.white)


def test_full_width_and_case_do_not_move_a_name_in_the_players_list():
    names = ["ｂｅｎ", "Ann", "ＡＢＥ", "abe", "Carl", "bea", *(f"Zed {k}" for k in range(10))]
    t = Tournament([Player(n) for n in names], "open", "Open")
    t.draw_lottery(["1", "2", "3"])
    t.pair_next_round()
    rows = list(csv.DictReader(io.StringIO(paper.player_list(t, t.current, "csv"))))
    listed = [r["name"] for r in rows if r["name"]]
    assert [paper.player_list_order(n) for n in listed] == sorted(
        paper.player_list_order(n) for n in names)
    assert paper.player_list_order("ＡＢＥ") == paper.player_list_order("abe")
    assert listed.index("bea") < listed.index("ｂｅｎ") < listed.index("Carl")


def test_the_crosstable_shows_every_round_of_every_player():
    t = simulate(40, "open", 1)
    rows = list(csv.reader(io.StringIO(paper.crosstable(t, "csv"))))
    assert rows[0][:3] == ["place", "number", "name"] and rows[0][-1] == "勝数"
    assert len(rows) == 41 and rows[1][2] == t.final_ranking()[0]
    first = t.rounds[0].games[0]
    line = next(r for r in rows if r[2] == first.black)
    assert re.fullmatch(rf"●#{t.numbers[first.white]} [+−]", line[3])


def test_score_cards_print_eight_to_an_a4_page(browser, tmp_path):
    t = round_one(32)  # 16 tables
    page = tmp_path / "cards.html"
    page.write_text(paper.score_cards(t, t.current), encoding="utf-8")
    text = page.read_text()
    assert text.count("class=card>") == 16 and "署名 signature" in text
    assert t.current.table(1).black in text
    browser.navigate(page.as_uri())
    browser.wait_for("document.readyState === 'complete' && "
                     "document.querySelectorAll('.card').length === 16", 10)
    pdf = base64.b64decode(browser.call("Page.printToPDF", preferCSSPageSize=True)["data"])
    assert len(re.findall(rb"/Type\s*/Page[^s]", pdf)) == 2
