"""A private Mosquitto for tests and ``kaeshi hub simulate``, configured as in the hall.

It runs ``deploy/mosquitto/kaeshi.conf`` and ``deploy/mosquitto/acl`` with only the
paths, the listener (a free loopback port), the event's slug and the process user
replaced, and a
password file made by ``mosquitto_passwd`` with a random password per user. So
what the tests prove about who may publish where is what the hall's broker does.
"""

from __future__ import annotations

import getpass
import os
import secrets
import signal
import socket
import subprocess
import time
from pathlib import Path

from controller.errors import KaeshiError
from controller.hall_protocol.mqtt import BrokerSettings
from controller.hall_protocol.topics import check_event_slug

MOSQUITTO = "/usr/sbin/mosquitto"
DEPLOY = Path(__file__).resolve().parents[2] / "deploy" / "mosquitto"
HUB_USER = "hub"
#: Where the ACL names the event (``deploy/mosquitto/acl``).
ACL_EVENT = "@EVENT@"


class BrokerError(KaeshiError):
    """The private broker cannot be set up or started; says why."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def private_config(template: str, folder: Path, port: int) -> str:
    """The hall's config with this broker's files, port and user put in."""
    out: list[str] = []
    for line in template.splitlines():
        key = line.split(" ", 1)[0]
        if key == "password_file":
            line = f"password_file {folder / 'passwd'}"
        elif key == "acl_file":
            line = f"acl_file {folder / 'acl'}"
        elif key == "persistence_location":
            line = f"persistence_location {folder / 'data'}/"
        elif key == "listener":
            line = f"listener {port} 127.0.0.1"
        elif key == "log_dest":
            line = f"log_dest file {folder / 'mosquitto.log'}"
        out.append(line)
    if os.geteuid() == 0:
        out.append(f"user {getpass.getuser()}")  # not mosquitto's own user: the files are ours
    return "\n".join(out) + "\n"


def event_acl(template: str, event: str) -> str:
    """The hall's ACL for one event: every table and the hub confined to its tree."""
    return template.replace(ACL_EVENT, check_event_slug(event))


class PrivateBroker:
    """A mosquitto process on ``127.0.0.1:port`` with the hall's password file and ACL."""

    def __init__(self, folder: str | Path, tables: int, port: int | None = None,
                 event: str = "open-2026") -> None:
        if not Path(MOSQUITTO).exists():
            raise BrokerError(f"{MOSQUITTO} not found: install Debian's mosquitto package")
        self.folder = Path(folder)
        self.tables = tables
        self.event = check_event_slug(event)
        self.port = port or free_port()
        self.passwords: dict[str, str] = {
            user: secrets.token_urlsafe(12)
            for user in [HUB_USER, *(str(n) for n in range(1, tables + 1))]
        }
        self.proc: subprocess.Popen[bytes] | None = None
        self._write_files()

    def _write_files(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        (self.folder / "data").mkdir(exist_ok=True)
        try:
            template = (DEPLOY / "kaeshi.conf").read_text(encoding="utf-8")
            acl = (DEPLOY / "acl").read_text(encoding="utf-8")
        except OSError as exc:
            raise BrokerError(f"{DEPLOY}: the hall's mosquitto files are missing ({exc})"
                              ) from None
        (self.folder / "acl").write_text(event_acl(acl, self.event), encoding="utf-8")
        (self.folder / "kaeshi.conf").write_text(
            private_config(template, self.folder, self.port), encoding="utf-8")
        passwd = self.folder / "passwd"
        passwd.write_text("".join(f"{u}:{p}\n" for u, p in self.passwords.items()),
                          encoding="utf-8")
        passwd.chmod(0o600)
        try:  # -U hashes a file of user:password lines in place
            subprocess.run(["mosquitto_passwd", "-U", str(passwd)], check=True,
                           capture_output=True, timeout=60)
        except (OSError, subprocess.SubprocessError) as exc:
            raise BrokerError(f"mosquitto_passwd -U {passwd}: {exc}") from None

    # --------------------------------------------------------------- settings
    def settings(self, user: str | int) -> BrokerSettings:
        user = str(user)
        return BrokerSettings("127.0.0.1", self.port, user, self.passwords.get(user, "x"))

    def hub_settings(self) -> BrokerSettings:
        return self.settings(HUB_USER)

    # -------------------------------------------------------------- lifecycle
    def start(self, timeout: float = 10.0) -> None:
        """Start mosquitto and return once it accepts connections."""
        log = open(self.folder / "stderr.log", "ab")  # noqa: SIM115 - owned by the process
        self.proc = subprocess.Popen(
            [MOSQUITTO, "-c", str(self.folder / "kaeshi.conf")],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent,
        )
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise BrokerError(f"mosquitto exited at start (code {self.proc.returncode}); "
                                  f"see {self.folder / 'mosquitto.log'}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.kill()
        raise BrokerError(f"mosquitto did not listen on port {self.port} in {timeout} s")

    def stop(self) -> None:
        """A clean stop (SIGTERM): the broker saves its database."""
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        """A crash (SIGKILL): whatever was not yet autosaved is gone."""
        self._signal(signal.SIGKILL)

    def _signal(self, sig: int) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(sig)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def __enter__(self) -> PrivateBroker:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def die_with_parent() -> None:
    """In the child: a private broker ends with the process that started it, even if
    that one is killed (a test run cut short must not leave brokers behind)."""
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass  # not Linux: the caller's stop() still ends it
