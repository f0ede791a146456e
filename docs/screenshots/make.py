"""Screenshots of the table's page and the hall's pages, for the documentation.

Plays a game through the real arbiter (the web tests' simulated table) and a small hall
(a private Mosquitto, the hub, MQTT tables), opens every page in headless Chromium at a
desktop and a phone size, and writes the PNGs beside this file, where docs/clock-leds-web.md,
docs/hub.md and docs/phone.md show them; and the tournament's sheets and the dashboard's
final ranking from a simulated hall day (docs/tournament.md). Run from the repository:

    .venv/bin/python docs/screenshots/make.py              # every page
    .venv/bin/python docs/screenshots/make.py tournament   # only the tournament's
    .venv/bin/python docs/screenshots/make.py home         # only the home game's

Needs chromium and mosquitto, as the browser tests do, and a Japanese font (Debian's
fonts-ipafont-gothic) for the pages' 伏せ石 and 引き分け勝ち.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "hub"),
                str(ROOT / "tests" / "web"), str(ROOT / "tests" / "phone"),
                str(ROOT / "tests" / "engine")]

from devtools import SCREENS, DevTools  # noqa: E402
from live_hub import LIVE as HUB_LIVE  # noqa: E402
from live_hub import LiveHub, Table, open_hall, state  # noqa: E402
from test_hub_pages import play_opening  # noqa: E402
from test_hub_results_toss import event  # noqa: E402
from test_hub_web_arbiter_routes_toss_browser import _state as paired_state  # noqa: E402
from test_web_server_browser import LIVE, LiveServer  # noqa: E402
from web_support import TOKEN, SimulatedGame  # noqa: E402

from controller.arbiter import Mode  # noqa: E402
from controller.squares import Color  # noqa: E402


def phone_pages() -> None:
    """The camera page (Chromium's fake camera playing a rendered board) and the clock
    page of a table whose board comes from a phone, and the page of their QR codes."""
    from phone_support import LiveTable, game_log, scene, setup_file
    from test_phone_routes_pages import write_y4m

    from controller.synth.gamevideo import GameVideo

    with tempfile.TemporaryDirectory(prefix="kaeshi-phone-") as tmp_name:
        tmp = Path(tmp_name)
        the_scene = scene()
        log = [o for o in game_log() if o.t < 2.0]  # the start position, still
        frames = [f.image for f in GameVideo(log, the_scene, 10, seed=7, tail=30.0).frames()]
        write_y4m(tmp / "board.y4m", frames, 10)
        table = LiveTable(tmp, 10, setup_file(tmp, the_scene))
        browser = DevTools(tmp / "profile", (
            "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
            f"--use-file-for-fake-video-capture={tmp / 'board.y4m'}"))
        try:
            browser.open("about:blank")
            key = f"?key={table.key}"
            shoot(browser, table.url + "/camera" + key, "document.getElementById('step')"
                  ".dataset.step === 'watching' || document.getElementById('step')"
                  ".dataset.step === 'fix_picture'", "phone-camera")
            shoot(browser, table.url + "/clock" + key,
                  "document.getElementById('sync').textContent.startsWith('sync ±')",
                  "phone-clock")
            shoot(browser, table.url + "/phone" + key,
                  "document.querySelectorAll('img').length === 2", "phone-codes")
        finally:
            browser.close()
            table.close()



def shoot(browser: DevTools, url: str, ready: str, name: str,
          before: Callable[[DevTools], None] | None = None) -> None:
    for size, (w, h) in SCREENS.items():
        browser.navigate("about:blank")
        browser.viewport(w, h)
        browser.navigate(url)
        browser.wait_for(ready, timeout=15)
        if before is not None:
            before(browser)
        time.sleep(0.4)  # let the last frame paint
        path = HERE / f"{name}-{size}.png"
        browser.screenshot(path, full_page=True)
        print(f"wrote {path.relative_to(ROOT)}")


def table_pages(browser: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.TOURNAMENT))
    game = live.game
    try:
        live.on_loop(game.start_clock)
        for square in ("f5", "d6", "c3", "d3", "c4", "f4", "f6", "f3", "e6", "e7"):
            live.on_loop(lambda sq=square: game.play(sq))
        arbiter = f"{live.server.url}/arbiter?token={TOKEN}"
        shoot(browser, live.server.url + "/", LIVE, "table-player")
        live.on_loop(lambda: game.play("d7", forget=("e6",)))  # black forgets e6
        shoot(browser, arbiter, LIVE + " && !document.getElementById('flags').hidden",
              "table-arbiter-flag")
        live.on_loop(lambda: game.press(Color.WHITE))  # white points it out
        shoot(browser, arbiter, LIVE + " && document.getElementById('flags').textContent"
              ".includes('Pointed out')", "table-arbiter-pointout")
        live.on_loop(game.put_right)
        live.on_loop(lambda: game.press(Color.BLACK))
        while not live.on_loop(lambda: game.arbiter.game_over):
            pos = live.on_loop(lambda: game.arbiter.position)
            if pos.legal_squares():
                live.on_loop(lambda p=pos: game.play(p.legal_squares()[0]))
            else:
                live.on_loop(game.pass_turn)
        shoot(browser, arbiter, LIVE + " && !document.getElementById('result').hidden",
              "table-game-over")
    finally:
        live.close()


def hall_pages(browser: DevTools) -> None:
    with tempfile.TemporaryDirectory(prefix="kaeshi-shots-") as tmp:
        with open_hall(Path(tmp), delay=0.0) as (live, tables):
            pos = play_opening(tables[3])  # and its state, as a table sends after each step
            tables[3].publish(replace(state(3), board=pos.board_string(),
                                      to_move=pos.to_move.value, moves=5, seq=6))
            # table 5: white's 4th move, d3, also turned e4, and its arbiter flags it
            official = play_opening(tables[5], ("f5", "d6", "c3", "d3")).board_string()
            seen = official[:28] + "O" + official[29:]  # e4 (index 28) shown white
            flag = {"kind": "over_flip", "player": "white", "squares": ["e4"], "n": 4,
                    "at": time.time() - 42}
            tables[5].publish(replace(state(5, [flag]), board=seen, to_move="black",
                                      moves=4, seq=5))
            shoot(browser, f"{live.url}/arbiter?token={TOKEN}",
                  HUB_LIVE + " && document.querySelector('#urgent .card') !== null",
                  "hub-dashboard")
            shoot(browser, f"{live.url}/arbiter/table/5",
                  HUB_LIVE + " && document.querySelector('.instruction') !== null",
                  "hub-table")
            shoot(browser, f"{live.url}/",
                  HUB_LIVE + " && document.querySelector('.card .cell.last') !== null",
                  "hub-multiboard")
            shoot(browser, f"{live.url}/board/3",
                  HUB_LIVE + " && document.querySelector('#board .cell.last') !== null",
                  "hub-board")


def toss_page(browser: DevTools) -> None:
    """A held 32–32 board on the dashboard, and its table's page with the 伏せ石 box."""
    with tempfile.TemporaryDirectory(prefix="kaeshi-shots-") as tmp:
        director = event(Path(tmp) / "event.sqlite")
        live = LiveHub(Path(tmp), director=director)
        tables: dict[int, Table] = {}
        try:
            for p in director.pairings(1):
                tables[p.table] = Table(live.broker, p.table)
                tables[p.table].ready.wait(10)
                tables[p.table].online()
                shown = paired_state(p, drawn=p.table == 1)
                if p.table == 1:  # its last board: 32 discs each
                    shown = replace(shown, board="XXXXXXXX" * 2 + "XXXXOOOO" * 4 + "OOOOOOOO" * 2)
                tables[p.table].publish(shown)
            shoot(browser, f"{live.url}/arbiter/table/1?token={TOKEN}",
                  HUB_LIVE + " && !document.getElementById('toss-box').hidden", "hub-toss")
        finally:
            for t in tables.values():
                t.close()
            live.close()


def shoot_sheet(browser: DevTools, path: Path, name: str) -> None:
    """A printed sheet as the organiser sees it before printing (A4-ish width)."""
    browser.navigate("about:blank")
    browser.viewport(900, 1200)
    browser.navigate(path.as_uri())
    browser.wait_for("document.readyState === 'complete'", timeout=15)
    time.sleep(0.3)
    out = HERE / f"{name}.png"
    browser.screenshot(out, full_page=True)
    print(f"wrote {out.relative_to(ROOT)}")


def tournament_pages(browser: DevTools) -> None:
    """A 40-player hall day (dispute, late arrivals, a forfeit) with one correction,
    its sheets as `kaeshi tournament export` writes them, and the dashboard's final
    ranking with the hub driving that event file."""
    from controller.hub.director import TournamentDirector
    from controller.tournament_store import store
    from controller.tournament_store.hallday import hall_day
    from controller.tournament_store.sheets import write_sheets

    with tempfile.TemporaryDirectory(prefix="kaeshi-shots-") as tmp:
        path = Path(tmp) / "event.sqlite"
        t, _ = hall_day(path, 40, 1)
        game = next(g for g in t.rounds[1].games if g.table == 3)
        b, w = game.discs or (40, 24)
        store.commit(path, t, "correct", {
            "what": "result", "round": 2, "table": 3,
            "outcome": "white" if game.outcome == "black" else "black", "discs": [w, b],
            "by": "Arbiter Sato", "why": "the score card was signed the wrong way round"})
        sheets = Path(tmp) / "sheets"
        write_sheets(sheets, t)
        for sheet, name in (("round-2.html", "tournament-round"),
                            ("cards-2.html", "tournament-cards"),
                            ("players-2.html", "tournament-players"),
                            ("crosstable.html", "tournament-crosstable"),
                            ("standings.html", "tournament-standings"),
                            ("prizes.html", "tournament-prizes")):
            shoot_sheet(browser, sheets / sheet, name)
        live = LiveHub(Path(tmp), delay=0.0,
                       director=TournamentDirector(store.load(path)[1], path))
        try:
            shoot(browser, f"{live.url}/arbiter?token={TOKEN}",
                  HUB_LIVE + " && !document.getElementById('standings-box').hidden",
                  "tournament-dashboard")
        finally:
            live.close()


def home_pages(browser: DevTools) -> None:
    """A home game against Kaeshi's own engine: its move shown beside the board, then
    carried out with a flip forgotten and pointed out (what to fix, not a second move);
    then a game in which a fault stood, at game over and in its review at that move."""
    import asyncio

    from hand_source import QueueSource
    from home_games import play_with_a_standing_fault
    from home_table import Player, home_config, until

    from controller.service.app import Service
    from controller.service.sources import Reading

    def engine(service: Service) -> dict:
        return service.facade.snapshot("player").get("engine") or {}

    async def engine_move(tmp: Path) -> None:
        source = QueueSource()
        service = Service(home_config(tmp, **{"web.enabled": True, "game.black": "Ann"}),
                          source=source)
        service.open()
        player = Player(service, source)
        task = asyncio.create_task(service.run())
        await until(lambda: bool(service.outputs.url))
        await player.start()
        await player.own_move()  # black
        await until(lambda: (engine(service).get("move") or {}).get("stage") == "put")
        say = "(document.getElementById('engine-say') || {}).textContent || ''"
        await asyncio.to_thread(shoot, browser, service.outputs.url + "/",
                                LIVE + f" && ({say}).startsWith('Engine (White): put')",
                                "home-engine-move")
        move = engine(service)["move"]
        await player.move(move["square"], move["flips"][1:], Color.WHITE)  # one forgotten
        source.queue.put_nowait(Reading(press=Color.BLACK))  # black points it out
        await until(lambda: service.table.core.arbiter.flow().stage == "pointed_out")
        await asyncio.to_thread(shoot, browser, service.outputs.url + "/",
                                LIVE + f" && ({say}).includes('not carried out')",
                                "home-engine-fix")
        service.stop()
        await task

    async def review(tmp: Path) -> None:
        source = QueueSource()
        service = Service(home_config(tmp, **{"web.enabled": True, "engine.plays": "none",
                                          "engine.time": 0.3, "game.black": "Ann",
                                          "game.white": "Bob"}), source=source)
        service.open()
        task = asyncio.create_task(service.run())
        await until(lambda: bool(service.outputs.url))
        faulty = await play_with_a_standing_fault(Player(service, source))
        await asyncio.to_thread(shoot, browser, service.outputs.url + "/",
                                LIVE + " && !document.getElementById('result').hidden",
                                "home-game-over")

        def at_fault(b: DevTools) -> None:
            step = f"document.querySelector('.score-graph rect.step[data-i=\"{faulty}\"]')"
            b.wait_for(f"{step} !== null", 30)
            b.js(f"{step}.dispatchEvent(new MouseEvent('click', {{bubbles: true}}))")
            b.wait_for(f"document.getElementById('review-step').dataset.i === '{faulty}'", 5)

        game = service.table.game
        assert game is not None
        await asyncio.to_thread(shoot, browser, f"{service.outputs.url}/review/{game.id}",
                                # the page's script has shown the last step: clicks land
                                "(document.getElementById('review-step') || {dataset: {}})"
                                ".dataset.i !== undefined",
                                "home-review",
                                at_fault)
        service.stop()
        await task

    with tempfile.TemporaryDirectory(prefix="kaeshi-shots-") as tmp:
        for name, scenario in (("engine", engine_move), ("review", review)):
            folder = Path(tmp) / name
            folder.mkdir()
            asyncio.run(scenario(folder))


def main(argv: list[str]) -> int:
    with tempfile.TemporaryDirectory(prefix="kaeshi-chromium-") as profile:
        browser = DevTools(Path(profile))
        try:
            browser.open("about:blank")
            if argv == ["home"]:
                home_pages(browser)
                return 0
            if argv != ["tournament"]:
                table_pages(browser)
                home_pages(browser)
                hall_pages(browser)
                toss_page(browser)
            tournament_pages(browser)
        finally:
            browser.close()
    phone_pages()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
