"""What a person reads on the table's page, at desktop and phone sizes, in Chromium.

Each test plays a real game through the arbiter (:class:`SimulatedGame`) and checks
the words an arbiter or player must see: what happens next after an irregularity,
the game's history of them, the result at the end, the markings explained, and that
nothing on a 390 px phone needs scrolling sideways.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from devtools import SCREENS, DevTools
from test_web_server_browser import LIVE, LiveServer
from web_support import TOKEN, SimulatedGame

from controller.arbiter import Mode
from controller.squares import Color

#: Squares marked as a legal move: a dot, or the green light the LEDs show.
LEGAL_MARKS = ("[...document.querySelectorAll('#board .cell')].filter(c => "
               "c.classList.contains('legal') || "
               "c.style.getPropertyValue('--lit') === 'rgb(0,255,60)').length")
#: A whole game in nine moves (black takes every disc): the page's game-over state.
SHORT_GAME = ("d3", "c3", "b3", "d2", "e1", "d6", "d7", "e3", "f4")


@pytest.fixture(params=sorted(SCREENS))
def screen(request: pytest.FixtureRequest, browser: DevTools) -> Iterator[DevTools]:
    browser.navigate("about:blank")
    browser.viewport(*SCREENS[request.param])
    yield browser


def open_page(browser: DevTools, live: LiveServer, view: str) -> None:
    url = live.server.url + ("/" if view == "player" else f"/arbiter?token={TOKEN}")
    browser.navigate(url)
    browser.wait_for(f"document.body.dataset.view === '{view}' && {LIVE}", timeout=15)


def test_arbiter_reads_what_happens_next_after_an_irregularity(screen: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.TOURNAMENT))
    try:
        live.on_loop(live.game.start_clock)
        live.on_loop(lambda: live.game.play("d3", forget=("d4",)))
        open_page(screen, live, "arbiter")
        screen.wait_for("document.querySelector('#irregularities .instruction') !== null", 5)
        text = screen.text()
        assert "Move 1 · Black · forgotten flip — d4" in text
        assert "Black did not turn the disc on d4." in text
        assert ("White may point out d4: press White's clock to hand the turn back; then "
                "Black must turn the disc on d4 to black, then press Black's clock.") in text
        assert "flagged" in text and "s ago" in text  # since when
        # the history keeps it, and the raw position string is gone from the page
        assert screen.js("document.querySelector('#history li').dataset.status") == "open"
        assert "----" not in text
        assert not screen.scrolls_sideways()

        # the opponent plays on: the flag leaves "what happens next", the history keeps it
        reply = live.on_loop(lambda: live.game.arbiter.position.legal_squares()[0])
        live.on_loop(lambda: live.game.play(reply))
        screen.wait_for("document.getElementById('flags').hidden", 5)
        screen.wait_for("document.querySelector('#history li').dataset.status === 'stood'", 5)
        assert "Move 1 Black did not turn the disc on d4. not pointed out: it stands" in (
            screen.text())

        # players see none of it while the game runs (rule 21)
        open_page(screen, live, "player")
        text = screen.text()
        assert "d4" not in text.split("Moves")[0] and "did not turn" not in text
        assert screen.js("document.getElementById('history-box').hidden") is True
        assert not screen.scrolls_sideways()
        assert screen.errors == []
    finally:
        live.close()


def test_game_over_shows_the_result_history_and_graph(screen: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.TOURNAMENT))
    try:
        game = live.game
        live.on_loop(game.start_clock)
        live.on_loop(lambda: game.play(SHORT_GAME[0], forget=("d4",)))
        live.on_loop(game.put_right)
        for square in SHORT_GAME[1:]:
            live.on_loop(lambda sq=square: game.play(sq))
        assert live.on_loop(lambda: game.arbiter.game_over)
        for view in ("arbiter", "player"):
            open_page(screen, live, view)
            screen.wait_for("!document.getElementById('result').hidden", 5)
            text = screen.text()
            assert "Game over: Hasegawa (black) wins 64–0" in text
            assert "Black 64, White 0." in text and "empty square" not in text  # a full board
            assert screen.js("document.title") == (
                f"{'Arbiter' if view == 'arbiter' else 'Table'}: Hasegawa vs Tamaru · "
                "Club night · Table 3 · Round 2 — Kaeshi")
            assert screen.js("getComputedStyle(document.querySelector('#result-title .score'))"
                             ".whiteSpace") == "nowrap"
            assert "1 irregularity in this game" in text
            assert "Move 1 Black did not turn the disc on d4. put right" in text
            assert "Game over: the clock has stopped" in text
            assert screen.js("document.querySelectorAll('#graph polyline').length") == 2
            assert screen.js("document.getElementById('graph-box').hidden") is False
            # moves numbered as on a kifu (passes counted), the last one marked on the board
            played = live.on_loop(lambda: len(live.game.arbiter.moves))
            assert screen.js("[...document.querySelectorAll('#moves [data-n]')].at(-1)"
                             ".querySelector('.n').textContent") == f"{played}."
            assert screen.js("document.querySelector('[data-sq=\"f4\"]')"
                             ".classList.contains('last')")
            assert not screen.scrolls_sideways()
        # the arbiter cannot pause or resume a finished game
        open_page(screen, live, "arbiter")
        screen.wait_for("!document.getElementById('result').hidden", 5)
        assert screen.js("document.querySelector('[data-action=\"pause\"]').disabled") is True
        assert screen.js("document.querySelector('[data-action=\"resume\"]').disabled") is True
        # nor mark a player late (rules 11-12 are for the start of a game)
        assert screen.js("[...document.querySelectorAll('[data-action^=\"late\"]')]"
                         ".every((b) => b.disabled)") is True
        assert screen.errors == []
    finally:
        live.close()


def test_a_32_32_board_names_the_holder_of_the_draw_win_right(screen: DevTools) -> None:
    """No draws in the event: the 伏せ石 gave white the right, so white wins 32–32."""
    from controller.records import load_games
    from controller.service.demo import find_data_dir
    from controller.squares import Color

    record = load_games(find_data_dir() / "games" / "wthor" / "WTH_2001.wtb")[48]
    assert record.result == (32, 32)
    live = LiveServer(SimulatedGame(Mode.TOURNAMENT, draw_win_right=Color.WHITE))
    try:
        game = live.game
        live.on_loop(game.start_clock)
        for move in record.moves:
            if live.on_loop(lambda: not game.arbiter.position.legal_moves()):
                live.on_loop(game.pass_turn)
            live.on_loop(lambda sq=move.square: game.play(sq))
        assert live.on_loop(lambda: game.arbiter.game_over)
        for view in ("arbiter", "player"):
            open_page(screen, live, view)
            screen.wait_for("!document.getElementById('result').hidden", 5)
            text = screen.text()
            assert "wins 32–32" in text and "(white) wins" in text
            assert "holds the draw-win right (引き分け勝ち)" in text
            assert not screen.scrolls_sideways()
        assert screen.errors == []
    finally:
        live.close()


def test_home_player_view_explains_its_markings(screen: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.HOME))
    try:
        game = live.game
        live.on_loop(game.start_clock)
        live.on_loop(lambda: game.play("f5"))
        live.on_loop(game.pass_turn)  # white has moves: an illegal pass
        open_page(screen, live, "player")
        screen.wait_for("document.querySelector('#moves [data-n=\"2\"]') !== null", 5)
        assert screen.js("document.querySelector('#moves [data-n=\"2\"]').textContent") == (
            "2. pass (illegal)")
        assert screen.js("document.getElementById('show-legal').checked") is True
        assert screen.js(LEGAL_MARKS) == 3  # ticked, and the legal moves are marked
        text = screen.text()
        assert "discs 4" in text.replace("\n", " ") and "discs 1" in text.replace("\n", " ")
        screen.js("document.getElementById('legend').open = true")
        legend = screen.js("document.getElementById('legend').innerText")
        for words in ("last move", "disc still to turn", "disc that is wrong", "legal move",
                      "not seen"):
            assert words in legend
        # unticking the box hides every legal-move mark
        screen.js("document.getElementById('show-legal').click()")
        assert screen.js(LEGAL_MARKS) == 0
        assert not screen.scrolls_sideways()
        assert screen.errors == []
    finally:
        live.close()


def test_the_arbiter_sets_up_a_position_by_clicking_squares(screen: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.TOURNAMENT))
    try:
        live.on_loop(live.game.start_clock)
        live.on_loop(lambda: live.game.play("f5", forget=("e5",)))
        open_page(screen, live, "arbiter")
        screen.js("document.getElementById('edit-start').click()")
        assert screen.js("document.getElementById('edit-box').hidden") is False
        # e5 (white, left unturned): a click empties it, the next one makes it black
        assert screen.js("document.querySelector('[data-sq=\"e5\"]').dataset.disc") == "white"
        screen.js("document.querySelector('[data-sq=\"e5\"]').click()")
        assert screen.js("document.querySelector('[data-sq=\"e5\"]').dataset.disc") == "empty"
        screen.js("document.querySelector('[data-sq=\"e5\"]').click()")
        assert screen.js("document.querySelector('[data-sq=\"e5\"]').dataset.disc") == "black"
        screen.js("document.getElementById('edit-apply').click()")
        screen.wait_for("document.getElementById('action-result').textContent === "
                        "'Position set.'", timeout=5)
        action, board = live.on_loop(lambda: live.game.actions[-1])
        assert action == "correct_position"
        assert board == live.on_loop(lambda: live.game.arbiter.position.board_string())
        assert board[36] == "X"  # e5: black, as the arbiter set it
        screen.wait_for("document.getElementById('history').textContent"
                        ".includes('position set by the arbiter')", timeout=5)
        assert screen.errors == []
    finally:
        live.close()


FLOW_TEXT = "document.querySelector('#irregularities .instruction')?.textContent || ''"


def test_the_point_out_flow_step_by_step_and_a_two_fault_move(screen: DevTools) -> None:
    """The arbiter's panel at each step of rule 5①: flagged, pointed out, put right,
    the offender's press; then a move with two faults gives one instruction."""
    live = LiveServer(SimulatedGame(Mode.TOURNAMENT))
    try:
        game = live.game
        live.on_loop(game.start_clock)
        live.on_loop(lambda: game.play("d3", forget=("d4",)))
        open_page(screen, live, "arbiter")
        screen.wait_for(f"({FLOW_TEXT}).startsWith('White may point out d4')", 5)
        assert screen.js(FLOW_TEXT) == (
            "White may point out d4: press White's clock to hand the turn back; then Black "
            "must turn the disc on d4 to black, then press Black's clock. If White plays on "
            "instead, the board stands as it is.")
        # the flagged disc is outlined whether or not its light is on
        assert screen.js("[...document.querySelectorAll('#board .cell.flag')]"
                         ".map(c => c.dataset.sq)") == ["d4"]
        assert screen.js("getComputedStyle(document.querySelector('[data-sq=\"d4\"]'))"
                         ".outlineStyle") == "solid"

        live.on_loop(lambda: game.press(Color.WHITE))  # White points it out
        screen.wait_for(f"({FLOW_TEXT}).startsWith('Pointed out')", 5)
        assert screen.js(FLOW_TEXT) == ("Pointed out: Black must turn the disc on d4 to black, "
                                        "then press Black's clock.")
        assert "pointed out: black must put d4 right" in screen.text()  # its event

        live.on_loop(game.put_right)
        screen.wait_for(f"({FLOW_TEXT}).startsWith('Put right')", 5)
        assert screen.js(FLOW_TEXT) == ("Put right: Black must now press Black's clock; then "
                                        "White is to move.")

        live.on_loop(lambda: game.press(Color.BLACK))
        screen.wait_for("document.getElementById('flags').hidden", 5)
        assert "Move 1 Black did not turn the disc on d4. put right" in screen.text()
        # one numbering: the flag's move 1 is the move table's "1."
        assert screen.js("document.querySelector('#moves [data-n=\"1\"]').textContent") == (
            "1. d3")

        # white's reply, then black's move 3 with two faults: one combined instruction
        live.on_loop(lambda: game.play(game.arbiter.position.legal_squares()[0]))

        def two_faults() -> None:
            pos = game.arbiter.position
            square = pos.legal_squares()[0]
            after = list(pos.play(square).board_string())
            flips = [i for i, (a, b) in enumerate(zip(pos.board_string(), after, strict=True))
                     if a != b and a != "-"]
            after[flips[0]] = "O"  # a flip forgotten
            after[0] = "X"  # and a second new disc, on a1
            game.sense("".join(after))
            game.press(Color.BLACK)

        live.on_loop(two_faults)
        screen.wait_for(f"({FLOW_TEXT}).startsWith('White may point out')", 5)
        assert screen.js("document.querySelectorAll('#irregularities .instruction').length") == 1
        said = screen.js(FLOW_TEXT)
        assert "take back the disc on a1" in said and "Black must turn the disc on" in said
        assert said.count("press Black's clock") == 1
        heads = screen.js("[...document.querySelectorAll('#irregularities .flag-head b')]"
                          ".map(b => b.textContent)")
        assert len(heads) == 2 and all(h.startswith("Move 3 · Black") for h in heads)
        assert screen.js("document.querySelector('#moves [data-n=\"3\"]')"
                         ".textContent").startswith("3. ")
        assert not screen.scrolls_sideways()
        assert screen.errors == []
    finally:
        live.close()


def test_the_header_names_the_event_and_the_count_is_the_games_list_count(
        screen: DevTools, tmp_path) -> None:
    """The header says the event, table, round and players; at game over the page
    counts the irregularities as ``kaeshi games list`` does: an illegal pass taken back
    and played again is listed, but is not counted."""
    from controller.service.games import list_games, write_game_files

    live = LiveServer(SimulatedGame(Mode.TOURNAMENT))
    try:
        game = live.game
        live.on_loop(game.start_clock)
        live.on_loop(game.pass_turn)  # black passes with a move: an illegal pass
        live.on_loop(lambda: game.press(Color.WHITE))  # white points it out
        live.on_loop(lambda: game.play("d3"))  # black moves instead: the pass taken back
        live.on_loop(lambda: game.play("c3", forget=("d4",)))  # stands: not pointed out

        def to_the_end() -> None:
            while not game.arbiter.game_over:
                pos = game.arbiter.position
                if pos.legal_moves():
                    game.play(pos.legal_squares()[0])
                else:
                    game.pass_turn()

        live.on_loop(to_the_end)
        for view in ("arbiter", "player"):
            open_page(screen, live, view)
            screen.wait_for("!document.getElementById('result').hidden", 5)
            assert screen.js("document.getElementById('heading').textContent") == (
                "Club night · Table 3 · Round 2")
            assert screen.js("document.getElementById('players-line').textContent") == (
                "Hasegawa (black) vs Tamaru (white)")
            text = screen.text()
            assert ("1 irregularity in this game (and 1 move taken back and played again), "
                    "listed below.") in text
            assert screen.js("document.querySelectorAll('#history li').length") == 2
            assert not screen.scrolls_sideways()
        write_game_files(live.on_loop(game.game_record), "20261128-101500", tmp_path)
        (entry,) = list_games(tmp_path)
        assert entry.flagged == 1
        assert screen.errors == []
    finally:
        live.close()
