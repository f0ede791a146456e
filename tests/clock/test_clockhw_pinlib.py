"""The pin library's choice and its error: each of gpiozero's fallback reasons, in words.

The libraries are faked at the edge (a loader that raises what the real library
raises on that machine, or gpiozero's MockFactory), the choice and the text are real.
"""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory
from packaging.markers import Marker
from packaging.requirements import Requirement

from controller.clockhw import ClockPins, pinlib
from controller.clockhw.gpio import GpioError
from controller.clockhw.hardware import ClockHardware

PI5 = "Raspberry Pi 5 Model B Rev 1.0"
PI4 = "Raspberry Pi 4 Model B Rev 1.4"


def raising(exc: BaseException):
    def make():
        raise exc
    return make


def missing(module: str):
    return raising(ModuleNotFoundError(f"No module named '{module}'"))


#: What each library says on a Pi 5 venv that lacks lgpio (the issue's case).
PI5_NO_LGPIO = [
    ("lgpio", missing("lgpio")),
    ("rpigpio", raising(RuntimeError("Cannot determine SOC peripheral base address"))),
    ("pigpio", raising(OSError("failed to connect to localhost:8888"))),
]


def test_model_read_from_the_device_tree(tmp_path: Path) -> None:
    model = tmp_path / "model"
    model.write_bytes(PI5.encode() + b"\x00")
    assert pinlib.pi_model(model) == PI5
    assert pinlib.pi_model(tmp_path / "absent") is None


@pytest.mark.parametrize(("model", "generation"), [
    (PI5, 5), (PI4, 4), ("Raspberry Pi 3 Model B Plus Rev 1.3", 3),
    ("Raspberry Pi Compute Module 5 Rev 1.0", 5), ("Raspberry Pi 500 Rev 1.0", 5),
    ("Raspberry Pi 400 Rev 1.0", 4), ("Raspberry Pi Zero 2 W Rev 1.0", 2),
    ("Raspberry Pi Model B Rev 2", 0), ("Pine64 RockPro64", None), (None, None),
])
def test_generation(model: str | None, generation: int | None) -> None:
    assert pinlib.pi_generation(model) == generation


def test_first_library_that_loads_is_used_and_the_others_are_not_tried() -> None:
    mock = MockFactory()
    tried: list[str] = []

    def lgpio():
        tried.append("lgpio")
        return mock

    factory, statuses = pinlib.probe([("lgpio", lgpio), ("rpigpio", missing("RPi"))])
    assert factory is mock
    assert statuses == [pinlib.LibraryStatus("lgpio", True)]
    assert tried == ["lgpio"]


def test_fallback_to_rpigpio_keeps_lgpio_reason() -> None:
    mock = MockFactory()
    factory, statuses = pinlib.probe([("lgpio", missing("lgpio")), ("rpigpio", lambda: mock)])
    assert factory is mock
    assert statuses[0] == pinlib.LibraryStatus("lgpio", False, "not installed "
                                               "(No module named 'lgpio')")
    assert statuses[1].ok


def test_pi5_without_lgpio_names_the_pi_each_reason_and_the_pip_command() -> None:
    factory, statuses = pinlib.probe(PI5_NO_LGPIO)
    assert factory is None
    text = pinlib.explain(PI5, statuses, user="kaeshi")
    assert f"on this {PI5}" in text
    assert "lgpio: not installed (No module named 'lgpio')" in text
    assert "rpigpio: Cannot determine SOC peripheral base address " \
           "(RPi.GPIO does not drive a Pi 5)" in text
    assert "pigpio: failed to connect to localhost:8888 (the pigpiod daemon" in text
    assert text.endswith(f"Fix: {pinlib.pip_command()}")
    assert "'lgpio>=0.2.2'" in pinlib.pip_command()
    assert "run on a Raspberry Pi" not in text


def test_gpiochip_permission_names_the_gpio_group() -> None:
    # lgpio installed, but the user may not open /dev/gpiochip0
    _, statuses = pinlib.probe([
        ("lgpio", raising(RuntimeError("can not open gpiochip"))),
        ("rpigpio", missing("RPi")),
        ("pigpio", missing("pigpio")),
    ])
    text = pinlib.explain(PI4, statuses, user="kaeshi")
    assert "lgpio: can not open gpiochip" in text
    assert "rpigpio: not installed (No module named 'RPi')" in text
    assert "Fix: sudo usermod -aG gpio kaeshi" in text


def test_notification_pipe_folder_names_lg_wd() -> None:
    _, statuses = pinlib.probe([("lgpio", raising(RuntimeError("'can not open pathname'")))])
    text = pinlib.explain(PI5, statuses, user="kaeshi")
    assert "lgpio: can not open pathname" in text
    assert "Fix: export LG_WD=" in text


def test_off_a_pi_the_error_says_so_and_how_to_run_without_the_clock() -> None:
    _, statuses = pinlib.probe(PI5_NO_LGPIO)
    text = pinlib.explain(None, statuses)
    assert "this is no Raspberry Pi" in text
    assert "clock.buttons = false" in text
    assert "lgpio: not installed" in text


def test_another_board_is_named() -> None:
    _, statuses = pinlib.probe([("lgpio", raising(RuntimeError("can not open gpiochip")))])
    assert "'Pine64 RockPro64', not a Raspberry Pi" in pinlib.explain("Pine64 RockPro64",
                                                                      statuses)


def test_clock_hardware_raises_the_explanation(monkeypatch: pytest.MonkeyPatch) -> None:
    # no factory given: the clock asks pinlib, whose libraries all fail here
    real_probe = pinlib.probe
    monkeypatch.setattr(pinlib, "_cached", None)
    monkeypatch.setattr(pinlib, "probe", lambda: real_probe(PI5_NO_LGPIO))
    monkeypatch.setattr(pinlib, "pi_model", lambda: PI5)
    with pytest.raises(GpioError) as err:
        ClockHardware(ClockPins(), lambda c, t: None, lambda t: None)
    assert f"no GPIO pin library works on this {PI5}" in str(err.value)
    assert "Fix: sudo " in str(err.value)


def test_clock_hardware_uses_the_factory_found(monkeypatch: pytest.MonkeyPatch) -> None:
    mock = MockFactory()
    monkeypatch.setattr(pinlib, "_cached", None)
    monkeypatch.setattr(pinlib, "probe", lambda: (mock, [pinlib.LibraryStatus("lgpio", True)]))
    hw = ClockHardware(ClockPins(), lambda c, t: None, lambda t: None)
    try:
        assert mock.pin(17).pull == "up"  # the black button was claimed on the found factory
    finally:
        hw.close()


def test_lg_wd_keeps_a_writable_folder(tmp_path: Path) -> None:
    env: dict[str, str] = {}
    assert pinlib.lgpio_work_dir(env, cwd=lambda: str(tmp_path)) == str(tmp_path)
    assert env["LG_WD"] == str(tmp_path)


def test_lg_wd_moves_off_a_folder_the_user_cannot_write(tmp_path: Path) -> None:
    locked = str(tmp_path / "locked")  # as `sudo -u kaeshi` from an admin's home folder
    env: dict[str, str] = {}
    folder = pinlib.lgpio_work_dir(env, cwd=lambda: locked, writable=lambda f: f != locked)
    assert folder != locked and os.access(folder, os.W_OK)
    assert env["LG_WD"] == folder


def test_lg_wd_given_is_kept() -> None:
    env = {"LG_WD": "/var/lib/kaeshi"}
    assert pinlib.lgpio_work_dir(env, cwd=lambda: "/") == "/var/lib/kaeshi"


def _pi_extra() -> list[Requirement]:
    pyproject = Path(__file__).resolve().parents[2] / "pyproject.toml"
    data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    return [Requirement(r) for r in data["project"]["optional-dependencies"]["pi"]]


@pytest.mark.parametrize("machine", ["aarch64", "armv7l"])
def test_pi_extra_brings_a_real_lgpio_on_every_pi(machine: str) -> None:
    env = {"platform_machine": machine}
    wanted = {r.name.lower(): r for r in _pi_extra()
              if r.marker is None or r.marker.evaluate(env)}
    assert "lgpio" in wanted
    assert not wanted["lgpio"].specifier.contains("0.0.0.2")  # PyPI's empty placeholder
    assert wanted["lgpio"].specifier.contains("0.2.2.0")
    assert "rpi.gpio" not in wanted  # lgpio drives every Pi; RPi.GPIO needs gcc, not a Pi 5


def test_pi_extra_stays_off_other_machines() -> None:
    assert all(r.marker is not None and not r.marker.evaluate({"platform_machine": "x86_64"})
               for r in _pi_extra())
    assert Marker("platform_machine == 'aarch64'").evaluate({"platform_machine": "aarch64"})
