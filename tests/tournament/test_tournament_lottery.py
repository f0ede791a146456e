"""Lottery (抽選方法) and league split (リーグ分け方法), with hand-worked examples."""

from __future__ import annotations

import pytest

from controller.tournament.leagues import split_leagues
from controller.tournament.lottery import (
    join_seeds,
    knockout_lottery,
    open_lottery,
    preliminary_numbers,
)
from controller.tournament.model import Player, TournamentError


def test_seeds_join_into_fifteen_digits():
    assert join_seeds(["12345", "67890", "13579"]) == 123456789013579
    # a short ballot is read as five digits with leading zeros
    assert join_seeds(["1", "2", "3"]) == 10000200003


@pytest.mark.parametrize(
    ("seeds", "needle"),
    [
        (["12a45", "1", "2"], "seed 1 must be digits"),
        (["1", "-2", "3"], "seed 2 must be digits"),
        (["1", "2", ""], "seed 3 must be digits"),
        (["1", "2", "１"], "seed 3 must be digits"),  # full-width digit
        (["1", "2", "123456"], "more than 5 digits"),
        (["1", "2"], "three seed numbers"),
    ],
)
def test_bad_seeds_are_refused_by_position(seeds, needle):
    with pytest.raises(TournamentError, match=needle):
        join_seeds(seeds)


def test_preliminary_numbers_follow_the_formula():
    # seed 1: initial 1 mod M = 1; first = (1 × 65793 + 4282663) mod 8388608 = 4348456
    # second = (4348456 × 65793 + 4282663) mod 8388608 = 286,102,248,271 mod 2^23 = 383823
    assert preliminary_numbers(1, 3) == [4348456, 383823, 7439222]
    # the initial value is the seed reduced mod M first
    assert preliminary_numbers(8388608 + 1, 3) == [4348456, 383823, 7439222]


def test_generator_has_full_period_so_numbers_never_tie():
    values = preliminary_numbers(123456789012345, 200_000)
    assert len(set(values)) == len(values)


def test_lottery_numbers_in_ascending_preliminary_order_with_seeds_replaced():
    roster = [Player("p1"), Player("p2", seed=3), Player("p3", absent=True), Player("p4")]
    # seed 1 -> preliminary 4348456, 383823, 7439222, 2904733 for entries 1–4:
    # ascending: p2 (383823), p4 (2904733), p1 (4348456), p3 (7439222)
    numbers = open_lottery(roster, 1)
    assert numbers == {"p2": 3, "p4": 12, "p1": 13, "p3": 14}


def test_absent_players_keep_everybody_elses_number():
    base = [Player(f"p{k}") for k in range(10)]
    with_absent = [*base[:4], Player("p4", absent=True), *base[5:]]
    assert open_lottery(base, 99) == open_lottery(with_absent, 99)


def test_knockout_lottery_gives_designated_numbers_and_fills_the_rest():
    roster = [Player(f"p{k}") for k in range(20)] + [Player("s", seed=2)]
    numbers = knockout_lottery(roster, 7)
    assert numbers["s"] == 2
    assert sorted(numbers.values()) == list(range(1, 22))


@pytest.mark.parametrize(
    ("count", "sizes"),
    [
        # deal A,B,C,D,…; then B→A when A and B are odd, D→C when C and D are odd
        (4, {"A": 1, "B": 1, "C": 1, "D": 1}),  # all odd: both moves → 2,0,2,0
        (5, {"A": 2, "B": 1, "C": 1, "D": 1}),
        (6, {"A": 2, "B": 2, "C": 1, "D": 1}),
        (8, {"A": 2, "B": 2, "C": 2, "D": 2}),
        (9, {"A": 3, "B": 2, "C": 2, "D": 2}),
        (10, {"A": 3, "B": 3, "C": 2, "D": 2}),
        (11, {"A": 3, "B": 3, "C": 3, "D": 2}),
        (132, {"A": 33, "B": 33, "C": 33, "D": 33}),
    ],
)
def test_league_adjustment_leaves_at_most_one_odd_league(count, sizes):
    numbers = {f"p{k}": k + 11 for k in range(count)}
    league = split_leagues(numbers)
    after = {x: sum(1 for v in league.values() if v == x) for x in "ABCD"}
    expected = dict(sizes)
    for giver, taker in (("B", "A"), ("D", "C")):
        if expected[giver] % 2 and expected[taker] % 2:
            expected[giver] -= 1
            expected[taker] += 1
    assert after == expected
    assert sum(v % 2 for v in after.values()) <= 1


def test_132_players_split_34_32_34_32_and_the_movers_are_the_highest_of_b_and_d():
    numbers = {f"s{k}": k for k in range(1, 5)}
    numbers.update({f"p{k}": k for k in range(11, 139)})
    league = split_leagues(numbers)
    sizes = {x: sum(1 for v in league.values() if v == x) for x in "ABCD"}
    assert sizes == {"A": 34, "B": 32, "C": 34, "D": 32}
    # B was dealt 2, 12, 16, …, 136; D 4, 14, …, 138: 136 and 138 move
    assert league["p136"] == "A" and league["p138"] == "C"
    assert league["s1"] == "A" and league["s2"] == "B" and league["p11"] == "A"


def test_missing_numbers_are_skipped_in_the_deal():
    # number 1 was not drawn: the holder of 2 goes to A (the document's example)
    numbers = {"two": 2, "three": 3, "four": 4, "x": 11, "y": 12, "z": 13, "u": 14, "v": 15}
    league = split_leagues(numbers)
    assert [league[n] for n in ("two", "three", "four", "x", "y")] == ["A", "B", "C", "D", "A"]
