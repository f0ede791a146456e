"""The package boundaries the project's layout promises, checked on the source.

The synthetic renderer is test and demo equipment: a reading module that imported
it could come to depend on how the pictures it is measured on are drawn, and the
figures would stop meaning anything for a real camera.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx

ROOT = Path(__file__).resolve().parent.parent
VISION = ROOT / "controller" / "vision"
#: The camera reader's floors: a module imports vision modules of its own floor or
#: lower, so finding builds on reading, calibrating and watching on both, and the
#: plain helpers at the bottom know none of them.
FLOORS = {
    "cv": 0, "colour": 0, "geometry": 0, "sampling": 0, "capture": 0, "places": 0,
    "reading": 1,
    "finding": 2,
    "setup": 3, "calibration_file": 3, "pipeline": 3, "annotate": 3,
    "calibrating": 4,
    "watching": 5,
}


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_imported_modules_sees_imports_inside_functions(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from controller.synth.picture import render\n")
    assert "controller.synth.picture" in imported_modules(source)


def _vision_part(module: str) -> str | None:
    """The floor name of a ``controller.vision`` module (its sub-package, or itself)."""
    parts = module.split(".")
    if parts[:2] != ["controller", "vision"] or len(parts) < 3:
        return None
    return parts[2]


def test_no_reading_module_imports_the_renderer_or_the_measuring_harness() -> None:
    readers = sorted(VISION.rglob("*.py"))
    assert len(readers) > 30  # the reader is where this test thinks it is
    leaks = {str(p.relative_to(VISION)): sorted(
        m for m in imported_modules(p)
        if m.split(".")[:2] in (["controller", "synth"], ["controller", "measure"]))
        for p in readers}
    assert {name: mods for name, mods in leaks.items() if mods} == {}


def test_the_camera_reader_imports_down_its_floors_only() -> None:
    upward = {}
    for path in sorted(VISION.rglob("*.py")):
        rel = path.relative_to(VISION)
        if rel.name == "__init__.py" and len(rel.parts) == 1:
            continue
        own = FLOORS[rel.parts[0] if len(rel.parts) > 1 else rel.stem]
        above = sorted(m for m in imported_modules(path)
                       if (part := _vision_part(m)) in FLOORS and FLOORS[part] > own)
        if above:
            upward[str(rel)] = above
    assert upward == {}


def test_the_renderer_stands_apart_from_the_reader() -> None:
    assert not list(VISION.rglob("synth*.py")) and not list(VISION.rglob("evaluation*.py"))
    assert (ROOT / "controller" / "synth" / "picture.py").is_file()
    assert (ROOT / "controller" / "measure" / "evaluation.py").is_file()


def _package_files(name: str) -> list[Path]:
    return sorted((ROOT / name).rglob("*.py"))


def test_the_running_package_never_imports_the_calibration_tools_or_training() -> None:
    """``calibration/`` makes calibrations and ``training/`` trains the square model;
    both use ``controller``, and the service must run without either."""
    files = _package_files("controller")
    assert len(files) > 100
    upward = {str(p.relative_to(ROOT)): sorted(
        m for m in imported_modules(p)
        if m.split(".")[0] in {"calibration", "training", "benchmarks", "tests"})
        for p in files}
    assert {name: mods for name, mods in upward.items() if mods} == {}


def test_training_is_not_installed_with_the_package() -> None:
    import tomllib

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    include = meta["tool"]["setuptools"]["packages"]["find"]["include"]
    assert not any(pattern.startswith("training") for pattern in include)
    assert not (ROOT / "calibration" / "train_squares.py").exists()


def test_tests_mirror_the_packages() -> None:
    """A package's tests live in the folder named after it; only the tests of the
    whole tree (benchmarks, command line, docs, layering) stay at the top."""
    top = sorted(p.name for p in (ROOT / "tests").glob("test_*.py"))
    assert top == ["test_benchmarks.py", "test_cli.py", "test_docs.py", "test_layering.py"]
    for folder in (p for p in (ROOT / "tests").iterdir() if p.is_dir() and
                   not p.name.startswith((".", "__"))):
        tests = list(folder.glob("test_*.py"))
        assert tests, f"tests/{folder.name}/ holds no tests"


def test_the_tournament_and_the_arbiter_never_reach_an_engine() -> None:
    """Rule 21: nothing that runs or judges a tournament game can consult an engine."""
    pure = [*(ROOT / "controller" / "arbiter").glob("*.py"),
            *(ROOT / "controller" / "tournament").glob("*.py"),
            ROOT / "controller" / "position.py", ROOT / "controller" / "clock.py"]
    reach = {p.name: sorted(m for m in imported_modules(p) if m.startswith("controller.engine"))
             for p in pure}
    assert {name: mods for name, mods in reach.items() if mods} == {}


def test_the_engine_search_and_protocol_do_no_io() -> None:
    """The search and the protocol lines are pure; only process.py starts a child."""
    engine = ROOT / "controller" / "engine"
    io = {"subprocess", "socket", "threading", "asyncio", "os", "time"}
    for name in ("search.py", "protocol.py", "home.py"):
        assert not imported_modules(engine / name) & io, name
    starters = [p.name for p in engine.glob("*.py") if "subprocess" in imported_modules(p)]
    assert starters == ["process.py"]


def import_graph(root: Path, packages: tuple[str, ...]) -> nx.DiGraph:
    """Module -> module it imports, over ``packages`` under ``root``: every import, at
    the top, inside a function or under ``TYPE_CHECKING``. ``from pkg import mod`` is
    an import of the submodule ``mod`` only, so a package's ``__init__`` that names
    its own submodules does not tie them back to itself."""
    files: dict[str, Path] = {}
    for package in packages:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            files[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = nx.DiGraph()
    graph.add_nodes_from(files)

    def known(name: str) -> str | None:  # the module itself, or its nearest package
        while name and name not in files:
            name = name.rpartition(".")[0]
        return name or None

    for name, path in files.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [known(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    here = name if path.name == "__init__.py" else name.rpartition(".")[0]
                    up = here.split(".")[: len(here.split(".")) - node.level + 1]
                    base = ".".join([*up, base] if base else up)
                for alias in node.names:
                    sub = f"{base}.{alias.name}"
                    targets.append(sub if sub in files else known(base))
            graph.add_edges_from((name, t) for t in targets if t is not None and t != name)
    return graph


def test_the_import_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from pkg import a, b\n")
    (pkg / "a.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                              "    from pkg.b import B\n")
    (pkg / "b.py").write_text("def f():\n    import pkg.c\n")
    (pkg / "c.py").write_text("from . import a\n")
    (pkg / "d.py").write_text("from pkg import VALUE\n")  # a name: the package itself
    graph = import_graph(tmp_path, ("pkg",))
    assert set(graph.edges) == {("pkg", "pkg.a"), ("pkg", "pkg.b"), ("pkg.a", "pkg.b"),
                                ("pkg.b", "pkg.c"), ("pkg.c", "pkg.a"), ("pkg.d", "pkg")}
    assert _cycles(graph) == [["pkg.a", "pkg.b", "pkg.c"]]


def _cycles(graph: nx.DiGraph) -> list[list[str]]:
    return sorted(sorted(c) for c in nx.strongly_connected_components(graph) if len(c) > 1)


def test_no_import_cycles_in_the_packages() -> None:
    """Every module of ``controller`` and ``calibration`` can be read, and changed, from
    the bottom up: no two modules need each other, not even only for type hints."""
    graph = import_graph(ROOT, ("controller", "calibration"))
    assert graph.number_of_nodes() > 200 and graph.number_of_edges() > 500
    assert _cycles(graph) == []


def _imports_under(folder: Path) -> dict[str, list[str]]:
    return {str(p.relative_to(ROOT)): sorted(imported_modules(p))
            for p in sorted(folder.rglob("*.py"))}


def test_the_table_never_imports_the_hub() -> None:
    """A table runs without the hall: the service and its link to the hub use only the
    hall's protocol (``controller.hall_protocol``), which belongs to neither side."""
    table = {**_imports_under(ROOT / "controller" / "service"),
             **_imports_under(ROOT / "controller" / "table_link")}
    assert len(table) > 20
    reach = {name: [m for m in mods if m == "controller.hub" or m.startswith("controller.hub.")]
             for name, mods in table.items()}
    assert {name: mods for name, mods in reach.items() if mods} == {}
    assert any("controller.table_link.link" in mods for mods in table.values())


def test_the_hall_protocol_belongs_to_neither_side() -> None:
    sides = ("controller.hub", "controller.service", "controller.table_link")
    reach = {name: [m for m in mods if m.startswith(sides)]
             for name, mods in _imports_under(ROOT / "controller" / "hall_protocol").items()}
    assert {name: mods for name, mods in reach.items() if mods} == {}
