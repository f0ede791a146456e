"""Game records: how fast real databases read, verify, convert and round-trip.

Uses the real WTHOR year 2001 (5575 games) from the shared data directory
(``KAESHI_SHARED``, default ``../shared`` beside the repository).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from controller.records import load_games, read_ggf_text, save_games
from controller.records.ggf import write_ggf_games
from controller.records.jsonform import dumps, loads
from controller.records.transcript import scan_transcripts, write_transcripts
from controller.records.verify import verify_files

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KAESHI_SHARED", ROOT.parent / "shared"))
WTHOR = SHARED / "data" / "games" / "wthor"

T = TypeVar("T")


def timed(label: str, games: int, fn: Callable[[], T]) -> T:
    """Run ``fn`` once; report CPU time (steady on a busy machine) and wall time."""
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(f"{label}: {games} games in {cpu:.2f} s CPU = {games / cpu:,.0f} games/s "
          f"({wall:.2f} s wall)")
    return out


def main() -> None:
    source = WTHOR / "WTH_2001.wtb"
    if not source.is_file():
        print(f"skipped: {source} not found (set KAESHI_SHARED)")
        return
    games = timed("read WTHOR (.wtb + names, replayed)", 5575, lambda: load_games(source))
    n = len(games)
    timed("verify WTHOR (read + check scores)", n, lambda: verify_files([source]))
    ggf = timed("write GGF", n, lambda: write_ggf_games(games))
    timed("read GGF (parsed, replayed)", n, lambda: read_ggf_text(ggf))
    text = timed("write JSON", n, lambda: dumps(games))
    timed("read JSON (checked, replayed)", n, lambda: loads(text))
    tr = timed("write transcripts", n, lambda: write_transcripts(games))
    timed("read transcripts (replayed)", n, lambda: scan_transcripts(tr, "bench"))
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("WTHOR.JOU", "WTHOR.TRN"):
            shutil.copy(WTHOR / name, Path(tmp) / name)
        timed("write WTHOR (names reused)", n, lambda: save_games(games, Path(tmp) / "o.wtb"))
    print(f"sizes: wtb {source.stat().st_size / n:.0f} B/game, GGF {len(ggf) / n:.0f} B/game, "
          f"JSON {len(text.encode()) / n:.0f} B/game, transcript {len(tr) / n:.0f} B/game")
