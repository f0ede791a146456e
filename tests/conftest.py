"""Shared test fixtures: where the real data lives."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from devtools import DevTools
from hypothesis import settings

# Speed is measured by `make bench`, never asserted: a generated example that takes long on
# a loaded machine is not a failure, so no test runs with hypothesis's per-example deadline.
settings.register_profile("kaeshi", deadline=None)
settings.load_profile("kaeshi")

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("KAESHI_SHARED", ROOT.parent / "shared"))
DATA = SHARED / "data"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"real data not found at {DATA} (set KAESHI_SHARED)")
    return DATA


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DevTools]:
    """One headless Chromium per test module (the web page's and the hub's)."""
    chrome = DevTools(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield chrome
    finally:
        chrome.close()
