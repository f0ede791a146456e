"""The README is a short front door, and every link in it and in docs/ leads somewhere."""

from __future__ import annotations

import re
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
