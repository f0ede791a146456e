"""Headless Chromium driven over its DevTools pipe, for the web page and hub tests."""

from __future__ import annotations

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")


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


#: The two screens a person reads the pages on: a desk or laptop, and a phone held upright.
SCREENS: dict[str, tuple[int, int]] = {"desktop": (1280, 900), "phone": (390, 844)}


class DevTools:
    """A minimal DevTools-protocol client over chromium's debugging pipe."""

    def __init__(self, profile: Path, extra_flags: tuple[str, ...] = ()) -> None:
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
            *extra_flags,
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

    def viewport(self, width: int, height: int) -> None:
        """Lay pages out as a ``width`` x ``height`` screen (a phone below 600 px)."""
        self.call("Emulation.setDeviceMetricsOverride", width=width, height=height,
                  deviceScaleFactor=1, mobile=width < 600)
        self.width = width

    def scrolls_sideways(self) -> bool:
        """Whether the page is wider than the screen (a phone user would scroll sideways).

        Compared with the screen's width, not the window's: a phone widens its layout
        to fit a page that is too wide, and would then compare the page with itself.
        """
        width = getattr(self, "width", None) or self.js("window.innerWidth")
        return bool(self.js(f"document.documentElement.scrollWidth > {int(width)} + 1"))

    def text(self, selector: str = "body") -> str:
        """What a person reads on the page, or in the first element ``selector`` finds."""
        return str(self.js(f"document.querySelector({selector!r}).innerText"))

    def screenshot(self, path: Path, full_page: bool = False) -> None:
        import base64

        params: dict[str, Any] = {"captureBeyondViewport": full_page}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"],
                              "height": size["height"], "scale": 1}
        shot = self.call("Page.captureScreenshot", **params)
        path.write_bytes(base64.b64decode(shot["data"]))

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
