"""The page in a real headless browser (Debian's chromium) against a live server.

Chromium is driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ending in a NUL byte on file descriptors 3 and 4), so no browser driver
or websocket library is needed. The server runs on its own event loop in a thread,
backed by the real arbiter and clock; moves are made on the simulated board there.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from devtools import DevTools
from web_support import TOKEN, SimulatedGame

from controller.arbiter import Mode
from controller.web import WebServer

MOVE_DEADLINE = 1.0  # the page must show a move within a second of it being made


class LiveServer:
    """The web server on its own event loop thread, as the service runs it."""

    def __init__(self, game: SimulatedGame, token: str | None = TOKEN) -> None:
        self.game = game
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.server = WebServer(game, "127.0.0.1", 0, token)
        self.submit(self.server.start)

    def submit(self, coro_fn: Callable[[], Any]) -> Any:
        return asyncio.run_coroutine_threadsafe(coro_fn(), self.loop).result(10)

    def on_loop(self, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` on the server's loop (where the service mutates its game)."""

        async def call() -> Any:
            return fn()

        return self.submit(call)

    def close(self) -> None:
        self.submit(self.server.stop)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


LIVE = "document.getElementById('conn').textContent === 'live'"
MOVES_SHOWN = "[...document.querySelectorAll('#moves td[data-square]')].map(e => e.dataset.square)"


def move_shown(square: str, color: str) -> str:
    return (
        f'!!document.querySelector(\'#moves [data-square="{square}"][data-player="{color}"]\')'
        f" && document.querySelector('[data-sq=\"{square}\"]').dataset.disc === '{color}'"
    )


def test_web_browser_shows_a_move_within_a_second(browser: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.HOME))
    try:
        browser.open(live.server.url + "/")
        browser.wait_for(LIVE, timeout=15)
        assert browser.js("document.querySelectorAll('#board .cell').length") == 64
        assert browser.js("document.querySelector('[data-sq=\"d4\"]').dataset.disc") == "white"
        assert browser.js("document.getElementById('time-black').textContent") == "20:00"

        live.on_loop(live.game.start_clock)
        made = time.monotonic()
        live.on_loop(lambda: live.game.play("f5"))
        browser.wait_for(move_shown("f5", "black"), timeout=5)
        assert time.monotonic() - made < MOVE_DEADLINE
        # the flipped disc and the counts follow
        assert browser.js("document.querySelector('[data-sq=\"e5\"]').dataset.disc") == "black"
        assert browser.js("document.getElementById('count-black').textContent") == "4"

        made = time.monotonic()
        live.on_loop(lambda: live.game.play("d6"))
        browser.wait_for(move_shown("d6", "white"), timeout=5)
        assert time.monotonic() - made < MOVE_DEADLINE

        # black's clock runs now and ticks in the page between server updates
        assert browser.js("document.getElementById('clock-black').classList.contains('running')")
        browser.wait_for("document.getElementById('time-black').textContent === '19:59'", 3)
        assert browser.errors == []
    finally:
        live.close()


def test_web_browser_tournament_player_and_arbiter_views(browser: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.TOURNAMENT))
    try:
        live.on_loop(live.game.start_clock)
        live.on_loop(lambda: live.game.play("f5", forget=("e5",)))
        browser.navigate(live.server.url + "/")
        browser.wait_for(LIVE + " && " + move_shown("f5", "black"), timeout=15)
        assert browser.js("document.getElementById('flags').hidden") is True
        page_text = browser.js("document.documentElement.outerHTML")
        assert "forgotten" not in page_text
        assert browser.js("document.querySelectorAll('#board .cell.lit').length") == 0

        browser.navigate(f"{live.server.url}/arbiter?token={TOKEN}")
        browser.wait_for("document.body.dataset.view === 'arbiter' && " + LIVE, timeout=15)
        browser.wait_for(
            "document.getElementById('irregularities').textContent.includes('forgotten flip — e5')",
            timeout=5,
        )
        assert browser.js("location.search") == ""  # the token left the address bar
        browser.js("document.querySelector('[data-action=\"pause\"]').click()")
        browser.wait_for(
            "document.getElementById('clock-state').textContent === 'Clock paused'", timeout=5
        )
        assert live.on_loop(lambda: live.game.clock.paused)
        assert browser.errors == []
    finally:
        live.close()


def test_web_browser_follows_the_running_service(browser: DevTools, tmp_path: Path) -> None:
    """``kaeshi run`` replaying a simulated board: each move shows up within a second.

    The replay clock starts after the service has announced its page, so a move made at
    log time T happens no earlier than (announcement + T); measuring from there can only
    overstate the page's delay.
    """
    from controller.observation import Observation
    from controller.position import Position
    from controller.squares import Color

    pos = Position.start()
    obs = [Observation(0.0, board=pos.board_string()), Observation(0.1, board=pos.board_string())]
    obs.append(Observation(0.5, press=Color.WHITE))
    made: dict[str, float] = {}
    t = 2.5  # time for the browser to open the page
    for square in ("f5", "d6", "c3"):
        mover = pos.to_move
        pos = pos.play(square)
        obs += [
            Observation(t, board=pos.board_string()),
            Observation(t + 0.1, board=pos.board_string()),
        ]
        obs.append(Observation(t + 0.3, press=mover))
        made[square] = t + 0.3
        t += 0.8
    log = tmp_path / "board.jsonl"
    log.write_text("".join(o.to_json() + "\n" for o in obs), encoding="utf-8")
    config = tmp_path / "kaeshi.toml"
    config.write_text(
        f'[game]\nmode = "tournament"\n'
        f'[source]\nkind = "sim"\nlog = {json.dumps(str(log))}\n'
        f"[journal]\npath = {json.dumps(str(tmp_path / 'journal.sqlite'))}\n"
        f"[games]\nfolder = {json.dumps(str(tmp_path / 'games'))}\n"
        f'[web]\nhost = "127.0.0.1"\nport = 0\ntoken = "{TOKEN}"\n',
        encoding="utf-8",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "run", "--config", str(config)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        url, announced = None, 0.0
        assert proc.stderr is not None
        watchdog = threading.Timer(60, proc.kill)  # a service that hangs must not hang the test
        watchdog.start()
        for line in proc.stderr:
            if "web page at " in line:
                url, announced = line.split("web page at ", 1)[1].strip(), time.monotonic()
                break
        watchdog.cancel()
        assert url, f"the service never announced its page (exit code {proc.poll()})"
        threading.Thread(target=proc.stderr.read, daemon=True).start()  # keep the pipe drained
        browser.navigate(url + "/")
        seen: dict[str, float] = {}
        deadline = announced + t + 5
        while len(seen) < len(made) and time.monotonic() < deadline:
            try:
                shown = browser.js(MOVES_SHOWN)
            except RuntimeError:  # the page is still loading
                shown = []
            for square in shown or []:
                seen.setdefault(square, time.monotonic())
            time.sleep(0.02)
        assert set(seen) == set(made), f"page showed {sorted(seen)}"
        for square, log_t in made.items():
            delay = seen[square] - (announced + log_t)
            print(f"{square}: shown at most {delay * 1000:.0f} ms after it was made")
            assert delay < MOVE_DEADLINE, f"{square} appeared {delay:.2f} s after it was made"
        # tournament mode, player view: nothing advisory reached the page
        assert browser.js("document.getElementById('flags').hidden") is True
        assert browser.errors == []
    finally:
        proc.terminate()
        proc.wait(10)


def test_web_browser_draws_a_six_by_six_game_with_its_coordinates(browser: DevTools) -> None:
    live = LiveServer(SimulatedGame(Mode.HOME, size=6))
    try:
        browser.open(live.server.url + "/")
        browser.wait_for(LIVE, timeout=15)
        assert browser.js("document.querySelectorAll('#board .cell').length") == 36
        assert browser.js("[...document.querySelectorAll('#board .coord')]"
                          ".map(c => c.textContent).join('')") == "abcdef123456"
        assert browser.js("document.querySelector('[data-sq=\"c3\"]').dataset.disc") == "white"
        live.on_loop(live.game.start_clock)
        live.on_loop(lambda: live.game.play("c2", forget=("c3",)))
        browser.wait_for(move_shown("c2", "black"), timeout=5)
        # the forgotten flip lights c3 on the 6x6 board
        browser.wait_for("document.querySelector('[data-sq=\"c3\"]').classList.contains('lit')",
                         timeout=5)
        assert browser.js("document.querySelector('[data-sq=\"c2\"]').classList"
                          ".contains('last')") is True
        assert not browser.scrolls_sideways()
        assert browser.errors == []
    finally:
        live.close()
