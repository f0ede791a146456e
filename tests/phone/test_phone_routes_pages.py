"""The camera and clock pages in headless Chromium, its fake camera playing a rendered game.

The synthetic renderer films a game log into a Y4M file; Chromium's fake camera plays
it to the camera page, which streams it to the table. The clock page, in its own
window, is tapped at the log's press times. Each page's clock runs seconds away from
the service's (a script shifts ``performance.now``), and everything between the
browser and the table passes a relay that delays it by 50-300 ms. The arbiter's events
must be those of the log judged directly.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pytest
from devtools import DevTools
from jitter_proxy import JitterProxy
from phone_support import LiveTable, content, game_log, scene, setup_file, truth

from controller.browser.flow import TEXT, CameraStep
from controller.clockhw.display import TENTHS_BELOW
from controller.synth.gamevideo import GameVideo
from controller.vision.cv import cv2

TAIL = 6.0  # seconds of the final board after the game: the fake camera loops the file


def write_y4m(path: Path, frames: list[np.ndarray], fps: int) -> None:
    h, w = frames[0].shape[:2]
    with path.open("wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for image in frames:
            f.write(b"FRAME\n")
            f.write(cv2.cvtColor(image, cv2.COLOR_BGR2YUV_I420).tobytes())


def shifted_clock(offset_ms: float) -> str:
    return ("(() => { const real = performance.now.bind(performance); "
            f"performance.now = () => real() + {offset_ms}; }})();")


def open_page(chrome: DevTools, url: str, offset_ms: float) -> str:
    target = chrome.call("Target.createTarget", url="about:blank", newWindow=True)["targetId"]
    chrome.session = chrome.call("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]
    chrome.call("Runtime.enable")
    chrome.call("Page.enable")
    chrome.call("Page.addScriptToEvaluateOnNewDocument", source=shifted_clock(offset_ms))
    chrome.call("Page.navigate", url=url)
    return chrome.session


@pytest.mark.parametrize("fps", [10, 15])
def test_the_pages_stream_a_game_judged_as_its_log(tmp_path, fps):
    log = game_log()
    the_scene = scene()
    frames = list(GameVideo(log, the_scene, fps, seed=7, tail=TAIL, moving_hands=True).frames())
    video = tmp_path / "game.y4m"
    write_y4m(video, [f.image for f in frames], fps)
    table = LiveTable(tmp_path, fps, setup_file(tmp_path, the_scene))
    proxy = JitterProxy(table.service.outputs.web.port, (0.05, 0.3), seed=fps)
    chrome = DevTools(tmp_path / "profile", (
        "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
        f"--use-file-for-fake-video-capture={video}", "--autoplay-policy=no-user-gesture-required",
    ))
    try:
        base = f"http://127.0.0.1:{proxy.port}"
        # the arbiter's view, before a phone: the camera page's address as a QR code
        table_page = open_page(chrome, f"{base}/arbiter?token={table.service.token}", 0.0)
        chrome.wait_for("!document.getElementById('phone-qr').hidden && "
                        "document.querySelector('#phone-qr img').complete && "
                        "document.querySelector('#phone-qr img').naturalWidth > 100", 15)
        qr = chrome.js("document.querySelector('#phone-qr img').getAttribute('src')")
        camera = open_page(chrome, f"{base}/camera?key={table.key}", 6500.0)
        clock = open_page(chrome, f"{base}/clock?key={table.key}", -4200.0)
        t0 = time.monotonic()
        while table.on_loop(lambda: table.source.first_frame_at) is None:
            assert time.monotonic() - t0 < 30, "the camera page never streamed"
            time.sleep(0.02)
        start = table.on_loop(lambda: table.source.first_frame_at)
        first = frames[0].t
        chrome.session = clock
        chrome.wait_for("document.getElementById('sync').textContent.startsWith('sync ±')", 15)
        for p in (o for o in log if o.press is not None):
            time.sleep(max(0.0, start + (p.t - first) - time.monotonic()))
            chrome.js(f"document.getElementById('half-{p.press.value}')"
                      ".dispatchEvent(new PointerEvent('pointerdown'))")
        time.sleep(2.0)  # the last press waits for its frames and the network
        got = content(table.events())
        chrome.session = camera
        shown = chrome.text()
        chrome.session = clock  # the tablet at a phone's size: large halves, no sideways scroll
        chrome.viewport(390, 844)
        halves = chrome.js("document.getElementById('half-black').getBoundingClientRect().height")
        sideways = chrome.scrolls_sideways()
        times = chrome.js("document.getElementById('time-black').textContent")
        chrome.session = table_page
        qr_left = chrome.js("document.getElementById('phone-qr').hidden")
        chrome.wait_for("document.getElementById('devices').textContent.includes('camera: sync ±')",
                        10)
        faces = []  # the clock page and the table page draw times with one clock face
        for page in (clock, table_page):
            chrome.session = page
            faces.append(chrome.js("[fmtClock(19.84), fmtClock(20.0), fmtClock(65.2), "
                                   "TENTHS_BELOW]"))
        errors = list(chrome.errors)
    finally:
        chrome.close()
        proxy.close()
        table.close()
    assert got == truth(log)
    assert "board found" in shown and "sync ±" in shown
    assert TEXT[CameraStep.WATCHING] in shown or TEXT[CameraStep.FIX_PICTURE] in shown, shown
    assert halves > 300 and not sideways
    assert qr_left  # the phone connected: the table page no longer asks for it
    assert qr == f"/phone/qr/camera.svg?key={table.key}"
    assert times.startswith("19:") or times.startswith("20:")  # a 20-minute clock, ticking
    # tenths under 20 s, as the GPIO clock's displays show them
    assert faces == [["19.9", "0:20", "1:06", TENTHS_BELOW]] * 2
    assert errors == []
