"""How a game is run (``config``): what the configuration refuses, and who wins a drawn
game under each draw rule."""

from __future__ import annotations

import pytest

from controller.arbiter import ArbiterConfig
from controller.position import Position
from controller.squares import Color


def test_an_unsupported_size_is_refused_by_the_config():
    with pytest.raises(ValueError, match="unsupported board size 7"):
        ArbiterConfig(start=Position(0, 0, Color.BLACK, 7))
