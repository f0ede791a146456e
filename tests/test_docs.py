"""The README is a short front door, every link in it and in docs/ leads somewhere, and
docs/architecture.md stays true: the paths it cites exist, and a recipe with an example
commit lists exactly the files that commit touched."""

from __future__ import annotations

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
    paths before its first colon (``NAME`` a wildcard; a step naming no path, "the docs
    page of that subject", any page of docs/)."""
    patterns = []
    for step in STEP.findall(section):
        clauses = [c for c in re.split(r";\s+", " ".join(step.split())) if c]
        named = False
        for clause in clauses:
            head = clause.split(": ", 1)[0] if ": " in clause else ""
            for path in PATH.findall(head):
                patterns.append(path.replace("NAME", "*"))
                named = True
        if not named:
            patterns.append("docs/*.md")
    return patterns


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


def _git_files(commit: str) -> list[str] | None:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "show", "--no-renames", "--name-only",
                              "--format=", commit], capture_output=True, text=True,
                             check=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return [line for line in out.stdout.splitlines() if line]


RECIPES_WITH_EXAMPLES = {title: m.group(1) for title, body in _recipes().items()
                         if (m := EXAMPLE.search(body))}


def test_the_recipes_that_matter_most_name_an_example() -> None:
    assert {"Adding an LED driver", "Adding a clock display",
            "Adding a `kaeshi` subcommand"} <= set(RECIPES_WITH_EXAMPLES)


@pytest.mark.parametrize(("title", "commit"), sorted(RECIPES_WITH_EXAMPLES.items()))
def test_a_recipe_lists_exactly_the_files_its_example_touched(title: str, commit: str) -> None:
    touched = _git_files(commit)
    if touched is None:
        pytest.skip(f"the history holding {commit} is not in this checkout")
    patterns = _touched_by_steps(_recipes()[title])
    unlisted = [f for f in touched if not any(fnmatch.fnmatch(f, p) for p in patterns)]
    unused = [p for p in patterns if not any(fnmatch.fnmatch(f, p) for f in touched)]
    assert not unlisted, f"{title}: {commit} touched files no step names: {unlisted}"
    assert not unused, f"{title}: steps name files {commit} did not touch: {unused}"
