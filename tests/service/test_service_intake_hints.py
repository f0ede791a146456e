"""First-run hardware errors say what to check, once, not every two seconds."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from controller.hall.port import SerialTransport, open_error
from controller.service import intake
from controller.service.app import Service
from controller.service.config import defaults
from controller.service.states import State


def test_a_missing_port_names_the_cable_and_the_udev_rule(tmp_path: Path) -> None:
    missing = str(tmp_path / "ttyKAESHI")
    with pytest.raises(Exception) as info:
        SerialTransport(missing)
    text = str(info.value)
    assert text.startswith(f"no sensor board at {missing}: that port does not exist")
    assert "USB cable" in text and "99-kaeshi-board.rules" in text
    assert "Errno" not in text


def test_an_unknown_failure_keeps_its_reason_once(tmp_path: Path) -> None:
    port = tmp_path / "tty"
    port.write_text("")
    exc = OSError(5, "Input/output error")
    assert open_error(str(port), exc) == (
        f"cannot open the sensor board port {port}: Input/output error")


def test_an_unplugged_board_logs_a_retry_once_a_minute(
        tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(intake, "RETRY_SECONDS", 0.002)
    config = defaults().replace(**{
        "source.kind": "hall", "source.device": str(tmp_path / "ttyNONE"),
        "journal.path": str(tmp_path / "j.sqlite"), "games.folder": str(tmp_path / "g"),
        "web.enabled": False, "display.terminal": False,
    })
    service = Service(config)
    service.open()

    def tries() -> list[logging.LogRecord]:
        return [r for r in caplog.records if "retrying the hall source" in r.getMessage()]

    async def run_until_retried(times: int, limit: float) -> None:
        task = asyncio.create_task(service.run())
        loop = asyncio.get_running_loop()
        end = loop.time() + limit
        while len(tries()) < times and loop.time() < end:  # a busy machine is slower
            await asyncio.sleep(0.05)
        service.stop()
        await task

    with caplog.at_level(logging.DEBUG, logger="kaeshi.service"):
        asyncio.run(run_until_retried(61, 30.0))
    tried = tries()
    shown = [r for r in tried if r.levelno >= logging.INFO]
    assert len(tried) >= 61  # it kept trying ...
    assert len(shown) <= len(tried) // intake.RETRIES_PER_LOG + 1  # ... and said so rarely
    lost = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(lost) == 1 and "that port does not exist" in lost[0].getMessage()
    assert service.table.states.state is State.SENSOR_LOST
    assert "USB cable" in service.table.message


def test_games_list_without_a_folder_says_how_to_name_one(tmp_path: Path) -> None:
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-m", "controller.cli", "games", "list",
                          "--folder", str(tmp_path / "none")], capture_output=True, text=True)
    assert run.returncode != 0
    assert "no games folder there" in run.stderr
    assert "--folder DIR" in run.stderr and "--config FILE" in run.stderr


def test_a_camera_that_opens_but_gives_no_frame_is_not_announced_as_up() -> None:
    """Otherwise an unplugged camera flips lost -> up -> lost every retry, each flip
    logged and journaled."""
    from controller.service.sources import CameraSource, LinkChange

    class NoFrames:
        live = True

        def close(self) -> None:
            pass

    def frames():  # noqa: ANN202
        raise OSError("camera 0 is not available (not connected, or in use by another "
                      "program)")
        yield

    source = CameraSource("0", 5)
    source._open = lambda: (NoFrames(), frames())  # type: ignore[method-assign]

    async def first_items() -> list[object]:
        got: list[object] = []
        with pytest.raises(OSError, match="not available"):
            async for item in source.items():
                got.append(item)
        return got

    items = asyncio.run(first_items())
    assert not [i for i in items if isinstance(i, LinkChange) and i.up]
