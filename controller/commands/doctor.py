"""``kaeshi doctor``: what this machine offers the service, checked the way the service will.

Run it as the service's user (``sudo -u kaeshi kaeshi doctor --config ...``): the
Pi model, the pin library the clock would use and why each other one fails, the
camera stack (picamera2 and OpenCV, as this Python sees them), the sensor board's
serial device, and whether the journal's and the games' folders can be written.
Each line is ``ok``, ``warn`` (not needed by this configuration) or ``FAIL`` with
the command that fixes it; the exit status is 1 when any check fails.

The facts come from a :class:`System`, so tests inject a Pi 5, a missing group or a
venv that cannot see picamera2 without having one.
"""

from __future__ import annotations

import argparse
import grp
import importlib
import os
import pwd
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.clockhw import pinlib
from controller.service.config import Config, defaults, load_config

#: Where Debian's python3-picamera2 puts the package (a venv sees it only when made
#: with --system-site-packages).
SYSTEM_SITE = Path("/usr/lib/python3/dist-packages")


def register(p: argparse.ArgumentParser) -> None:
    p.epilog = "Run it as the service's user."
    p.add_argument("--config", metavar="FILE",
                   help="the service's TOML configuration (default: every option at its "
                   "default)")
    p.set_defaults(func=run)


def _probe_pins() -> tuple[Any | None, list[pinlib.LibraryStatus]]:
    factory, statuses = pinlib.probe()
    if factory is not None:
        try:
            factory.close()  # only asked; the service claims its pins itself
        except Exception:  # noqa: S110 - a factory that fails to close changes no verdict
            pass
    return factory, statuses


def _import(name: str) -> tuple[bool, str]:
    try:
        module = importlib.import_module(name)
    except Exception as exc:  # a broken install raises anything; its words are the reason
        return False, f"{type(exc).__name__}: {exc}"
    return True, str(getattr(module, "__version__", "") or "")


def _groups() -> set[str]:
    names = set()
    for gid in os.getgroups():
        try:
            names.add(grp.getgrgid(gid).gr_name)
        except KeyError:
            continue
    return names


def _user() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:
        return str(os.getuid())


@dataclass
class System:
    """The facts the checks read; each one replaceable for a test."""

    model: Callable[[], str | None] = pinlib.pi_model
    pins: Callable[[], tuple[Any | None, list[pinlib.LibraryStatus]]] = _probe_pins
    import_module: Callable[[str], tuple[bool, str]] = _import
    exists: Callable[[str], bool] = os.path.exists
    access: Callable[[str, int], bool] = os.access
    user: Callable[[], str] = _user
    groups: Callable[[], set[str]] = _groups
    prefix: str = sys.prefix
    system_site: Path = SYSTEM_SITE
    cwd: Callable[[], str] = os.getcwd


@dataclass(frozen=True, slots=True)
class Check:
    """One line of the report."""

    status: str  # "ok", "warn" or "FAIL"
    subject: str
    text: str
    fix: str = ""

    def render(self) -> str:
        line = f"{self.status:<4}  {self.subject}: {self.text}"
        return f"{line}\n      fix: {self.fix}" if self.fix else line


@dataclass
class Doctor:
    config: Config
    system: System = field(default_factory=System)

    def checks(self) -> list[Check]:
        model = self.system.model()
        return [self._model(model), *self._pins(model), *self._camera(model),
                self._serial(), *self._folders()]

    def _need(self, needed: bool) -> str:
        return "FAIL" if needed else "warn"

    def _model(self, model: str | None) -> Check:
        if model is None:
            return Check("warn", "Pi model", f"not a Raspberry Pi ({pinlib.MODEL_PATH} not "
                         "found); the GPIO clock and the Pi camera need one")
        generation = pinlib.pi_generation(model)
        if generation is None:
            return Check("warn", "Pi model", f"{model} (not a Raspberry Pi)")
        return Check("ok", "Pi model", model)

    def _pins(self, model: str | None) -> list[Check]:
        factory, statuses = self.system.pins()
        needed = bool(self.config["clock.buttons"])
        lines = []
        for s in statuses:
            lines.append(Check("ok" if s.ok else "warn", f"pin library {s.name}",
                               "loads" if s.ok else s.reason))
        if factory is not None:
            used = next(s.name for s in statuses if s.ok)
            lines.append(Check("ok", "GPIO clock", f"would use {used}"))
        else:
            why = "clock.buttons = true needs one" if needed else "clock.buttons is off"
            lines.append(Check(self._need(needed), "GPIO clock", f"no pin library works ({why})",
                               pinlib.fix_command(model, statuses, self.system.user())
                               if model else ""))
        return lines

    def _camera(self, model: str | None) -> list[Check]:
        source = self.config["source.kind"]
        wants_pi = source == "camera" and self.config["source.camera"].strip().lower() == (
            "picamera")
        wants_cv = source == "camera"
        lines = []
        ok, detail = self.system.import_module("picamera2")
        if ok:
            lines.append(Check("ok", "camera picamera2", f"importable {detail}".strip()))
        else:
            on_system = self.system.exists(str(self.system.system_site / "picamera2"))
            if on_system:
                text = ("installed system-wide, but this Python does not see it "
                        f"({self.system.prefix})")
                fix = (f"python3 -m venv --system-site-packages {self.system.prefix}  "
                       "(then pip install -e '.[pi]' again)")
            else:
                text = f"not installed ({detail})"
                fix = "sudo apt install python3-picamera2" if model else ""
            lines.append(Check(self._need(wants_pi), "camera picamera2", text,
                               fix if wants_pi or model else ""))
        ok, detail = self.system.import_module("cv2")
        lines.append(Check("ok" if ok else self._need(wants_cv), "camera OpenCV",
                           f"cv2 {detail}" if ok else detail,
                           "" if ok else f"{self.system.prefix}/bin/pip install -e '.[pi]'"))
        return lines

    def _serial(self) -> Check:
        device = self.config["source.device"]
        needed = self.config["source.kind"] == "hall"
        status = self._need(needed)
        if not self.system.exists(device):
            return Check(status, "serial device", f"{device} does not exist",
                         "plug the sensor board in; sudo cp deploy/99-kaeshi-board.rules "
                         "/etc/udev/rules.d/ && sudo udevadm control --reload && "
                         "sudo udevadm trigger")
        if not self.system.access(device, os.R_OK | os.W_OK):
            user = self.system.user()
            member = "dialout" in self.system.groups()
            text = f"{device} exists, but {user} may not open it"
            fix = ("log in again, or restart the service: the dialout group is not in "
                   "effect yet" if member else f"sudo usermod -aG dialout {user}")
            return Check(status, "serial device", text, fix)
        return Check("ok", "serial device", f"{device} can be opened")

    def _folders(self) -> list[Check]:
        user = self.system.user()
        lines = []
        wanted = [("journal folder", str(Path(self.config["journal.path"]).parent)),
                  ("games folder", str(self.config["games.folder"])),
                  ("working folder", self.system.cwd())]
        for what, folder in wanted:
            if what == "working folder":
                if self.system.access(folder, os.W_OK | os.X_OK) or os.environ.get("LG_WD"):
                    lines.append(Check("ok", what, f"{folder} is writable (lgpio's pipe)"))
                else:
                    lines.append(Check(
                        "warn", what, f"{user} may not write {folder}; the clock moves "
                        "lgpio's pipe to a private temporary folder",
                        "run it in the service's folder: sudo -u kaeshi env -C "
                        "/var/lib/kaeshi ... (or set LG_WD)"))
                continue
            probe = folder
            while not self.system.exists(probe) and probe not in ("", "/"):
                probe = str(Path(probe).parent)  # a missing folder is made in its parent
            if self.system.access(probe, os.W_OK | os.X_OK):
                made = "" if probe == folder else f" (made on first run, in {probe})"
                lines.append(Check("ok", what, f"{folder} is writable{made}"))
                continue
            lines.append(Check("FAIL", what, f"{user} may not write {folder}",
                               f"sudo install -d -o {user} -g {user} -m 0750 {folder}"))
        return lines


def run(args: argparse.Namespace, system: System | None = None) -> int:
    config = load_config(args.config) if args.config else defaults()
    checks = Doctor(config, system or System()).checks()
    for check in checks:
        print(check.render())
    failed = [c for c in checks if c.status == "FAIL"]
    print(f"{len(failed)} check{'s' if len(failed) != 1 else ''} failed" if failed
          else "everything this configuration needs is in place")
    return 1 if failed else 0
