"""The page in a real headless browser (Debian's chromium) against a live server.

Chromium is driven over its DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ending in a NUL byte on file descriptors 3 and 4), so no browser driver
or websocket library is needed. The server runs on its own event loop in a thread,
backed by the real arbiter and clock; moves are made on the simulated board there.
"""

from __future__ import annotations

import asyncio
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from test_web_support import TOKEN, SimulatedGame

from controller.arbiter import Mode
from controller.web import WebServer

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
MOVE_DEADLINE = 1.0  # the page must show a move within a second of it being made


def chromium_path() -> str:
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    pytest.fail(
        "chromium not found: the browser test needs Debian's chromium "
        "(apt-get install chromium; .ci/run installs it)"
    )


def _high_fd(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
    os.close(fd)
    return high


class DevTools:
    """A minimal DevTools-protocol client over chromium's debugging pipe."""

    def __init__(self, profile: Path) -> None:
        to_chrome_r, self._to_chrome = os.pipe()
        self._from_chrome, from_chrome_w = os.pipe()
        # the child's ends move above 9 so bash's "3<&N 4>&M" cannot clobber them
        to_chrome_r, from_chrome_w = (_high_fd(to_chrome_r), _high_fd(from_chrome_w))
        flags = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
            f"--user-data-dir={profile}",
            "--window-size=1200,860",
            "--remote-debugging-pipe",
            "about:blank",
        ]
        r, w = to_chrome_r, from_chrome_w
        script = f'exec "$0" "$@" 3<&{r} 4>&{w} {r}<&- {w}>&-'
        self.proc = subprocess.Popen(
            ["/bin/bash", "-c", script, chromium_path(), *flags],
            pass_fds=(to_chrome_r, from_chrome_w),
            stdout=subprocess.DEVNULL,
            stderr=None if os.environ.get("KAESHI_CHROMIUM_LOG") else subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._next_id = 0
        self.session: str | None = None
        self.errors: list[str] = []  # uncaught exceptions in the page's scripts

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self._from_chrome], [], [], left)[0]:
                raise TimeoutError("chromium did not answer in time")
            chunk = os.read(self._from_chrome, 1 << 16)
            if not chunk:
                raise RuntimeError(f"chromium exited (code {self.proc.poll()})")
            self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method: str, timeout: float = 15.0, **params: Any) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self._to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("method") == "Runtime.exceptionThrown":
                details = reply["params"]["exceptionDetails"]
                self.errors.append(str(details.get("exception", {}).get("description", details)))
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def open(self, url: str) -> None:
        target = self.call("Target.createTarget", url=url)["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)[
            "sessionId"
        ]
        self.call("Runtime.enable")

    def navigate(self, url: str) -> None:
        if self.session is None:
            self.open(url)
        else:
            self.call("Page.navigate", url=url)

    def js(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float, poll: float = 0.02) -> float:
        """Seconds until ``expression`` is true in the page; fails after ``timeout``."""
        t0 = time.monotonic()
        while True:
            try:
                if self.js(expression):
                    return time.monotonic() - t0
            except RuntimeError:
                pass  # page still loading
            if time.monotonic() - t0 > timeout:
                raise AssertionError(f"page never showed: {expression}")
            time.sleep(poll)

    def screenshot(self, path: Path) -> None:
        import base64

        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot")["data"]))

    def close(self) -> None:
        try:
            self.call("Browser.close", timeout=5)
        except Exception:  # the browser may already be gone
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_chrome)
        os.close(self._from_chrome)


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


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevTools]:
    chrome = DevTools(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield chrome
    finally:
        chrome.close()


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
