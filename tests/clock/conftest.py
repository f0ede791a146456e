"""The ``rig`` every clock hardware test may ask for (``clockhw_support.Rig``), its pins
released after the test so that the next one claims them afresh."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from clockhw_support import Rig


@pytest.fixture
def rig() -> Iterator[Rig]:
    r = Rig()
    yield r
    r.hw.close()
    r.factory.reset()
