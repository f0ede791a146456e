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


def _runner():
    spec = importlib.util.spec_from_file_location("kaeshi_bench_run", BENCH / "run.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_one_failing_benchmark_is_reported_and_the_rest_still_run(tmp_path, capsys) -> None:
    (tmp_path / "bench_a.py").write_text("def main():\n    raise RuntimeError('broke')\n")
    (tmp_path / "bench_b.py").write_text("def main():\n    print('b ran')\n")
    assert _runner().main([], tmp_path) == 1
    out = capsys.readouterr()
    assert "b ran" in out.out and "benchmarks that failed: a" in out.out
    assert "RuntimeError: broke" in out.err


def test_an_unknown_benchmark_name_is_refused_with_the_known_ones(tmp_path, capsys) -> None:
    (tmp_path / "bench_a.py").write_text("def main():\n    print('a ran')\n")
    assert _runner().main(["nosuch"], tmp_path) == 2
    out = capsys.readouterr().out
    assert "no such benchmark: nosuch" in out and "known: a" in out and "a ran" not in out
