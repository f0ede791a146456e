"""When each stage is played, checked from ``event.json`` alone (the contract other
tools read), on simulated events of every size the issue names.

The rules' words each check reads:

* 「各予選リーグの1位は、6～7回戦に準決勝、決勝、3位決定戦を行い」 and the
  timetable 「6回戦/準決勝」「7回戦/決勝」 — semi-finals in round 6, final and
  third-place match in round 7, however early the leagues are won;
* 「各予選リーグの1位以外の選手は、順位決定リーグで7回戦まで対局を行い」 — the
  placement league still plays in round 7;
* 「全勝が1名となった予選リーグの全勝選手を不戦勝とします。2回目の不戦勝となる場合も
  あります」 — from round 2 on, a league's sole undefeated player has the bye;
* 新オセロ方式: 「準決勝進出選手は、4～5回戦に準決勝、決勝、3位決定戦を行い」,
  「順位決定リーグに進んだ選手は、5回戦まで対局を行い」.
"""

from __future__ import annotations

from typing import Any

import pytest

from controller.tournament import TournamentError
from controller.tournament_store.formats import event_json
from controller.tournament_store.simulate import simulate

# (players present, seed, whether the roster passes lottery number 138)
OPEN_EVENTS = [(40, 1, False), (40, 2, False), (64, 1, False), (64, 2, False),
               (97, 1, False), (97, 2, False), (128, 1, True), (128, 2, True),
               (131, 1, True), (131, 2, True), (200, 1, True), (200, 2, True)]


def _stages(data: dict[str, Any]) -> dict[int, set[str]]:
    return {r["round"]: {g["stage"] for g in r["games"]} for r in data["rounds"]}


def _check_sole_undefeated_byes(data: dict[str, Any]) -> int:
    """Every league bye from round 2 on goes to the league's sole undefeated player,
    and a league winner has the bye in every league round after its league was won.
    Returns how many such byes the event had."""
    group = {p["name"]: p["group"] for p in data["players"]}
    lost: set[str] = set()
    in_league: dict[str, set[str]] = {}
    waiting = 0
    for rnd in data["rounds"]:
        number = rnd["round"]
        league_games = [g for g in rnd["games"] if g["stage"] == "league"]
        if 2 <= number <= 5:  # the league rounds
            for league, members in in_league.items():
                unbeaten = members - lost
                if len(unbeaten) != 1:
                    continue
                (sole,) = unbeaten
                byes = [g for g in league_games if g["group"] == league]
                assert [(g["first"], g["second"]) for g in byes] == [(sole, None)], (
                    f"round {number}: league {league}'s sole undefeated {sole} "
                    "must have the bye and nobody else in that league plays")
                waiting += 1
        for g in league_games:
            for name in (g["first"], g["second"]):
                if name is not None:
                    in_league.setdefault(group[name], set()).add(name)
            if g["second"] is not None and g["winner"] is not None:
                lost.add(g["second"] if g["winner"] == g["first"] else g["first"])
        # players who left for the placement league are out of the league from now on
        for g in rnd["games"]:
            if g["stage"] == "placement":
                for name in (g["first"], g["second"]):
                    if name is not None:
                        in_league.get(group[name], set()).discard(name)
    return waiting


@pytest.mark.parametrize(("players", "seed", "extended"), OPEN_EVENTS)
def test_open_semi_finals_in_round_six_final_in_round_seven(players, seed, extended):
    t = simulate(players, "open", seed, extend=extended)
    data = event_json(t)
    stages = _stages(data)
    assert sorted(stages) == [1, 2, 3, 4, 5, 6, 7]
    for number, seen in stages.items():
        assert ("semi" in seen) == (number == 6), f"round {number}: {seen}"
        assert ({"final", "third"} <= seen) == (number == 7), f"round {number}: {seen}"
        assert ("league" in seen) == (number <= 5), f"round {number}: {seen}"
    assert "placement" in stages[7]
    # everybody not in the final or third-place match plays the placement league in 7
    r7 = data["rounds"][6]["games"]
    finalists = {n for g in r7 if g["stage"] in ("final", "third")
                 for n in (g["first"], g["second"])}
    withdrawn = {p["name"] for p in data["players"] if p["withdrawn_after_round"] is not None}
    present = {p["name"] for p in data["players"] if not p["absent"]}
    placed = {n for g in r7 if g["stage"] == "placement"
              for n in (g["first"], g["second"]) if n is not None}
    assert placed == present - finalists - withdrawn
    _check_sole_undefeated_byes(data)
    assert data["finished"] and len(data["final_ranking"]) == len(present)
    assert (data["extension"] is not None) == extended
    if extended:
        assert all(r["notes"][0] == data["extension"] for r in data["rounds"])


def test_leagues_won_early_wait_with_byes():
    # 40 players: leagues of 10 are won by round 3 or 4, so their winners wait
    waiting = sum(_check_sole_undefeated_byes(event_json(simulate(40, "open", seed)))
                  for seed in (1, 2))
    assert waiting >= 4


@pytest.mark.parametrize(("division", "players"),
                         [("women", 18), ("women", 25), ("women", 32),
                          ("children", 20), ("children", 32)])
def test_new_othello_semi_finals_in_round_four_final_in_round_five(division, players):
    data = event_json(simulate(players, division, 1))
    stages = _stages(data)
    assert sorted(stages) == [1, 2, 3, 4, 5]
    assert "semi" in stages[4] and {"final", "third", "placement"} <= stages[5]
    assert all("semi" not in stages[r] for r in (1, 2, 3, 5))
    assert data["extension"] is None


def test_a_league_without_a_sole_undefeated_player_after_round_five_sends_its_first():
    # 128 entries (4 seeded) is the largest roster the rules number: leagues of 32,
    # each won by round 5.  A league of 34 needs 136 entries — an extension — and when
    # the higher-placed side always wins, its unbeaten count runs 17, 9, 5, 3, 2: no
    # sole undefeated player after round 5.
    from controller.tournament import Player, Tournament

    roster = [Player(f"p{k:03d}", seed=k + 1 if k < 4 else None) for k in range(128)]
    assert Tournament(roster, "open").extension is None
    roster = [Player(f"p{k:03d}", seed=k + 1 if k < 4 else None) for k in range(136)]
    t = Tournament(roster, "open", extend=True)
    t.draw_lottery(["12345", "67890", "13579"])
    sizes = {x: list(t.groups.values()).count(x) for x in "ABCD"}
    assert sizes["A"] == 34
    for _ in range(5):
        rnd = t.pair_next_round()
        wins = {s.name: s.wins for s in t.standings()}
        for g in rnd.games:
            if g.table is None:
                continue
            higher = g.first if wins[g.first] >= wins[g.second] else g.second
            t.record_result(g.table, "black" if g.black == higher else "white")
    lost = {g.loser for r in t.rounds for g in r.games if g.stage == "league" and g.loser}
    unbeaten_a = [n for n, x in t.groups.items() if x == "A" and n not in lost]
    assert len(unbeaten_a) == 2
    order = [s.name for s in t.standings()]
    first = min(unbeaten_a, key=order.index)
    r6 = t.pair_next_round()
    semi = next(g for g in r6.games if g.stage == "semi" and g.group == "A-D")
    assert semi.first == first
    other = next(n for n in unbeaten_a if n != first)
    assert any(g.stage == "placement" and other in (g.first, g.second) for g in r6.games)
    assert any(f"{first} is its 1位" in n for n in r6.notes)


def test_a_field_past_lottery_number_138_is_refused_without_the_organisers_word():
    with pytest.raises(TournamentError, match=r"1025 roster entries: the rules number "
                       r"players 11–138.*at most 128 entries.*extend = true"):
        simulate(1000, "open", 1)
    t = simulate(1000, "open", 1, extend=True)
    assert t.extension is not None and "11–1035" in t.extension
    assert len(t.rounds) == 7
    assert all(r.notes[0] == t.extension for r in t.rounds)
