"""The pairing order and the 新オセロ ranking, each checked against a reference
written here from the rules' own words (第41期オセロ名人戦 大会方式), not through
the pairing or ranking code's helpers.

Open division, 組み合わせ方法 (2回戦以降), rule 6:
  「前項までを最適にみたとすように、暫定上位選手から順に、以下のとおり組み合わせを
  行います」「対戦相手が未確定の選手数が奇数の場合は、対戦相手を不戦勝とする仮の選手
  (暫定成績は-1勝)を1人加えて、組み合わせを行います」「対戦相手が未確定の暫定最上位
  選手を、可能な限り下位選手と組み合わせます」
新オセロ方式, rule 5: the same, but 「可能な限り上位選手と組み合わせます」 and
  「対戦相手が未確定の選手が1名のみとなった場合、その選手を不戦勝とします」.
新オセロ 暫定/最終順位 criteria 3–5:
  3「直近の対局前における勝数の多い方を上位(直近の対局に負けている方を上位)とします。
   ただし、前の対局が異なる勝数の選手による対戦で下位選手が勝った場合は、負けた上位
   選手は前の対局を勝ったもの、勝った下位選手は負けたものとして扱います。つまり、1勝差
   の対戦で下位選手が勝ち同勝数となった場合、下位選手が上位となります。」
  4「直近の対局前における順位が上位である方を上位とします。」
  5「抽選番号が大きい方を上位とします。」
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_tournament_pairing import pools

from controller.tournament import flow as flow_module
from controller.tournament.model import Entrant
from controller.tournament.pairing import pair_pool
from controller.tournament_store.formats import event_json
from controller.tournament_store.simulate import simulate

VIRTUAL = "(virtual -1)"


# ------------------------------------------------------------------ pairing
def every_pairing(names: list[str]) -> Iterator[list[tuple[str, str]]]:
    if not names:
        yield []
        return
    head, rest = names[0], names[1:]
    for k, other in enumerate(rest):
        for more in every_pairing(rest[:k] + rest[k + 1:]):
            yield [(head, other), *more]


def rules_cost(entrants: list[Entrant], pairing: list[tuple[str, str]]) -> tuple:
    """Rules 2–5 (open) / 1–4 (新オセロ), in their order: 不戦勝は各選手最大1回;
    同一選手との再戦は行いません; 同勝数どうし, else 1勝差, else 2勝差 … — the largest
    difference as small as it can be, then as few pairs at it, then the next."""
    by = {e.name: e for e in entrants}
    wins = {e.name: e.wins for e in entrants} | {VIRTUAL: -1}
    second_byes = sum(1 for a, b in pairing for x, y in ((a, b), (b, a))
                      if y == VIRTUAL and by[x].had_bye)
    rematches = sum(1 for a, b in pairing if VIRTUAL not in (a, b) and b in by[a].played)
    gaps = sorted((abs(wins[a] - wins[b]) for a, b in pairing), reverse=True)
    return second_byes, rematches, gaps


def rules_pairing(entrants: list[Entrant], system: str) -> set[frozenset]:
    """The pairing the rules' words pick among the optimal ones, walking from the top."""
    names = [e.name for e in entrants]
    everyone = names + ([VIRTUAL] if len(names) % 2 else [])
    pairings = list(every_pairing(everyone))
    best = min(rules_cost(entrants, p) for p in pairings)
    optimal = [{frozenset(x) for x in p} for p in pairings
               if rules_cost(entrants, p) == best]
    place = {n: k for k, n in enumerate(everyone)}  # the virtual −1-win player is last
    chosen: set[frozenset] = set()
    unpaired = list(names)  # 暫定上位選手から順に
    while unpaired:
        top = unpaired[0]
        if system == "new" and len(unpaired) == 1:
            # 「対戦相手が未確定の選手が1名のみとなった場合、その選手を不戦勝とします」
            chosen.add(frozenset((top, VIRTUAL)))
            unpaired.remove(top)
            continue
        partners = {next(iter(pair - {top})) for p in optimal for pair in p if top in pair}
        if system == "open":  # 「可能な限り下位選手と」: the virtual player is lowest
            partner = max(partners, key=place.__getitem__)
        else:  # 「可能な限り上位選手と」
            partner = min(partners, key=place.__getitem__)
        pair = frozenset((top, partner))
        chosen.add(pair)
        optimal = [p for p in optimal if pair in p]
        unpaired = [n for n in unpaired if n not in pair]
    assert chosen in optimal, "the walk must end on an optimal pairing"
    return chosen


def as_sets(pairs: tuple[tuple[str, str | None], ...]) -> set[frozenset]:
    return {frozenset((a, b if b is not None else VIRTUAL)) for a, b in pairs}


def entrants_of(*specs: tuple[str, int], played: str = "", byes: str = "") -> list[Entrant]:
    met: dict[str, set[str]] = {n: set() for n, _ in specs}
    for a, b in played.split():
        met[a].add(b)
        met[b].add(a)
    return [Entrant(n, w, n in byes, frozenset(met[n])) for n, w in specs]


@settings(max_examples=400, deadline=None)
@given(pools(max_wins=3), st.sampled_from(["open", "new"]))
def test_pairing_follows_the_rules_words_top_down(entrants, system):
    prefer = "lowest" if system == "open" else "highest"
    assert as_sets(pair_pool(entrants, prefer).pairs) == rules_pairing(entrants, system)


def test_open_top_player_meets_the_lowest_possible():
    # all on 2 wins, nobody has met: A–D, B–C
    pool = entrants_of(("A", 2), ("B", 2), ("C", 2), ("D", 2))
    assert as_sets(pair_pool(pool, "lowest").pairs) == {frozenset("AD"), frozenset("BC")}
    # D has met A: the lowest A may still meet is C, and B–D follows
    pool = entrants_of(("A", 2), ("B", 2), ("C", 2), ("D", 2), played="AD")
    assert as_sets(pair_pool(pool, "lowest").pairs) == {frozenset("AC"), frozenset("BD")}


def test_open_odd_pool_the_virtual_player_is_the_lowest_partner():
    # five players on 1 win: every pairing has one pair with the −1-win player, so the
    # top-down rule decides, and the lowest partner the top player can have is it
    pool = entrants_of(*[(x, 1) for x in "ABCDE"])
    result = pair_pool(pool, "lowest")
    assert as_sets(result.pairs) == {frozenset(("A", VIRTUAL)), frozenset("BE"),
                                     frozenset("CD")}
    assert as_sets(result.pairs) == rules_pairing(pool, "open")


def test_new_othello_top_meets_the_highest_possible_and_the_last_one_has_the_bye():
    pool = entrants_of(*[(x, 1) for x in "ABCDE"])
    result = pair_pool(pool, "highest")
    assert as_sets(result.pairs) == {frozenset("AB"), frozenset("CD"),
                                     frozenset(("E", VIRTUAL))}
    # B has met A: A takes C, B takes D, and E, alone, has the bye
    pool = entrants_of(*[(x, 1) for x in "ABCDE"], played="AB")
    assert as_sets(pair_pool(pool, "highest").pairs) == {
        frozenset("AC"), frozenset("BD"), frozenset(("E", VIRTUAL))}


def test_new_othello_bye_moves_up_only_when_the_last_one_already_had_one():
    # 「不戦勝は各選手最大1回」 comes first: E had a bye, so D is the one left over
    pool = entrants_of(*[(x, 1) for x in "ABCDE"], byes="E")
    assert as_sets(pair_pool(pool, "highest").pairs) == rules_pairing(pool, "new") == {
        frozenset("AB"), frozenset("CE"), frozenset(("D", VIRTUAL))}


@pytest.mark.parametrize(("division", "players", "system"),
                         [("women", 18, "new"), ("children", 21, "new"),
                          ("open", 40, "open"), ("open", 24, "open")])
def test_every_small_pool_of_whole_events_pairs_by_the_rules_words(
        division, players, system, monkeypatch):
    """The pools the director hands to the pairing in simulated events (its
    provisional ranking, past meetings and byes), re-paired by the words."""
    seen: list[tuple[list[Entrant], tuple]] = []

    def spy(entrants, prefer="lowest", budget_nodes=None):
        result = pair_pool(entrants, prefer, budget_nodes)
        seen.append((list(entrants), result.pairs))
        return result

    monkeypatch.setattr(flow_module, "pair_pool", spy)
    for seed in range(1, 5):
        simulate(players, division, seed)
    small = [(e, pairs) for e, pairs in seen if 2 <= len(e) <= 12]
    assert len(small) >= 8
    for entrants, pairs in small:
        assert as_sets(pairs) == rules_pairing(entrants, system)


# ------------------------------------------------------------------ 新オセロ ranking
def rules_ranking(data: dict[str, Any]) -> list[list[str]]:
    """The ranking after each round, from event.json's games alone, by criteria 1–5."""
    numbers = {p["name"]: p["number"] for p in data["players"] if not p["absent"]}
    players = list(numbers)
    before_round_1 = sorted(players, key=lambda n: -numbers[n])  # only criterion 5 applies
    history = [before_round_1]
    wins = dict.fromkeys(players, 0)
    latest: dict[str, tuple[int, int]] = {}  # name -> (round of latest game, criterion 3)
    last = len(data["rounds"])
    for rnd in data["rounds"]:
        r = rnd["round"]
        wins_before_round = dict(wins)
        for g in rnd["games"]:
            winner, a, b = g["winner"], g["first"], g["second"]
            wins[winner] += 1
            if b is None:  # a bye: a game won
                latest[winner] = (r, wins_before_round[winner])
                continue
            loser = b if winner == a else a
            # 「異なる勝数の選手による対戦で下位選手が勝った場合は、負けた上位選手は前の
            # 対局を勝ったもの、勝った下位選手は負けたものとして扱います」
            if wins_before_round[winner] < wins_before_round[loser]:
                latest[winner] = (r, wins[winner])          # as if it had lost
                latest[loser] = (r, wins[loser] - 1)        # as if it had won
            else:
                latest[winner] = (r, wins_before_round[winner])
                latest[loser] = (r, wins_before_round[loser])
        places: dict[str, int] = {}
        if r == last:
            for g in rnd["games"]:
                if g["stage"] == "final":
                    places[g["winner"]] = 1
                    if g["second"] is not None:
                        places[g["second"] if g["winner"] == g["first"] else g["first"]] = 2
                if g["stage"] == "third":
                    places[g["winner"]] = 3

        def key(n: str, r: int = r, places: dict[str, int] = places) -> tuple:
            latest_round, c3 = latest.get(n, (0, 0))
            before = history[max(latest_round, 1) - 1]  # 「直近の対局前における順位」
            return (places.get(n, 99),   # 1 決勝・3位決定戦
                    -wins[n],            # 2 勝数
                    -c3,                 # 3 直近の対局前における勝数
                    before.index(n),     # 4 直近の対局前における順位
                    -numbers[n])         # 5 抽選番号が大きい方
        history.append(sorted(players, key=key))
    return history


@pytest.mark.parametrize(("division", "players", "seed"),
                         [("women", 18, 1), ("women", 25, 2), ("women", 32, 3),
                          ("children", 20, 4), ("children", 32, 5), ("women", 29, 6)])
def test_new_othello_standings_follow_criteria_three_to_five(division, players, seed):
    data = event_json(simulate(players, division, seed))
    expected = rules_ranking(data)
    for rnd in data["rounds"]:
        got = [s["name"] for s in rnd["standings"]]
        assert got == expected[rnd["round"]], f"round {rnd['round']}"


def test_the_rules_own_example_lower_winner_of_a_one_win_gap_ranks_above():
    # 「つまり、1勝差の対戦で下位選手が勝ち同勝数となった場合、下位選手が上位となります」
    for seed in range(1, 40):
        data = event_json(simulate(24, "women", seed))
        for rnd in data["rounds"][1:4]:
            before = {s["name"]: s["criteria"]["wins"]
                      for s in data["rounds"][rnd["round"] - 2]["standings"]}
            position = {s["name"]: s["position"] for s in rnd["standings"]}
            for g in rnd["games"]:
                a, b, w = g["first"], g["second"], g["winner"]
                if b is None or abs(before[a] - before[b]) != 1:
                    continue
                loser = b if w == a else a
                if before[w] < before[loser]:
                    assert position[w] < position[loser]
                    return
    pytest.fail("no upset across a one-win gap in 39 simulated events")


def test_criteria_three_four_and_five_each_decide_some_places():
    decided = {3: 0, 4: 0, 5: 0}
    for seed in range(1, 6):
        data = event_json(simulate(32, "children", seed))
        for rnd in data["rounds"]:
            rows = [s["criteria"] for s in rnd["standings"]]
            for upper, lower in zip(rows, rows[1:], strict=False):
                if upper["place"] is not None or upper["wins"] != lower["wins"]:
                    continue
                if upper["wins_before_latest"] != lower["wins_before_latest"]:
                    decided[3] += 1
                elif upper["position_before_latest"] != lower["position_before_latest"]:
                    decided[4] += 1
                else:
                    decided[5] += 1
                    assert upper["number"] > lower["number"]
    assert all(decided.values()), decided
