"""Random whole events (hypothesis): every pairing is the optimum the rules ask for,
everybody active plays exactly once a round, and the incremental standings equal
standings recomputed from scratch."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.tournament import Player, Tournament
from controller.tournament import flow as flow_module
from controller.tournament.pairing import describe, pairing_key
from controller.tournament.solver import Problem, blossom

ORACLE_LIMIT = 14  # pools up to this size are re-solved by the blossom oracle
REAL_PAIR_POOL = flow_module.pair_pool  # taken before any test wraps it


def _cost(entrants, pairs, prefer):
    second, rematch, diffs, _ = pairing_key(entrants, pairs, prefer)
    return second, rematch, diffs


def run_event(division: str, players: int, seed: int, monkeypatch) -> tuple[int, int]:
    rng = random.Random(seed)
    absent = rng.randrange(0, 3) if division == "open" else 0
    names = [f"q{k}" for k in range(players + absent)]
    away = set(rng.sample(names, absent))
    seeds = rng.sample(range(1, 5), min(4, players)) if division == "open" else []
    roster = []
    for k, n in enumerate(names):
        seed_no = seeds[k] if k < len(seeds) and n not in away else None
        roster.append(Player(n, rank=rng.choice(["", "3段", "1級"]), seed=seed_no,
                             absent=n in away))
    t = Tournament(roster, division, extend=True)
    t.draw_lottery([str(rng.randrange(100000)) for _ in range(3)])

    pools: list = []
    def spy(entrants, prefer="lowest", budget_nodes=None):
        result = REAL_PAIR_POOL(entrants, prefer, budget_nodes)
        pools.append((list(entrants), prefer, result))
        return result

    monkeypatch.setattr(flow_module, "pair_pool", spy)
    checked = 0
    rounds = 0
    while not t.finished:
        pools.clear()
        rnd = t.pair_next_round()
        rounds += 1
        active = {n for n in t.present if n not in t.withdrawn}
        seen = [g.first for g in rnd.games] + [g.second for g in rnd.games if g.second]
        assert sorted(seen) == sorted(active), f"round {rnd.number}"
        for entrants, prefer, result in pools:
            got = _cost(entrants, result.pairs, prefer)
            assert result.rematches == got[1] and result.second_byes == got[0]
            if len(entrants) <= ORACLE_LIMIT:
                p = Problem(entrants, prefer)
                best = describe(p, blossom(p), "blossom")
                assert got == _cost(entrants, best.pairs, prefer)
                assert result.pairs == best.pairs  # the top-down order too
                checked += 1
        for g in rnd.games:
            if g.table is None:
                continue
            if rng.random() < 0.3:
                t.record_toss(g.table, rng.choice([g.first, g.second]),
                              rng.choice([g.first, g.second]))
            outcome = rng.choice(["black", "white", "black", "white", "draw"])
            if outcome == "draw" and g.draw_win is None:
                outcome = "black"
            t.record_result(g.table, outcome)
        assert [s.name for s in t.standings()] == [s.name for s in t.standings_from_scratch()]
        assert t.standings() == t.standings_from_scratch()
        if rng.random() < 0.25 and not t.finished:
            candidates = sorted(n for n in active if t.stage_of.get(n) == "placement")
            if candidates:
                t.withdraw(rng.choice(candidates))
    ranking = t.final_ranking()
    assert sorted(ranking) == sorted(t.present)
    return rounds, checked


@pytest.mark.slow
@settings(max_examples=1200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(players=st.integers(1, 48), seed=st.integers(0, 2**32))
def test_random_open_events(players, seed, monkeypatch):
    run_event("open", players, seed, monkeypatch)


@settings(max_examples=500, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(division=st.sampled_from(["women", "children"]), players=st.integers(18, 32),
       seed=st.integers(0, 2**32))
def test_random_knockout_events(division, players, seed, monkeypatch):
    rounds, _ = run_event(division, players, seed, monkeypatch)
    assert rounds == 5
