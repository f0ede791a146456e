"""The machine's boot clock: how long the table was down, measured on a clock that never jumps.

A Raspberry Pi has no real-time clock: its wall clock starts from ``fake-hwclock``'s
last saved time and jumps when NTP syncs, possibly while the service is down. So an
outage is measured on ``CLOCK_BOOTTIME`` (seconds since boot, counting suspend; never
set by anyone), which is only comparable within one boot: each journal step records
it with the boot's id (``/proc/sys/kernel/random/boot_id``). Across a reboot nothing
measures the outage reliably; the service then charges nothing by itself and tells
the arbiter what the wall clock says (see ``JournalKeeper.resume``).
"""

from __future__ import annotations

import json
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

_BOOT_ID = Path("/proc/sys/kernel/random/boot_id")


@dataclass(frozen=True, slots=True)
class BootStamp:
    """An instant on the boot clock: which boot, and seconds since it began."""

    boot: str
    uptime: float


def boot_id() -> str:
    """This boot's id ('' where the system does not say: then no outage is trusted)."""
    try:
        return _BOOT_ID.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""


_THIS_BOOT = boot_id()


def now() -> BootStamp:
    """The boot clock now."""
    clock = getattr(time, "CLOCK_BOOTTIME", time.CLOCK_MONOTONIC)
    return BootStamp(_THIS_BOOT, time.clock_gettime(clock))


def stamp_text(stamp: BootStamp, wall: float) -> str:
    """A step's instant on both clocks as the journal keeps it, with its own checksum."""
    body = {"boot": stamp.boot, "uptime": stamp.uptime, "wall": wall}
    crc = zlib.crc32(json.dumps(body, sort_keys=True).encode())
    return json.dumps({**body, "crc": crc}, sort_keys=True)


def parse_stamp(text: str) -> tuple[BootStamp, float] | None:
    """The boot stamp and wall time in ``text`` (None when it is not whole)."""
    try:
        d = json.loads(text)
        boot, uptime, wall = d["boot"], float(d["uptime"]), float(d["wall"])
    except (ValueError, TypeError, KeyError):
        return None
    if not isinstance(boot, str) or text != stamp_text(BootStamp(boot, uptime), wall):
        return None
    return BootStamp(boot, uptime), wall
