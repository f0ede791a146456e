"""Pairing a pool: the split rule of round 1, and the optimal priority pairing after it."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.tournament.pairing import (
    Entrant,
    describe,
    pair_pool,
    pairing_key,
    split_pairing,
)
from controller.tournament.solver import Problem, blossom


def pool(*specs: tuple[str, int], played: str = "", byes: str = "") -> list[Entrant]:
    """``played`` like "AB CD": pairs who met; ``byes``: names who had a bye."""
    met: dict[str, set[str]] = {name: set() for name, _ in specs}
    for pair in played.split():
        a, b = pair
        met[a].add(b)
        met[b].add(a)
    return [Entrant(name, wins, name in byes, frozenset(met[name])) for name, wins in specs]


def _matchings(items: list):
    if not items:
        yield []
        return
    first = items[0]
    for k in range(1, len(items)):
        for rest in _matchings(items[1:k] + items[k + 1 :]):
            yield [(first, items[k]), *rest]


def brute_force(entrants: list[Entrant], prefer: str):
    names: list = [e.name for e in entrants] + ([None] if len(entrants) % 2 else [])
    best = None
    for m in _matchings(names):
        pairs = [(a, b) if a is not None else (b, a) for a, b in m]
        key = pairing_key(entrants, pairs, prefer)
        if best is None or key < best:
            best = key
    return best


# ---------------------------------------------------------------- round 1
def test_round_one_splits_in_two_and_pairs_largest_with_largest():
    numbers = [("n1", 1), ("n11", 11), ("n15", 15), ("n19", 19), ("n23", 23), ("n27", 27)]
    assert split_pairing(numbers) == (("n27", "n15"), ("n23", "n11"), ("n19", "n1"))


def test_round_one_gives_the_bye_to_the_highest_number_when_odd():
    numbers = [("a", 11), ("b", 12), ("c", 13), ("d", 14), ("e", 15)]
    assert split_pairing(numbers) == (("e", None), ("d", "b"), ("c", "a"))


# ---------------------------------------------------------------- priority pairing
def test_equal_wins_top_meets_lowest_possible():
    entrants = pool(("A", 2), ("B", 2), ("C", 2), ("D", 2))
    assert pair_pool(entrants).pairs == (("A", "D"), ("B", "C"))


def test_new_othello_order_top_meets_highest_possible():
    entrants = pool(("A", 2), ("B", 2), ("C", 2), ("D", 2))
    assert pair_pool(entrants, "highest").pairs == (("A", "B"), ("C", "D"))


def test_two_small_differences_beat_one_equal_pair_and_a_large_difference():
    # A 2, B 1, C 1, D 0: (A–D, B–C) has one equal pair but a 2-win gap; the rules
    # want 1-win gaps wherever possible, and the top player as low as possible: A–C.
    entrants = pool(("A", 2), ("B", 1), ("C", 1), ("D", 0))
    result = pair_pool(entrants)
    assert result.pairs == (("A", "C"), ("B", "D"))
    assert "2 pair(s) with unequal wins, largest difference 1" in result.notes[0]


def test_greedy_dead_end_is_avoided_by_the_optimal_pairing():
    # Six players on equal wins.  D has met B, C and E.  Walking down greedily,
    # A takes F (the lowest), then B–E, leaving C–D, a rematch.  The best pairing
    # without rematches is A–E, B–C, D–F, and it is the first in top-down order.
    entrants = pool(*[(x, 1) for x in "ABCDEF"], played="DB DC DE")
    result = pair_pool(entrants)
    assert result.pairs == (("A", "E"), ("B", "C"), ("D", "F"))
    assert result.rematches == 0 and not result.notes


def test_rematch_only_when_no_pairing_avoids_it():
    entrants = pool(("A", 1), ("B", 1), ("C", 1), ("D", 1), played="AC AD CD BD BC")
    result = pair_pool(entrants)
    assert result.rematches == 1
    assert any("no rematch" in n for n in result.notes)


def test_rematch_is_worse_than_a_win_difference():
    # A and B (2 wins) have met; C and D have 1: A–C/B–D costs two 1-win gaps but no
    # rematch, which the rules put first.
    entrants = pool(("A", 2), ("B", 2), ("C", 1), ("D", 1), played="AB")
    assert pair_pool(entrants).pairs == (("A", "D"), ("B", "C"))


def test_odd_pool_bye_goes_to_the_lowest_without_a_previous_bye():
    entrants = pool(("A", 2), ("B", 1), ("C", 1), ("D", 0), ("E", 0), byes="E")
    result = pair_pool(entrants)
    assert ("D", None) in result.pairs
    assert result.second_byes == 0


def test_second_bye_only_when_unavoidable():
    entrants = pool(("A", 1), ("B", 0), ("C", 0), byes="ABC")
    result = pair_pool(entrants)
    assert result.second_byes == 1
    assert any("second bye" in n for n in result.notes)


def test_second_bye_is_worse_than_a_rematch():
    # C (lowest) already had a bye; avoiding a second bye forces a rematch B–C.
    entrants = pool(("A", 1), ("B", 0), ("C", 0), played="AC", byes="C")
    result = pair_pool(entrants)
    assert result.second_byes == 0
    assert result.pairs == (("A", None), ("B", "C")) or ("B", None) in result.pairs


def test_blossom_fallback_agrees_with_the_search():
    entrants = pool(*[(x, w) for x, w in zip("ABCDEFGH", (3, 2, 2, 2, 1, 1, 1, 0),
                                             strict=True)],
                    played="AB AC BC DE EF", byes="H")
    searched = pair_pool(entrants)
    forced = pair_pool(entrants, budget_nodes=0)
    assert forced.solver == "blossom" and searched.solver == "search"
    assert forced.pairs == searched.pairs


# ---------------------------------------------------------------- properties
@st.composite
def pools(draw, max_size: int = 9, max_wins: int = 4):
    """Entrants with wins, byes and earlier opponents drawn at random (wins sorted)."""
    n = draw(st.integers(1, max_size))
    wins = sorted(draw(st.lists(st.integers(0, max_wins), min_size=n, max_size=n)),
                  reverse=True)
    names = [f"p{k}" for k in range(n)]
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)),
                          max_size=2 * n))
    met: dict[str, set[str]] = {x: set() for x in names}
    for a, b in pairs:
        if a != b:
            met[names[a]].add(names[b])
            met[names[b]].add(names[a])
    byes = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return [Entrant(x, w, b, frozenset(met[x]))
            for x, w, b in zip(names, wins, byes, strict=True)]


@settings(max_examples=600, deadline=None)
@given(pools(), st.sampled_from(["lowest", "highest"]))
def test_pairing_is_the_best_pairing_that_exists(entrants, prefer):
    """Brute force over every pairing: fewest second byes, then rematches, then the
    smallest win differences, then the top-down order — exactly the optimum."""
    result = pair_pool(entrants, prefer)
    names = sorted([a for a, _ in result.pairs] + [b for _, b in result.pairs if b])
    assert names == sorted(e.name for e in entrants)
    assert pairing_key(entrants, result.pairs, prefer) == brute_force(entrants, prefer)


@settings(max_examples=150, deadline=None)
@given(pools(max_size=24), st.sampled_from(["lowest", "highest"]))
def test_search_and_blossom_agree_on_larger_pools(entrants, prefer):
    result = pair_pool(entrants, prefer)
    p = Problem(entrants, prefer)
    exact = describe(p, blossom(p), "blossom")
    assert pairing_key(entrants, result.pairs, prefer) == pairing_key(
        entrants, exact.pairs, prefer)
