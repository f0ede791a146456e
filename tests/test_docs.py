"""The README is a short front door, every link in it and in docs/ leads somewhere, and
docs/architecture.md stays true: the paths it cites exist, and a recipe with an example
commit lists exactly the files that commit touched, as today's tree holds them."""

from __future__ import annotations

import ast
import fnmatch
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchor(heading: str) -> str:
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    found = set()
    in_code = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = re.match(r"^#+ (.*)", line)
        if m and not in_code:
            found.add(_anchor(m.group(1)))
    return found


def test_the_readme_is_a_short_front_door() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines; move detail into docs/"
    text = "\n".join(lines)
    assert "make demo" in text and "make test" in text


def test_every_docs_page_is_reachable_from_the_readme() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for page in PAGES[1:]:
        assert f"docs/{page.name}" in readme, f"docs/{page.name} is not linked from README.md"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target} (no such file)")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target} (no heading '{anchor}')")
    assert not broken, f"{page.relative_to(ROOT)}: " + ", ".join(broken)


def test_the_screenshot_script_loads_against_the_tests_it_drives() -> None:
    """The docs' screenshots are made from the browser tests' own set-ups: when those
    move or are renamed, the script must still find them."""
    import importlib.util
    import sys

    script = ROOT / "docs" / "screenshots" / "make.py"
    spec = importlib.util.spec_from_file_location("kaeshi_screenshots", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    saved = list(sys.path)
    try:
        spec.loader.exec_module(module)
        # the imports each page's function makes when it runs, resolved now
        for node in ast.walk(ast.parse(script.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.col_offset > 0:
                found = importlib.import_module(node.module)
                missing = [a.name for a in node.names if not hasattr(found, a.name)]
                assert not missing, f"make.py line {node.lineno}: {node.module} lacks {missing}"
    finally:
        sys.path[:] = saved
    assert callable(module.main) and callable(module.table_pages)
    assert callable(module.tournament_pages)
    shots = {p.name for p in (ROOT / "docs" / "screenshots").glob("*.png")}
    shown = set()
    for page in PAGES:
        shown.update(re.findall(r"screenshots/([\w-]+\.png)", page.read_text(encoding="utf-8")))
    assert shown and shown <= shots


# ------------------------------------------------------------ docs/architecture.md
GUIDE = ROOT / "docs" / "architecture.md"
PATH = re.compile(r"`([\w./-]+/[\w./-]*|[\w-]+\.(?:md|toml|py))`")
EXAMPLE = re.compile(r"^Example: commit `([0-9a-f]{7,40})`", re.MULTILINE)
STEP = re.compile(r"^\d+\. (.*?)(?=^\d+\. |\Z)", re.MULTILINE | re.DOTALL)


def _recipes() -> dict[str, str]:
    text = GUIDE.read_text(encoding="utf-8")
    part = text[text.index("## Recipes"):]
    sections = re.split(r"^### ", part, flags=re.MULTILINE)[1:]
    return {s.splitlines()[0].strip(): s for s in sections}


def _touched_by_steps(section: str) -> list[str]:
    """The files a recipe's steps say the change touches: in each clause of a step, the
    paths before its first colon (``NAME`` the name of the thing added, see ``_names``;
    a step naming no path, "the docs page of that subject", any page of docs/)."""
    patterns = []
    for step in STEP.findall(section):
        clauses = [c for c in re.split(r";\s+", " ".join(step.split())) if c]
        named = False
        for clause in clauses:
            head = clause.split(": ", 1)[0] if ": " in clause else ""
            for path in PATH.findall(head):
                patterns.append(path)
                named = True
        if not named:
            patterns.append("docs/*.md")
    return patterns


def _matches(pattern: str, path: str) -> bool:
    return fnmatch.fnmatch(path, pattern.replace("NAME", "*"))


def _names(pattern: str, paths: list[str]) -> set[str]:
    """What ``NAME`` stands for in the paths ``pattern`` matches. Among the files no step
    names outright it must stand for one name, so that ``tests/leds/test_leds_NAME.py``
    cannot quietly cover another test file of the folder that the steps forgot to name."""
    shape = re.compile(re.escape(pattern).replace("NAME", "(.+)"))
    return {m.group(1) for path in paths if (m := shape.fullmatch(path))}


def _exists(path: str) -> bool:
    """A path from the root, or one written from its package as the guide's prose does
    (``watching/grid_guard.py`` inside the camera's flow): it must be found somewhere."""
    path = path.rstrip("/")
    return (ROOT / path).exists() or any(
        found.relative_to(ROOT).as_posix().endswith("/" + path)
        for top in ("controller", "tests") for found in (ROOT / top).rglob(Path(path).name))


def test_every_path_the_guide_cites_exists() -> None:
    text = GUIDE.read_text(encoding="utf-8")
    missing = sorted({p for p in PATH.findall(text) if "NAME" not in p and not _exists(p)})
    assert not missing, f"docs/architecture.md cites paths that do not exist: {missing}"


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                             check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout


def _git_files(commit: str) -> list[str] | None:
    out = _git("show", "--no-renames", "--name-only", "--format=", commit)
    return None if out is None else [line for line in out.splitlines() if line]


#: Test files an example commit touched that were split by module since: (example, the
#: file it touched) -> (the commit that split that file, the files that hold today what
#: the example wrote there). A recipe tells the next engineer where things go in today's
#: tree, so its steps are checked against its example with these files in the old one's
#: place; each line is itself checked against the history
#: (``test_a_split_file_is_replaced_by_the_files_holding_what_the_example_wrote``).
SPLIT_SINCE: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("b6562a9", "tests/leds/test_leds_drivers.py"):
        ("136454f", ("tests/leds/test_leds_apa102.py", "tests/leds/test_leds_strip.py")),
    ("0370b6b", "tests/clock/test_clockhw_hardware.py"):
        ("136454f", ("tests/clock/test_clockhw_ht16k33.py",)),
}


def _as_today(commit: str, touched: list[str]) -> list[str]:
    """The files ``commit`` touched, each split since replaced by those now holding its part."""
    today: list[str] = []
    for path in touched:
        today.extend(SPLIT_SINCE.get((commit, path), ("", (path,)))[1])
    return today


RECIPES_WITH_EXAMPLES = {title: m.group(1) for title, body in _recipes().items()
                         if (m := EXAMPLE.search(body))}


def test_the_recipes_that_matter_most_name_an_example() -> None:
    assert {"Adding an LED driver", "Adding a clock display",
            "Adding a `kaeshi` subcommand"} <= set(RECIPES_WITH_EXAMPLES)


@pytest.mark.parametrize(("title", "commit"), sorted(RECIPES_WITH_EXAMPLES.items()))
def test_a_recipe_lists_exactly_the_files_its_example_touched(title: str, commit: str) -> None:
    """Every file the example touched (as today's tree holds it) is named by a step and
    every step names one; a file a step names outright is not also what a ``NAME`` stands for."""
    touched = _git_files(commit)
    if touched is None:
        pytest.skip(f"the history holding {commit} is not in this checkout")
    touched = _as_today(commit, touched)
    patterns = _touched_by_steps(_recipes()[title])
    unlisted = [f for f in touched if not any(_matches(p, f) for p in patterns)]
    outright = [p for p in patterns if "NAME" not in p]
    left = [f for f in touched if not any(_matches(p, f) for p in outright)]
    unused = [p for p in patterns
              if not any(_matches(p, f) for f in (left if "NAME" in p else touched))]
    several = {p: sorted(names) for p in patterns
               if "NAME" in p and len(names := _names(p, left)) > 1}
    assert not unlisted, f"{title}: {commit} touched files no step names: {unlisted}"
    assert not unused, f"{title}: steps name files {commit} did not touch: {unused}"
    assert not several, f"{title}: a NAME stands for more than one file of {commit}: {several}"


DEFINED = re.compile(r"^\+(?:async def|def|class) (\w+)", re.MULTILINE)


def _defines(path: str, name: str) -> bool:
    file = ROOT / path
    return file.is_file() and re.search(rf"^(?:async def|def|class) {name}\b",
                                        file.read_text(encoding="utf-8"), re.MULTILINE) is not None


@pytest.mark.parametrize(("example", "old"), sorted(SPLIT_SINCE))
def test_a_split_file_is_replaced_by_the_files_holding_what_the_example_wrote(
        example: str, old: str) -> None:
    """A line of ``SPLIT_SINCE`` cannot excuse a recipe: the example touched the old file,
    the split commit touched it and each new one, every function and class the example
    wrote there is defined today in a new one and no longer in the old, and each new one
    holds at least one of them."""
    split, new = SPLIT_SINCE[(example, old)]
    touched = _git_files(example)
    if touched is None:
        pytest.skip(f"the history holding {example} is not in this checkout")
    assert example in RECIPES_WITH_EXAMPLES.values(), f"no recipe's example is {example}"
    assert old in touched, f"{example} did not touch {old}"
    by_split = _git_files(split)
    assert by_split is not None, f"{split}, said to have split {old}, is not in the history"
    untouched = sorted({old, *new} - set(by_split))
    assert not untouched, f"{split} did not touch {untouched}"
    written = DEFINED.findall(_git("show", "--no-renames", "--format=", example, "--", old) or "")
    assert written, f"{example} defined nothing in {old} to follow"
    homes = {name: [path for path in new if _defines(path, name)] for name in written}
    assert all(homes.values()), f"not defined in {new}: {[n for n, h in homes.items() if not h]}"
    assert not [n for n in written if _defines(old, n)], f"{old} still defines some of {written}"
    empty = [path for path in new if not any(path in h for h in homes.values())]
    assert not empty, f"{empty} hold nothing {example} wrote in {old}"
