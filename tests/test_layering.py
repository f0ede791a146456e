"""The package boundaries the project's layout promises, checked on the source.

The synthetic renderer is test and demo equipment: a reading module that imported
it could come to depend on how the pictures it is measured on are drawn, and the
figures would stop meaning anything for a real camera.
"""

from __future__ import annotations

import ast
from pathlib import Path

import networkx as nx
from mirrored import (
    MIRRORED_PACKAGES,
    NOT_YET_MIRRORED,
    map_mistakes,
    unmirrored_modules,
    unnamed_test_files,
)

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


def test_every_module_of_a_mirrored_package_is_found_from_its_name() -> None:
    """A maintainer looking for a module's tests finds them by its name, or finds in
    ``tests/mirrored.py`` which tests exercise it and why it has none of its own."""
    missing, stale = unmirrored_modules(ROOT)
    assert missing == [], "no test file named after these modules, nor a TESTED_THROUGH line"
    assert stale == [], "these have their own test file: their TESTED_THROUGH line goes"


def test_every_test_file_of_a_mirrored_folder_names_its_module() -> None:
    """The other way round: a test file in a mirrored folder leads to the module it tests."""
    assert unnamed_test_files(ROOT) == []


def test_the_mirror_map_names_what_exists() -> None:
    """Every module and test file ``tests/mirrored.py`` names exists, so the map cannot
    go on vouching for a test that was renamed or a module that was removed."""
    assert map_mistakes(ROOT) == []


def test_every_package_is_mirrored_or_waits_for_it_by_name() -> None:
    """A new package is placed on purpose: its tests mirror it, or it waits in the list."""
    packages = sorted(".".join(p.parent.relative_to(ROOT).parts)
                      for root in ("controller", "calibration")
                      for p in (ROOT / root).rglob("__init__.py"))
    placed = [*MIRRORED_PACKAGES, *NOT_YET_MIRRORED]
    assert len(placed) == len(set(placed))
    assert sorted(p for p in packages if p != "controller") == sorted(placed)


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


# ---------------------------------------------------------------- the board's size
# The board's size is defined once: no bare 8 or 64 standing for the board elsewhere.
# A board of another size (6x6, 10x10) works wherever the size is taken from the data;
# a written-out 8 or 64 is where it silently would not. The scan reads every number in
# the code (not in strings or comments) and allows an 8 or a 64 only in the size's own
# definition (DEFINITIONS), where the number means something else, counted per file
# with the reason (NOT_THE_BOARD: a new board-size literal in such a file changes the
# count), and in the parts listed in EXEMPT for now, each with why.
SCANNED = ("controller", "calibration")
LITERALS = (8, 64)

#: Not scanned yet, and why.
EXEMPT = {
    "calibration/hall": "the Hall-sensor board's calibration: its sensor grid is the 8x8 "
                        "hardware's (the scans' 64 readings, the panel picture's 8 columns)",
    "controller/engine/patterns.py": "the evaluation learned from WTHOR's games, which are "
                                     "all 8x8; other sizes use square weights",
}
#: The size's own definition.
DEFINITIONS = {
    "controller/boardsize.py": "the board sizes and the standard one",
    "controller/bitboard.py": "the hand-written 8x8 kernels: a row of 8 is their shift",
    "controller/hall/messages.py": "the sensor grid's squares, generated from the firmware "
                                   "configuration (firmware/protocol/messages.toml)",
}
#: Files where an 8 or a 64 means something else: how many, and what.
NOT_THE_BOARD: dict[str, tuple[int, str]] = {
    "controller/browser/session.py": (1, "clock-sync pings sent at the quick rate"),
    "controller/clockhw/display.py": (1, "the TM1637's middle segment bit (0x40)"),
    "controller/clockhw/ht16k33.py": (1, "the HT16K33's RAM address of the fourth digit"),
    "controller/clockhw/tm1637.py": (2, "the TM1637's auto-increment command; bits in a byte"),
    "controller/commands/hub.py": (1, "tables in a simulated hall"),
    "controller/engine/search.py": (3, "the weight of a move of mobility (8x8 and other "
                                    "sizes); the novice level's endgame of 8 empties"),
    "controller/hall/frames.py": (1, "a byte's shift in the CRC"),
    "controller/hall/leds.py": (1, "colours in the sensor board's palette"),
    "controller/hub/admission.py": (1, "games one trouble report names"),
    "controller/hub/sim_event.py": (1, "standings lines printed"),
    "controller/hub/sim_summary.py": (1, "tables in a simulated hall"),
    "controller/hub/store_games.py": (1, "unannounced games kept"),
    "controller/leds/ws2812.py": (3, "bits of a colour byte"),
    "controller/service/core.py": (1, "squares a hand may hide at the start"),
    "controller/service/salvage.py": (1, "bytes of a journal page header"),
    "controller/simulator/move.py": (1, "draws of a faulty disc before the move is played "
                                     "clean"),
    "controller/strictjson.py": (1, "how deep a page's JSON may nest"),
    "controller/symmetry.py": (1, "the square's eight symmetries"),
    "controller/tournament/awards.py": (1, "places that win a title (王座)"),
    "controller/tournament/knockout.py": (3, "slots of a knockout group"),
    "controller/tournament/toss.py": (1, "the kanji 八"),
    "controller/tournament_store/formats.py": (1, "a date's characters"),
    "controller/tournament_store/simulate.py": (1, "dan ranks"),
    "controller/web/gate.py": (3, "connections kept in reserve, file descriptors kept "
                                  "free, and the least cap"),
    "controller/vision/annotate.py": (1, "pixels from the a1 dot to its label"),
    "controller/vision/calibrating/discs.py": (2, "the light start discs' least distance "
                                               "apart in pixels; canvas pixels per square"),
    "controller/vision/calibrating/judge.py": (1, "squares a grid taken at once may leave "
                                               "unread"),
    "controller/vision/capture.py": (1, "frames stacked for a settled picture"),
    "controller/vision/cv.py": (2, "8-connected components"),
    "controller/vision/finding/felt.py": (1, "grey levels added to green chroma's divisor"),
    "controller/vision/finding/grid.py": (1, "refinement rounds at the most"),
    "controller/vision/reading/uncentred.py": (1, "placed discs located per frame for the "
                                               "locating noise"),
    "controller/synth/board.py": (2, "texture pixels per square; a frame's colour taken an "
                                  "eighth of a square in"),
    "controller/synth/light.py": (2, "the light map at an eighth of the picture's size"),
    "controller/synth/scene.py": (3, "an easy scene's rotation of up to 8 degrees; a camera "
                                  "8 to 20 squares away"),
    "controller/synth/textures.py": (5, "noise scales in pixels; a felt's colour spread in "
                                     "grey levels"),
    "calibration/advice.py": (2, "unread squares from which advice is given; squares "
                              "named in one piece of advice"),
    "controller/web/guard.py": (2, "a request body's 64 KiB; an IPv6 /64 network"),
    "controller/web/server.py": (1, "fields of a login form"),
    "controller/web/tls.py": (1, "the longest common name a certificate may carry"),
    "controller/web/tokens.py": (2, "a token's bits and distinct characters"),
}


def size_literals(path: Path) -> list[int]:
    """Lines of ``path`` holding a number 8 or 64 in the code."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return sorted(node.lineno for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and type(node.value) in (int, float)
                  and node.value in LITERALS)


def _size_scanned() -> list[Path]:
    out = []
    for top in SCANNED:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if not any(rel == e or rel.startswith(e + "/") for e in EXEMPT):
                out.append(path)
    return out


def test_the_scan_finds_a_board_literal_and_skips_strings(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text('x = "8x8"  # 64 squares\ny = 64\nz = [0] * 8 * 8\nw = 0x40\n')
    assert size_literals(source) == [2, 3, 3, 4]


def test_no_board_size_literal_outside_its_definition() -> None:
    found: dict[str, list[int]] = {}
    for path in _size_scanned():
        rel = path.relative_to(ROOT).as_posix()
        if rel in DEFINITIONS:
            continue
        lines = size_literals(path)
        allowed = NOT_THE_BOARD.get(rel, (0, ""))[0]
        if len(lines) != allowed:
            found[rel] = lines
    assert found == {}, (
        "an 8 or 64 written out where the board size should come from the data "
        "(controller.boardsize), or an entry of NOT_THE_BOARD to update: "
        + ", ".join(f"{f} lines {ls}" for f, ls in sorted(found.items())))


def test_every_file_the_size_scan_lists_exists() -> None:
    for rel in (*EXEMPT, *DEFINITIONS, *NOT_THE_BOARD):
        assert (ROOT / rel).exists(), rel
