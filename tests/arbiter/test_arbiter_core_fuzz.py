"""Whatever a sensor reports, the arbiter answers with events in time order and never crashes."""

from __future__ import annotations

import json
import random

import pytest

from controller.arbiter import Arbiter, ArbiterConfig
from controller.observation import Observation
from controller.position import Position
from controller.squares import Color


@pytest.mark.parametrize("seed", range(12))
def test_random_streams(seed):
    rng = random.Random(seed)
    for _ in range(25):
        arbiter = Arbiter(ArbiterConfig(clock=rng.choice([True, False, None]),
                                        draws_allowed=rng.random() < 0.5))
        cells = list(Position.start().board_string())
        t = 0.0
        events = []
        for _ in range(rng.randint(5, 150)):
            t += 0.1
            if rng.random() < 0.15:
                obs = Observation(t, press=rng.choice([Color.BLACK, Color.WHITE]))
            else:
                for _ in range(rng.randint(1, 3)):
                    alphabet = "-XO?xo" if rng.random() < 0.3 else "-XO"
                    cells[rng.randrange(64)] = rng.choice(alphabet)
                obs = Observation(t, board="".join(cells))
            for _ in range(rng.choice((1, 2))):
                events += arbiter.feed(obs)
        events += arbiter.finish(t)
        assert [e.t for e in events] == sorted(e.t for e in events)
        for e in events:
            json.loads(e.to_json())
        arbiter.overlay()
        arbiter.record()
