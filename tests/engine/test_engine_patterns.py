"""The learned pattern evaluation: shipped, symmetric as the board is, and trained
reproducibly from WTHOR games with the project's own reader."""

from __future__ import annotations

import numpy as np
import pytest
from test_engine_search import random_position

from controller.engine.patterns import (
    DATA_FILE,
    PHASES,
    SIZE,
    PatternEvaluator,
    load_evaluator,
    transpose,
)
from controller.records import load_games


def mirror_rows(x: int) -> int:
    return int.from_bytes(x.to_bytes(8, "little"), "big")


def mirror_cols(x: int) -> int:
    out = 0
    for r in range(8):
        row = x >> (8 * r) & 255
        out |= int(f"{row:08b}"[::-1], 2) << (8 * r)
    return out


def symmetries(x: int) -> list[int]:
    out = []
    for t in (False, True):
        y = transpose(x) if t else x
        for v in (False, True):
            z = mirror_rows(y) if v else y
            out.extend([z, mirror_cols(z)])
    return out


def test_the_shipped_weights_load_and_are_small():
    ev = load_evaluator()
    assert isinstance(ev, PatternEvaluator)
    assert DATA_FILE.stat().st_size < 400_000
    assert len(ev.weights) == PHASES and all(len(w) == SIZE for w in ev.weights)


@pytest.mark.parametrize("seed", range(5))
def test_a_position_scores_the_same_under_every_symmetry_of_the_board(seed):
    ev = load_evaluator()
    pos = random_position(400 + seed, 20 + 6 * seed)
    scores = {round(ev(p, o), 6) for p, o in zip(symmetries(pos.mover),
                                                  symmetries(pos.other), strict=True)}
    assert len(scores) == 1
    assert scores != {0.0}


def test_corner_and_mobility_are_learned_the_way_round_an_othello_player_knows():
    ev = load_evaluator()
    corner = 1 << 0
    pos = next(pos for pos in (random_position(seed, 30) for seed in range(11, 60))
               if not (pos.black | pos.white) & corner)
    p, o = pos.mover, pos.other
    # the same position with a corner disc of the mover's is better than the opponent's
    assert ev(p | corner, o) > ev(p, o | corner)


def test_training_is_reproducible_and_fits_held_out_games(data_dir):
    from training.train_patterns import canonical, examples, fit, held_out, rmse

    records = load_games(data_dir / "games" / "wthor" / "WTH_2001.wtb")[:300]
    canon = canonical()
    # the canonical twin of a line is its reverse: both share one weight
    assert (canon[canon] == canon).all()
    train = examples(records, lambda i: not held_out(i))
    test = examples(records, held_out)
    idx, mob, y = (np.array(a) for a in train[3])
    w1 = fit(idx, mob.astype(float), y.astype(float), canon, 10.0, 40)
    w2 = fit(idx, mob.astype(float), y.astype(float), canon, 10.0, 40)
    assert np.array_equal(w1, w2)
    tidx, tmob, ty = (np.array(a) for a in test[3])
    pred = w1[tidx].sum(axis=1) + tmob * w1[-2] + w1[-1]
    assert rmse(pred, ty) < rmse(np.zeros_like(pred), ty)
    assert all(len(row) == 38 for row in train[3][0])
