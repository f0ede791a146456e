"""An engine that misbehaves on purpose: Kaeshi's own engine until its Nth move request,
then it hangs, crashes, prints garbage or answers an illegal move.

Run as ``python tests/engine/engine_faults.py PROTOCOL MODE AFTER [MARKER]``; with MARKER, a
line is appended to that file at every start, so a test can count (or rule out) starts.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from controller.engine.own import GtpServer, NBoardServer


def main() -> int:
    protocol, mode, after = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if len(sys.argv) > 4:
        with open(Path(sys.argv[4]), "a", encoding="utf-8") as f:
            f.write("started\n")

    def write(line: str) -> None:
        sys.stdout.write(line if line.endswith("\n") else line + "\n")
        sys.stdout.flush()

    server = (NBoardServer if protocol == "nboard" else GtpServer)(write, 2)
    asked = 0
    for raw in sys.stdin:
        line = raw.strip()
        word = line.split()[0] if line.split() else ""
        if word in ("go", "genmove", "reg_genmove", "hint"):
            asked += 1
            if asked > after:
                if mode == "hang":
                    time.sleep(3600)
                if mode == "crash":
                    sys.stderr.write("segmentation fault (pretend)\n")
                    return 139
                if mode == "garbage":
                    for _ in range(200):
                        write("\x00\x7f#@!? ~~ 0xDEADBEEF ===")
                    write("=== ZZ/x/y" if protocol == "nboard" else "= Q9\n\n")
                    continue
                if mode == "illegal":
                    write("=== A1/0/0" if protocol == "nboard" else "= A1\n\n")
                    continue
        if not server.handle(line):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
