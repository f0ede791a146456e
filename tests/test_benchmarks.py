"""`make bench` keeps working as the code moves: every benchmark module loads and has
the ``main`` that ``benchmarks/run.py`` calls. (The figures themselves are printed by
``make bench``, never asserted here: the machines are shared and noisy.)"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.mark.parametrize("path", sorted(BENCH.glob("bench_*.py")), ids=lambda p: p.stem)
def test_every_benchmark_loads_with_a_main(path: Path) -> None:
    spec = importlib.util.spec_from_file_location(f"kaeshi_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert callable(module.main)


def test_the_runner_finds_every_area() -> None:
    areas = {p.stem.removeprefix("bench_") for p in BENCH.glob("bench_*.py")}
    assert {"rules", "arbiter", "vision", "vision_games", "service", "hub", "engine"} <= areas
