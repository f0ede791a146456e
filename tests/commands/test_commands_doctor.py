"""`kaeshi doctor` on injected machines: a Pi 5 without lgpio, a venv blind to picamera2,
a user outside dialout, a state folder nobody made."""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from controller.clockhw.pinlib import LibraryStatus
from controller.commands import doctor
from controller.commands.doctor import Check, Doctor, System
from controller.service.config import defaults

PI5 = "Raspberry Pi 5 Model B Rev 1.0"
NO_LGPIO = [LibraryStatus("lgpio", False, "not installed (No module named 'lgpio')"),
            LibraryStatus("rpigpio", False, "Cannot determine SOC peripheral base address "
                          "(RPi.GPIO does not drive a Pi 5)"),
            LibraryStatus("pigpio", False, "not installed (No module named 'pigpio')")]


def _system(*, model: str | None = PI5, pins=(None, NO_LGPIO), modules=("cv2",),
            paths: dict[str, bool] | None = None, groups=("kaeshi",),
            system_site: Path = Path("/usr/lib/python3/dist-packages"),
            cwd: str = "/var/lib/kaeshi") -> System:
    """A machine: ``paths`` maps each existing path to whether the user may write it."""
    paths = {"/var/lib/kaeshi": True, "/var/lib": False, "/dev/kaeshi-board": True,
             **(paths or {})}

    def import_module(name: str) -> tuple[bool, str]:
        if name in modules:
            return True, "4.10.0" if name == "cv2" else "0.3.19"
        return False, f"ModuleNotFoundError: No module named '{name}'"

    return System(
        model=lambda: model, pins=lambda: pins, import_module=import_module,
        exists=lambda p: p in paths, access=lambda p, mode: paths.get(p, False),
        user=lambda: "kaeshi", groups=lambda: set(groups), prefix="/opt/kaeshi/.venv",
        system_site=system_site, cwd=lambda: cwd,
    )


def _checks(system: System, **config) -> dict[str, Check]:
    return {c.subject: c for c in Doctor(defaults().replace(**config), system).checks()}


def test_a_pi5_without_lgpio_fails_the_clock_with_the_pip_command() -> None:
    checks = _checks(_system(), **{"clock.buttons": True})
    assert checks["Pi model"] == Check("ok", "Pi model", PI5)
    assert checks["pin library rpigpio"].text.endswith("(RPi.GPIO does not drive a Pi 5)")
    clock = checks["GPIO clock"]
    assert clock.status == "FAIL" and "clock.buttons = true needs one" in clock.text
    assert "install 'lgpio>=0.2.2'" in clock.fix


def test_the_clock_off_makes_a_missing_pin_library_a_warning() -> None:
    assert _checks(_system())["GPIO clock"].status == "warn"


def test_the_pin_library_in_use_is_named() -> None:
    pins = (object(), [LibraryStatus("lgpio", True)])
    checks = _checks(_system(pins=pins), **{"clock.buttons": True})
    assert checks["GPIO clock"] == Check("ok", "GPIO clock", "would use lgpio")
    assert checks["pin library lgpio"].status == "ok"


def test_a_venv_blind_to_the_system_picamera2_says_so(tmp_path: Path) -> None:
    site = tmp_path / "dist-packages"
    system = _system(system_site=site, paths={str(site / "picamera2"): True})
    check = _checks(system, **{"source.kind": "camera", "source.camera": "picamera"})[
        "camera picamera2"]
    assert check.status == "FAIL"
    assert "installed system-wide, but this Python does not see it" in check.text
    assert check.fix.startswith("python3 -m venv --system-site-packages /opt/kaeshi/.venv")


def test_picamera2_missing_everywhere_names_the_apt_package() -> None:
    check = _checks(_system(), **{"source.kind": "camera", "source.camera": "picamera"})[
        "camera picamera2"]
    assert check.status == "FAIL" and check.fix == "sudo apt install python3-picamera2"
    # not asked for by this configuration: only a warning
    assert _checks(_system())["camera picamera2"].status == "warn"


def test_opencv_is_reported_with_its_version() -> None:
    assert _checks(_system())["camera OpenCV"] == Check("ok", "camera OpenCV", "cv2 4.10.0")


def test_a_missing_board_names_the_udev_rule() -> None:
    system = _system()
    system.exists = lambda p: p.startswith("/var/lib")  # no /dev/kaeshi-board
    check = _checks(system)["serial device"]
    assert check.status == "FAIL" and "does not exist" in check.text
    assert "99-kaeshi-board.rules" in check.fix


def test_a_user_outside_dialout_is_told_to_join_it() -> None:
    check = _checks(_system(paths={"/dev/kaeshi-board": False}))["serial device"]
    assert check.status == "FAIL" and "kaeshi may not open it" in check.text
    assert check.fix == "sudo usermod -aG dialout kaeshi"
    joined = _checks(_system(paths={"/dev/kaeshi-board": False}, groups=("dialout",)))
    assert "log in again" in joined["serial device"].fix


def test_a_state_folder_nobody_made_fails_with_the_install_command() -> None:
    # /var/lib/kaeshi missing and /var/lib not writable: the first trial run would fail
    system = _system(paths={"/var/lib/kaeshi": False})
    system.exists = lambda p: p in ("/var/lib", "/dev/kaeshi-board")
    checks = _checks(system)
    journal = checks["journal folder"]
    assert journal.status == "FAIL" and journal.text == "kaeshi may not write /var/lib/kaeshi"
    assert journal.fix == "sudo install -d -o kaeshi -g kaeshi -m 0750 /var/lib/kaeshi"


def test_a_working_folder_the_user_cannot_write_is_a_warning(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LG_WD", raising=False)
    check = _checks(_system(cwd="/home/pi"))["working folder"]
    assert check.status == "warn" and "kaeshi may not write /home/pi" in check.text


def test_the_command_prints_every_check_and_fails_on_any(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    config = tmp_path / "kaeshi.toml"
    config.write_text('[clock]\nbuttons = true\n', encoding="utf-8")
    code = doctor.run(argparse.Namespace(config=str(config)), _system())
    out = capsys.readouterr().out
    assert code == 1
    assert f"ok    Pi model: {PI5}" in out
    assert "FAIL  GPIO clock: no pin library works" in out and "      fix: sudo " in out
    assert out.rstrip().endswith("1 check failed")
    code = doctor.run(argparse.Namespace(config=None),
                      _system(pins=(object(), [LibraryStatus("lgpio", True)])))
    assert code == 0
    assert "everything this configuration needs is in place" in capsys.readouterr().out


def test_doctor_is_a_kaeshi_command() -> None:
    from controller.cli import build_parser

    args = build_parser(["doctor"]).parse_args(["doctor"])
    assert args.func is doctor.run


def test_on_this_machine_it_runs_without_a_pi() -> None:
    checks = Doctor(defaults()).checks()  # the real facts of this machine
    assert {c.subject for c in checks} >= {"Pi model", "GPIO clock", "camera OpenCV",
                                           "serial device", "journal folder"}
    if not os.path.exists("/proc/device-tree/model"):
        assert checks[0].status == "warn" and "not a Raspberry Pi" in checks[0].text
