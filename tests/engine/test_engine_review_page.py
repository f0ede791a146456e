"""The review of a finished home game in which a fault stood, as a person reads it:
the game-over page links to it, a refused hint is a sentence, and the review's board
follows the game as it was played (the board that stood included) when the graph is
clicked or the arrow keys pressed; at desktop and phone sizes in headless Chromium.
``kaeshi games review`` reviews the same game."""

from __future__ import annotations

import asyncio
import re
import urllib.error
import urllib.request

from devtools import SCREENS, DevTools
from home_games import play_with_a_standing_fault
from home_table import until

from controller.cli import main as cli_main
from controller.engine.report import load_review, review_paths

#: A score a person would read as "minus nothing".
MINUS_ZERO = re.compile(r"(?<![\w.])-0(?![.\d])")
#: A mistake as the review lists it: the move, the discs lost, the engine's better move.
MISTAKE = re.compile(r"\d+\. (black|white) ([a-h][1-8]|pass) loses [\d.]+ discs?"
                     r"(; better: [a-h][1-8] \((0|[+-][\d.]+)\))?")
BOARD = ("[...document.querySelectorAll('#board .cell')].map(c => "
         "({black: 'X', white: 'O', empty: '-'})[c.dataset.disc]).join('')")


def _text(element: str) -> str:
    return f"((document.getElementById('{element}') || {{}}).textContent || '')"


#: Ann and Bob play each other by hand; the engine only reviews.
BY_HAND = {"engine.plays": "none", "engine.level": 1, "engine.time": 0.3,
           "game.black": "Ann", "game.white": "Bob"}


def _click(browser: DevTools, selector: str) -> None:
    """A real mouse click in the middle of the element ``selector`` names."""
    box = browser.js(f"(() => {{ const e = document.querySelector('{selector}'); "
                     "e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect(); "
                     "return [r.left + r.width / 2, r.top + r.height / 2]; })()")
    for kind in ("mousePressed", "mouseReleased"):
        browser.call("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                     button="left", clickCount=1)


def _key(browser: DevTools, key: str, code: int) -> None:
    for kind in ("keyDown", "keyUp"):
        browser.call("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                     windowsVirtualKeyCode=code)


def _read_review(browser: DevTools, url: str, game: str, faulty: int, stood: str,
                 moves: int) -> None:
    """Everything a person does on the pages after the game, at one screen size."""
    browser.navigate(url + "/")
    browser.wait_for("!document.getElementById('result').hidden", 15)
    text = browser.text()
    assert "Game over:" in text and "1 irregularity in this game" in text
    assert browser.js(_text("heading")) == "Home game"
    assert browser.js(_text("players-line")) == "Ann (black) vs Bob (white)"
    assert browser.js("document.title") == "Table: Ann vs Bob · Home game — Kaeshi"
    # a hint after the game is refused, in a sentence where the player looks
    _click(browser, "#hint-best")
    browser.wait_for(f"{_text('engine-error')} !== 'thinking…' && "
                     f"{_text('engine-error')} !== ''", 10)
    assert browser.js(_text("engine-error")) == "No hint: the game is over: review it instead."
    # game over links to the review
    assert browser.js("document.getElementById('review-link').getAttribute('href')") == (
        f"/review/{game}")
    _click(browser, "#review-link")
    browser.wait_for("!!document.getElementById('review-step')", 60)
    assert browser.js("document.title") == "Review · Ann vs Bob — Kaeshi"
    assert browser.js(_text("review-step")).startswith(f"Move {moves}: ")
    # the graph clicked at the faulty move: the board as it stood, said so in words
    # a click is a real mouse press at the element's place: on a starved machine the page
    # may still move under it (fonts, the graph drawn), so it is pressed again until taken
    shown = f"document.getElementById('review-step').dataset.i === '{faulty}'"
    for attempt in range(3):
        _click(browser, f".score-graph rect.step[data-i=\"{faulty}\"]")
        try:
            browser.wait_for(shown, 10)
            break
        except AssertionError:
            if attempt == 2:
                raise
    said = browser.js(_text("review-step"))
    assert re.fullmatch(rf"Move {faulty}: white played [a-h][1-8] irregularly; the board "
                        r"stood as it was\. Now (even|(black|white) ahead by [\d.]+)\. "
                        r"Irregular move \(rule 5\): White did not turn the disc on [a-h][1-8]\. "
                        r"It was not pointed out and stands\.( It lost [\d.]+ discs?; the "
                        r"engine's move was [a-h][1-8] \((0|[+-][\d.]+)\)\.)?", said), said
    assert browser.js(BOARD) == stood
    assert browser.js(f"document.querySelector('tr[data-i=\"{faulty}\"]')"
                      ".classList.contains('current')")
    # the keys step through the game
    _key(browser, "ArrowLeft", 37)
    assert browser.js(_text("review-step")).startswith(f"Move {faulty - 1}: ")
    _key(browser, "Home", 36)
    assert browser.js(_text("review-step")).startswith("Start of the game: ")
    assert browser.js("document.getElementById('step-prev').disabled") is True
    _key(browser, "End", 35)
    assert browser.js(_text("review-step")).startswith(f"Move {moves}: ")
    _click(browser, "#step-prev")
    assert browser.js(_text("review-step")).startswith(f"Move {moves - 1}: ")
    mistakes = browser.js("[...document.querySelectorAll('#mistakes li')].map(e => e.textContent)")
    assert mistakes and all(MISTAKE.fullmatch(m) for m in mistakes), mistakes
    page = browser.text()
    assert not MINUS_ZERO.search(page) and "{" not in page
    assert not browser.scrolls_sideways()
    # an address with no game behind it: a sentence on a page, not a JSON body
    browser.navigate(url + "/review/nosuchgame")
    browser.wait_for("!!document.getElementById('refusal')", 10)
    refusal = browser.js(_text("refusal"))
    assert refusal.startswith("No game 'nosuchgame' in ") and refusal.endswith(").")
    assert not browser.text().lstrip().startswith("{")


def test_a_home_game_in_which_a_fault_stood_is_reviewed_from_its_game_over_page(
        tmp_path, browser, seat):
    service, player = seat(**BY_HAND, **{"web.enabled": True})
    seen: dict = {}

    async def scenario():
        task = asyncio.create_task(service.run())
        await until(lambda: bool(service.outputs.url))
        seen["faulty"] = await play_with_a_standing_fault(player)
        record = service.table.core.record()
        stood = record.moves[seen["faulty"] - 1].stands
        assert stood is not None, "the forgotten flip stood"
        for size in SCREENS.values():
            await asyncio.to_thread(browser.navigate, "about:blank")
            await asyncio.to_thread(browser.viewport, *size)
            await asyncio.to_thread(_read_review, browser, service.outputs.url,
                                    service.table.game.id, seen["faulty"],
                                    stood.board_string(), len(record.moves))
        service.stop()
        await task

    asyncio.run(scenario())
    assert browser.errors == []
    saved = load_review(review_paths(tmp_path / "games", service.table.game.id)[1])
    assert [m.number for m in saved.moves if m.stood] == [seen["faulty"]]


def test_kaeshi_games_review_reviews_a_game_in_which_a_fault_stood(tmp_path, capsys, seat):
    service, player = seat(**BY_HAND, **{"web.enabled": False})

    async def scenario():
        task = asyncio.create_task(service.run())
        faulty = await play_with_a_standing_fault(player)
        service.stop()
        await task
        return faulty

    faulty = asyncio.run(scenario())
    game = service.table.game.id
    folder = tmp_path / "games"
    assert cli_main(["games", "review", game, "--folder", str(folder), "--level", "1"]) == 0
    out = capsys.readouterr().out
    assert f"reviewed from the board as it stood after move {faulty} " in out
    assert "discs lost: black" in out and not MINUS_ZERO.search(out)
    for line in out.splitlines():
        if line.startswith("  mistake: "):
            assert MISTAKE.fullmatch(line.removeprefix("  mistake: ")), line
    assert cli_main(["games", "list", "--folder", str(folder)]) == 0
    assert "60 moves  1 flagged" in capsys.readouterr().out  # as the page counts


def test_a_refused_review_is_a_sentence_on_a_page_for_a_browser(seat):
    """In a tournament the review is refused (rule 21): a browser's navigation gets the
    sentence on a page; a script asking the API gets it as JSON to word itself."""
    service, _ = seat(**{"web.enabled": True, "game.mode": "tournament"})

    def get(path: str, accept: str) -> tuple[int, str, str]:
        req = urllib.request.Request(service.outputs.url + path, headers={"Accept": accept})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, r.headers["Content-Type"], r.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.headers["Content-Type"], exc.read().decode()

    async def scenario():
        task = asyncio.create_task(service.run())
        await until(lambda: bool(service.outputs.url))
        out = [await asyncio.to_thread(get, "/review/20260101-120000", accept)
               for accept in ("text/html,application/xhtml+xml,*/*;q=0.8", "*/*")]
        out.append(await asyncio.to_thread(get, "/no/such/page", "text/html"))
        service.stop()
        await task
        return out

    page, api, missing = asyncio.run(scenario())
    assert page[0] == 400 and page[1].startswith("text/html")
    assert ('<p id="refusal" class="refusal-text">No reviews on a tournament table&#x27;s '
            "page: use `kaeshi games review` away from the games (rule 21).</p>") in page[2]
    assert api[0] == 400 and api[1].startswith("application/json") and "rule 21" in api[2]
    assert missing[0] == 404 and "No such page: /no/such/page." in missing[2]
