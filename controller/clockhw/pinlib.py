"""Which pin library drives the clock, and why the others did not.

gpiozero tries lgpio, RPi.GPIO, pigpio and its own ``native`` driver in turn and,
when none loads, says only "Unable to load any default pin factory". A Pi user then
cannot tell a missing package from a missing group or a Pi 5 that RPi.GPIO cannot
drive. So the libraries are tried here, in gpiozero's order, each failure kept in
words, and the error names the Pi detected, every library's reason and the one
command that fixes the first cause.

lgpio creates its notification pipe (``.lgd-nfy<n>``) in ``$LG_WD``, else in the
current folder, and moves the process there. A service started from a folder its
user may not write to (``sudo -u kaeshi`` from a home folder) would lose every
button; :func:`lgpio_work_dir` points ``LG_WD`` at a writable folder first.
"""

from __future__ import annotations

import functools
import getpass
import importlib
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.clockhw.errors import GpioError

#: The device tree's name of the board ("Raspberry Pi 5 Model B Rev 1.0").
MODEL_PATH = Path("/proc/device-tree/model")
#: The floor below which PyPI's ``lgpio`` is an empty placeholder (0.0.0.2).
LGPIO_REQUIREMENT = "lgpio>=0.2.2"

#: gpiozero's default factories, in its order of preference.
FACTORIES: tuple[tuple[str, str], ...] = (
    ("lgpio", "gpiozero.pins.lgpio:LGPIOFactory"),
    ("rpigpio", "gpiozero.pins.rpigpio:RPiGPIOFactory"),
    ("pigpio", "gpiozero.pins.pigpio:PiGPIOFactory"),
)
# gpiozero's last resort, its pure-Python ``native`` driver, is left out: it polls for
# edges instead of being told of them, so a press would be stamped late, and it does
# not know a Pi 5's RP1 chip at all.


@dataclass(frozen=True, slots=True)
class LibraryStatus:
    """One pin library: whether it loaded, and if not, why (in its own words)."""

    name: str
    ok: bool
    reason: str = ""


def pi_model(path: Path = MODEL_PATH) -> str | None:
    """The board's model from the device tree, or None off a Pi (or without the file)."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except OSError:
        return None
    text = text.replace("\x00", "").strip()
    return text or None


def pi_generation(model: str | None) -> int | None:
    """5 for a Pi 5, a Pi 500 or a Compute Module 5; 4, 3... for earlier ones."""
    if not model:
        return None
    found = re.search(r"Raspberry Pi (?:Compute Module |Zero )?(\d+)", model)
    if found is None:
        return 0 if "Raspberry Pi" in model else None
    number = int(found.group(1))
    return number // 100 if number >= 100 else number  # a Pi 400 is a Pi 4, a 500 a Pi 5


def _writable(folder: str) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def lgpio_work_dir(environ: dict[str, str] | Any = os.environ,
                   cwd: Callable[[], str] = os.getcwd,
                   writable: Callable[[str], bool] = _writable) -> str:
    """Set ``LG_WD`` to a folder this user can write to, unless it is set already.

    The current folder is kept when writable (lgpio moves the process into ``LG_WD``,
    so relative paths keep meaning the same); otherwise a private folder in the
    temporary directory. Must run before lgpio opens its first pipe.
    """
    if environ.get("LG_WD"):
        return str(environ["LG_WD"])
    try:
        here = cwd()
    except OSError:
        here = ""
    if here and writable(here):
        folder = here
    else:
        folder = os.path.join(tempfile.gettempdir(), f"kaeshi-lgpio-{os.getuid()}")
        os.makedirs(folder, mode=0o700, exist_ok=True)
    environ["LG_WD"] = folder
    return folder


def _load(entry: str) -> Any:
    module_name, class_name = entry.split(":", 1)
    return getattr(importlib.import_module(module_name), class_name)()


def probe(loaders: Sequence[tuple[str, Callable[[], Any]]] | None = None,
          ) -> tuple[Any | None, list[LibraryStatus]]:
    """The first pin factory that loads, and what each library tried said.

    ``loaders`` pairs a library's name with what makes its factory (tests pass
    failing ones); by default gpiozero's own factories, in gpiozero's order.
    """
    if loaders is None:
        lgpio_work_dir()
        loaders = [(name, functools.partial(_load, entry)) for name, entry in FACTORIES]
    statuses: list[LibraryStatus] = []
    for name, make in loaders:
        try:
            factory = make()
        except Exception as exc:  # each library fails in its own way: keep its words
            statuses.append(LibraryStatus(name, False, _reason(name, exc)))
            continue
        statuses.append(LibraryStatus(name, True))
        return factory, statuses
    return None, statuses


def _reason(name: str, exc: BaseException) -> str:
    text = str(exc).strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        text = text[1:-1]  # lgpio's errors come quoted: 'can not open gpiochip'
    text = text or type(exc).__name__
    if isinstance(exc, ModuleNotFoundError):
        return f"not installed ({text})"
    if name == "rpigpio" and "peripheral base" in text.lower():
        return f"{text} (RPi.GPIO does not drive a Pi 5)"
    if name == "pigpio" and "connect" in text.lower():
        return f"{text} (the pigpiod daemon is not running; Kaeshi does not need it)"
    return text


def pip_command(requirement: str = LGPIO_REQUIREMENT) -> str:
    """The pip of the environment Kaeshi runs in (a venv's own pip)."""
    pip = Path(sys.prefix) / "bin" / "pip"
    return f"sudo {shlex.quote(str(pip))} install {shlex.quote(requirement)}"


def fix_command(model: str | None, statuses: Sequence[LibraryStatus],
                user: str | None = None) -> str:
    """The one command that removes the first cause, from lgpio's reason."""
    user = user or _user()
    lgpio = next((s for s in statuses if s.name == "lgpio"), None)
    reason = "" if lgpio is None else lgpio.reason.lower()
    if lgpio is None or "not installed" in reason or "no module named" in reason:
        return pip_command()
    if "permission" in reason or "can not open gpiochip" in reason:
        return f"sudo usermod -aG gpio {user}   (then log in again, or restart the service)"
    if "pathname" in reason or "nfy" in reason:
        return "export LG_WD=/var/lib/kaeshi   (a folder the service user may write to)"
    return pip_command()


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "<user>"


def explain(model: str | None, statuses: Sequence[LibraryStatus],
            user: str | None = None) -> str:
    """Why no pin library works here, for the error and for ``kaeshi doctor``."""
    generation = pi_generation(model)
    if model is None:
        where = (f": this is no Raspberry Pi ({MODEL_PATH} not found), and the GPIO clock "
                 "needs one (set clock.buttons = false to run without it)")
    elif generation is None:
        where = f": this board is {model!r}, not a Raspberry Pi"
    else:
        where = f" on this {model}"
    tried = "; ".join(f"{s.name}: {s.reason}" for s in statuses if not s.ok) or "none tried"
    text = f"no GPIO pin library works{where}. Tried {tried}."
    if model is not None:
        text += f" Fix: {fix_command(model, statuses, user)}"
    return text


_cached: Any = None


def default_factory() -> Any:
    """The pin factory the clock uses when none is given; raises with :func:`explain`."""
    global _cached
    if _cached is None:
        factory, statuses = probe()
        if factory is None:
            raise GpioError(explain(pi_model(), statuses))
        _cached = factory
    return _cached
