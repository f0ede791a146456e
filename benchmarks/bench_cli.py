"""How fast ``kaeshi --help`` and each subcommand's ``--help`` start.

Each figure comes from ``python -X importtime``: the sum of the top-level imports'
cumulative times (what the listing or the help pays for its modules), beside the
wall time of the whole process, the interpreter's own start included. The slowest
modules of ``kaeshi --help`` are printed too, to show where any time goes.
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

from controller.commands import COMMANDS

#: ``import time:   self |  cumulative | name``; a top-level import's name has one space
#: of indentation after the bar, nested ones more.
LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( +)(\S+)$")


def measure(argv: list[str]) -> tuple[float, float, list[tuple[int, str]]]:
    """(milliseconds of imports, wall milliseconds, [(cumulative µs, top-level module)])."""
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "controller.cli", *argv],
                          capture_output=True, text=True)
    wall = (time.perf_counter() - started) * 1000
    top: list[tuple[int, str]] = []
    for line in proc.stderr.splitlines():
        m = LINE.match(line)
        if m and len(m[3]) == 1:
            top.append((int(m[2]), m[4]))
    return sum(us for us, _ in top) / 1000, wall, top


def main() -> None:
    imports, wall, top = measure(["--help"])
    print(f"kaeshi --help: imports {imports:.0f} ms, process {wall:.0f} ms")
    slow = ", ".join(f"{name} {us / 1000:.0f} ms" for us, name in sorted(top)[::-1][:5])
    print(f"   slowest top-level imports: {slow}")
    for name in COMMANDS:
        imports, wall, _ = measure([name, "--help"])
        print(f"kaeshi {name} --help: imports {imports:.0f} ms, process {wall:.0f} ms")
