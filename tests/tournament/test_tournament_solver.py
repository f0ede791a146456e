"""The exact search (``controller.tournament.solver.Search``): the optimum the blossom
reference finds, on its own explicit stack whatever the pool's size."""

from __future__ import annotations

import inspect
import random
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tournament_pairing import pools

from controller.tournament.model import Entrant
from controller.tournament.pairing import describe, pairing_key
from controller.tournament.solver import Problem, blossom, search


@settings(max_examples=120, deadline=None)
@given(pools(max_size=20), st.sampled_from(["lowest", "highest"]))
def test_the_search_finds_the_reference_solvers_optimum(entrants, prefer):
    """Given room, the search itself (not the fallback) ends on the blossom's key."""
    p = Problem(entrants, prefer)
    found = search(p, 10**6)
    assert found is not None
    mine = describe(p, found, "search")
    exact = describe(p, blossom(p), "blossom")
    assert pairing_key(entrants, mine.pairs, prefer) == pairing_key(entrants, exact.pairs,
                                                                     prefer)


def _big_pool(n: int, seed: int) -> list[Entrant]:
    rng = random.Random(seed)
    wins = sorted((rng.randrange(0, 5) for _ in range(n)), reverse=True)
    return [Entrant(f"p{k}", w, False, frozenset()) for k, w in enumerate(wins)]


def test_a_deep_search_runs_under_a_low_recursion_limit_and_leaves_it_alone(monkeypatch):
    """A pool of 601 is 301 pairs deep; the search neither recurses that deep nor
    touches the process's recursion limit (the hub's web server shares it)."""
    p = Problem(_big_pool(601, seed=3), "lowest")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack()) + 120)
    calls: list[int] = []
    monkeypatch.setattr(sys, "setrecursionlimit", calls.append)
    try:
        found = search(p, 10**6)
    finally:
        monkeypatch.undo()
        sys.setrecursionlimit(limit)
    assert calls == []
    assert found is not None and len(found) == 301
    assert sorted(k for pair in found for k in pair) == list(range(602))


@pytest.mark.parametrize("budget", [1, 50])
def test_a_budget_too_small_gives_none(budget):
    entrants = _big_pool(40, seed=1)
    entrants = [Entrant(e.name, e.wins, e.had_bye,
                        frozenset(x.name for x in entrants if x.name != e.name))
                for e in entrants]  # everyone has met everyone: the search must work
    assert search(Problem(entrants, "lowest"), budget) is None
