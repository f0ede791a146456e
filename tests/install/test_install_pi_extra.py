"""`.[pi]` resolves, for a Pi, to wheels only, with lgpio a real release (>= 0.2.2).

pip resolves the project's requirements with the Pi's marker forced (``--platform``
aarch64, CPython 3.11 as on Raspberry Pi OS Bookworm, ``--only-binary=:all:``) against
PyPI itself, ignoring this machine's pip configuration and installed packages: the
resolution a fresh venv on a Pi would make, without a Pi. It needs PyPI and nothing else;
without it the test is skipped and says so.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import urllib.request
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
INDEX = "https://pypi.org/simple"
#: Raspberry Pi OS Bookworm: glibc 2.36, so every manylinux tag up to 2_36 fits.
AARCH64 = ["manylinux_2_36_aarch64", "manylinux_2_34_aarch64", "manylinux_2_28_aarch64",
           "manylinux_2_17_aarch64", "manylinux2014_aarch64", "linux_aarch64"]
ARMV7L = ["linux_armv7l"]


@pytest.fixture(scope="module")
def pypi() -> str:
    try:
        with urllib.request.urlopen(f"{INDEX}/lgpio/", timeout=10) as reply:
            reply.read(1)
    except OSError as exc:
        pytest.skip(f"PyPI is unreachable ({exc}): the Pi's resolution of .[pi] needs it")
    return INDEX


def _requirements(machine: str, extras: tuple[str, ...] = ("pi",)) -> list[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = list(project["dependencies"])
    for extra in extras:
        wanted += project["optional-dependencies"][extra]
    env = {"platform_machine": machine, "sys_platform": "linux", "python_version": "3.11"}
    out = []
    for text in wanted:
        req = Requirement(text)
        if req.marker is None or req.marker.evaluate(env):
            req.marker = None
            out.append(str(req))
    return out


def _resolve(index: str, platforms: list[str], requirements: list[str],
             tmp_path: Path) -> dict[str, dict[str, str]]:
    report = tmp_path / "report.json"
    command = [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--isolated",
               "--ignore-installed", "--index-url", index, "--report", str(report),
               "--python-version", "3.11", "--implementation", "cp", "--only-binary=:all:"]
    for platform in platforms:
        command += ["--platform", platform]
    done = subprocess.run([*command, *requirements], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-2000:]
    items = json.loads(report.read_text(encoding="utf-8"))["install"]
    return {i["metadata"]["name"].lower(): {"version": i["metadata"]["version"],
                                            "file": i["download_info"]["url"].rsplit("/", 1)[-1]}
            for i in items}


def test_a_pi_resolves_the_whole_install_to_wheels_with_a_real_lgpio(
        pypi: str, tmp_path: Path) -> None:
    requirements = _requirements("aarch64")
    assert any(r.startswith("lgpio") for r in requirements)  # the marker took it in
    found = _resolve(pypi, AARCH64, requirements, tmp_path)
    lgpio = found["lgpio"]
    assert Version(lgpio["version"]) >= Version("0.2.2"), lgpio  # not the 0.0.0.2 placeholder
    assert lgpio["file"].endswith("aarch64.whl"), lgpio
    assert "rpi-gpio" not in found  # nothing to compile: no gcc needed for the install
    for name in ("numpy", "opencv-python-headless", "gpiozero"):
        assert found[name]["file"].endswith(".whl"), found[name]


def test_the_32_bit_os_gets_lgpio_as_a_wheel_too(pypi: str, tmp_path: Path) -> None:
    """The 32-bit OS is not supported (no numpy or OpenCV wheels on PyPI), but its clock
    library resolves all the same."""
    lgpio = [r for r in _requirements("armv7l") if r.startswith("lgpio")]
    found = _resolve(pypi, ARMV7L, lgpio, tmp_path)
    assert Version(found["lgpio"]["version"]) >= Version("0.2.2")
    assert found["lgpio"]["file"].endswith("armv7l.whl")
