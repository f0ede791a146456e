"""A club's tables as the club runs them: one ``kaeshi run`` process per phone table.

Each table gets the configuration docs/phone.md shows ("A club on one laptop"): its own
journal, games folder and web port (0 here: the process says which it took), the
browser source, and, in a hall, its ``[hub]`` section. Used by the club test and by
``make bench BENCH=phone`` (CPU per table process).
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from controller.service.choice import device_key


@dataclass(frozen=True)
class HubAccess:
    """What a table needs to join the hall: the broker's port, the event, its password."""

    port: int
    event: str
    password: str


def announced(proc: subprocess.Popen[str], stream: IO[str], marker: str, what: str) -> str:
    """The address a process prints after ``marker``; the pipe is drained from then on."""
    watchdog = threading.Timer(60, proc.kill)  # a process that hangs must not hang the caller
    watchdog.start()
    seen = []
    try:
        for line in stream:
            seen.append(line)
            if marker in line:
                threading.Thread(target=stream.read, daemon=True).start()
                return line.split(marker, 1)[1].split()[0].rstrip("/")
    finally:
        watchdog.cancel()
    raise AssertionError(f"{what} never announced its address (exit {proc.poll()}):\n"
                         + "".join(seen[-20:]))


def table_toml(folder: Path, n: int, fps: int, setup: Path, token: str,
               hub: HubAccess | None = None) -> str:
    text = (
        f'[game]\nmode = "tournament"\n'
        f'[source]\nkind = "browser"\nfps = {fps}\ncamera_setup = {json.dumps(str(setup))}\n'
        f"lost_after = 3.0\n"
        f'[journal]\npath = {json.dumps(str(folder / "journal.sqlite"))}\n'
        f'[games]\nfolder = {json.dumps(str(folder / "games"))}\n'
        f'[web]\nhost = "127.0.0.1"\nport = 0\nhttps = "off"\ntoken = "{token}"\n'
    )
    if hub is not None:
        pw = folder / "broker.pass"
        pw.write_text(hub.password + "\n", encoding="utf-8")
        text += (f'[hub]\nenabled = true\nhost = "127.0.0.1"\nport = {hub.port}\n'
                 f'table = {n}\nevent = "{hub.event}"\npassword_file = {json.dumps(str(pw))}\n')
    return text


@dataclass
class RunningTable:
    proc: subprocess.Popen[str]
    url: str
    #: The device key the camera and clock pages' addresses carry.
    key: str

    @property
    def ws(self) -> str:
        return self.url.replace("http", "ws", 1) + "/ws"

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)


def start_table(folder: Path, n: int, fps: int, setup: Path,
                hub: HubAccess | None = None) -> RunningTable:
    """``kaeshi run --config tableN.toml`` in ``folder``, once its web page is up."""
    folder.mkdir(parents=True, exist_ok=True)
    token = f"table-{n}-arbiter-token-5678"
    config = folder / f"table{n}.toml"
    config.write_text(table_toml(folder, n, fps, setup, token, hub), encoding="utf-8")
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli", "run", "--config",
                             str(config)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    url = announced(proc, proc.stderr, "web page at ", f"table {n}")
    return RunningTable(proc, url, device_key(token))


def cpu_seconds(pid: int) -> float:
    """The user and system CPU a process has used (Linux ``/proc``)."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid: int) -> float:
    """The memory a process holds now (resident set, Linux ``/proc``), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise ValueError(f"no VmRSS for process {pid}")
