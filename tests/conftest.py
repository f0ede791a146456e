"""Shared test fixtures: where the real data lives."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from devtools import DevTools

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
