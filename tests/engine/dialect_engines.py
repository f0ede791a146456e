"""Engines that speak the protocols the way real ones do, quirks included: Kaeshi's
own engine underneath, with one engine's habit on top.

``python tests/engine/dialect_engines.py ntest``: NBoard; while deepening a ``hint``
it prints shallow lines first, one for another move with a tempting score at depth
1, as NTest does, before the final lines. ``edax-gtp``: GTP; ``reg_genmove``
answers the last move played (Edax's), ``genmove`` answers properly; ``refuse-gtp``:
lists ``reg_genmove`` but refuses it. ``slow``:
NBoard; a ``hint`` prints its depth-1 lines, then thinks far longer than allowed.
"""

from __future__ import annotations

import sys
import time

from controller.engine.own import GtpServer, NBoardServer

LEVEL = 2


def main() -> int:
    dialect = sys.argv[1]
    out: list[str] = []

    def write(line: str) -> None:
        sys.stdout.write(line if line.endswith("\n") else line + "\n")
        sys.stdout.flush()

    if dialect == "slow":
        server = NBoardServer(out.append, 1, 30.0)
        for raw in sys.stdin:
            line = raw.strip()
            if not server.handle(line):
                break
            lines, out[:] = list(out), []
            for x in lines:
                write(x)
            if line.startswith("hint"):
                time.sleep(60)  # ... and keeps searching deeper
        return 0
    if dialect == "ntest":
        server = NBoardServer(out.append, LEVEL, 30.0)
        for raw in sys.stdin:
            line = raw.strip()
            if not server.handle(line):
                break
            lines, out[:] = list(out), []
            searched = [x for x in lines if x.startswith("search ")]
            if line.startswith("hint") and searched:
                best = searched[0].split()[1]
                other = next((sq for sq in server.position.legal_squares()
                              if sq.upper() != best), None)
                if other is not None:  # a shallow look at another move, scored high
                    write(f"search {other.upper()} 60.00 0 1")
                write(f"search {best} -60.00 0 1")  # and the best move, scored low
            for x in lines:
                write(x)
        return 0
    server_g = GtpServer(write, LEVEL, 30.0)
    last = "PASS"
    for raw in sys.stdin:
        words = raw.split()
        if words[:1] == ["play"] and len(words) > 2:
            last = words[2]
        if words[:1] == ["reg_genmove"]:
            write(f"= {last}\n\n" if dialect == "edax-gtp" else "? unknown command\n\n")
            continue
        if not server_g.handle(raw.strip()):
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
