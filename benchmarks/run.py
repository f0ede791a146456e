"""Run every benchmark module (``bench_*.py`` here) and print its figures.

Benchmarks print numbers; they never assert timings, because shared machines are
noisy. Pass names to run a subset: ``python benchmarks/run.py rules arbiter``.
"""

from __future__ import annotations

import importlib.util
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str], folder: Path = HERE) -> int:
    """Run each wanted benchmark; one that fails is reported and the others still run."""
    wanted = set(argv)
    known = {p.stem.removeprefix("bench_"): p for p in sorted(folder.glob("bench_*.py"))}
    unknown = sorted(wanted - set(known))
    if unknown:
        print(f"no such benchmark: {', '.join(unknown)} (known: {', '.join(known)})")
        return 2
    failed: list[str] = []
    for name, path in known.items():
        if wanted and name not in wanted:
            continue
        print(f"== {name} ==", flush=True)
        started = time.perf_counter()
        try:
            spec = importlib.util.spec_from_file_location(path.stem, path)
            assert spec and spec.loader
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            module.main()
        except Exception:
            traceback.print_exc()
            failed.append(name)
        print(f"   ({time.perf_counter() - started:.1f} s)\n", flush=True)
    if failed:
        print(f"benchmarks that failed: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
